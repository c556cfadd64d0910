package flopspack

import (
	"errors"
	"math"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/flopspack/flopspack/bindings/go/internal/capi"
)

func llama3_8B() TransformerConfig {
	c := DefaultTransformerConfig()
	c.NumLayers, c.HiddenSize, c.NumAttentionHeads, c.NumKeyValueHeads = 32, 4096, 32, 8
	c.IntermediateSize, c.VocabSize, c.GatedMLP = 14336, 128256, true
	return c
}

func mustPoly(t *testing.T) *CostModel {
	t.Helper()
	m, err := NewPolynomialModel(7, 1, 2, 0.25)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func TestVersionMatchesHeader(t *testing.T) {
	if Version() != HeaderVersion {
		t.Fatalf("library %s, header %s", Version(), HeaderVersion)
	}
	if VersionNumber() != int(capi.FLOPSPACK_VERSION_NUMBER) {
		t.Fatalf("version number %d", VersionNumber())
	}
}

func TestPolynomialClosedForms(t *testing.T) {
	m := mustPoly(t)
	docs := []int64{4, 8, 2}
	per, err := m.DocumentCosts(docs)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1 + 8 + 4, 1 + 16 + 16, 1 + 4 + 1}
	if !reflect.DeepEqual(per, want) {
		t.Fatalf("document costs %v, want %v", per, want)
	}
	seq, _ := m.SequenceCost(docs)
	overhead, _ := m.SequenceOverhead()
	if seq != overhead+want[0]+want[1]+want[2] || overhead != 7 {
		t.Fatalf("sequence %v overhead %v", seq, overhead)
	}
	padded, _ := m.PaddedBatchCost(docs)
	if padded != 3*(7+1+16+16) {
		t.Fatalf("padded %v", padded)
	}
	empty, err := m.SequenceCost(nil)
	if err != nil || empty != 0 {
		t.Fatalf("empty sequence: %v %v", empty, err)
	}
	if add, _ := m.IsAdditive(); !add {
		t.Fatal("polynomial must be additive")
	}
}

func TestTransformerMatchesCTest(t *testing.T) {
	m, err := NewTransformerModel(llama3_8B())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	cost, err := m.SequenceCost([]int64{8192})
	if err != nil || cost != 421651971833856.0 {
		t.Fatalf("cost %v err %v", cost, err)
	}
}

func TestBadArgumentCarriesLibraryMessage(t *testing.T) {
	m := mustPoly(t)
	_, err := m.SequenceCost([]int64{4, -5})
	var e *Error
	if !errors.As(err, &e) || e.Status != StatusInvalidArgument {
		t.Fatalf("want *Error INVALID_ARGUMENT, got %v", err)
	}
	if e.Message != "document_lengths[1] = -5: every length must be positive" {
		t.Fatalf("message %q", e.Message)
	}
	if !errors.Is(err, ErrInvalidArgument) || errors.Is(err, ErrInfeasible) || !errors.Is(err, StatusInvalidArgument.Target()) {
		t.Fatal("errors.Is must match on the status")
	}
	if _, err := NewPolynomialModel(0, 0, math.NaN(), 0); err == nil ||
		!strings.Contains(err.Error(), "linear = nan") {
		t.Fatalf("NaN coefficient: %v", err)
	}
	bad := llama3_8B()
	bad.HiddenSize = 0
	if _, err := NewTransformerModel(bad); err == nil ||
		!strings.Contains(err.Error(), "hidden_size = 0 must be positive") {
		t.Fatalf("bad config: %v", err)
	}
	// Sizes the binding checks itself (the C function would read past them).
	if err := m.DocumentCostsInto([]int64{1, 2}, make([]float64, 1)); err == nil ||
		!strings.Contains(err.Error(), "out_costs has 1 entries for 2 document_lengths") {
		t.Fatalf("short output: %v", err)
	}
	if _, _, err := FitCostModelCSR([]int64{1, 2}, []uint64{0, 1}, []float64{1, 2}, FitAll); err == nil ||
		!strings.Contains(err.Error(), "sample_offsets has 2 entries but seconds has 2") {
		t.Fatalf("short offsets: %v", err)
	}
}

func TestUseAfterCloseIsAnError(t *testing.T) {
	m, err := NewTokensModel()
	if err != nil {
		t.Fatal(err)
	}
	m.Close()
	m.Close() // idempotent
	if _, err := m.SequenceCost([]int64{1}); !errors.Is(err, ErrClosed) {
		t.Fatalf("want ErrClosed, got %v", err)
	}
	if _, err := m.DocumentCosts([]int64{1}); !errors.Is(err, ErrClosed) {
		t.Fatalf("want ErrClosed, got %v", err)
	}
	if m.String() != "flopspack.CostModel(closed)" {
		t.Fatal(m.String())
	}
	var p *Plan = &Plan{}
	if _, err := p.Metrics(); !errors.Is(err, ErrClosed) || p.NumGroups() != 0 {
		t.Fatalf("closed plan: %v", err)
	}
}

func TestCustomModelCallsGoAndWrapsItsError(t *testing.T) {
	m, err := NewCustomModel(func(lengths []int64) (float64, error) {
		var sum int64
		for _, l := range lengths {
			sum += l
		}
		if sum > 100 {
			return 0, errors.New("too long for this test")
		}
		return float64(sum * sum), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if c, err := m.SequenceCost([]int64{3, 4}); err != nil || c != 49 {
		t.Fatalf("cost %v err %v", c, err)
	}
	if add, _ := m.IsAdditive(); add {
		t.Fatal("custom models are not additive")
	}
	_, err = m.SequenceCost([]int64{60, 50})
	var e *Error
	if !errors.As(err, &e) || e.Status != StatusCallbackFailed || e.Cause == nil ||
		e.Cause.Error() != "too long for this test" {
		t.Fatalf("callback failure: %v", err)
	}
	panicky, _ := NewCustomModel(func([]int64) (float64, error) { panic("boom") })
	defer panicky.Close()
	if _, err := panicky.SequenceCost([]int64{1}); !errors.Is(err, StatusCallbackFailed.Target()) ||
		!strings.Contains(err.Error(), "panicked: boom") {
		t.Fatalf("panic: %v", err)
	}
	if _, err := NewCustomModel(nil); err == nil {
		t.Fatal("nil fn must fail")
	}
}

func TestFitRecoversExactCoefficients(t *testing.T) {
	samples := [][]int64{{10}, {20}, {30}, {40}, {50}}
	var seconds []float64
	for _, s := range samples {
		seconds = append(seconds, 2+0.5*float64(s[0]))
	}
	m, r, err := FitCostModel(samples, seconds, FitPerSequence|FitLinear)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if math.Abs(r.PerSequence-2) > 1e-9 || math.Abs(r.Linear-0.5) > 1e-12 || r.RSquared < 1-1e-12 ||
		r.NumSamples != 5 || r.Quadratic != 0 {
		t.Fatalf("report %+v", r)
	}
	if _, _, err := FitCostModel(samples[:2], seconds[:2], FitAll); err == nil ||
		!strings.Contains(err.Error(), "too few") {
		t.Fatalf("too few samples: %v", err)
	}
}

// Every field of the C output structs has its Go counterpart (and back).
func TestStructMirrors(t *testing.T) {
	check := func(name string, swig interface{}, goType reflect.Type) {
		getters := map[string]bool{}
		st := reflect.TypeOf(swig)
		for i := 0; i < st.NumMethod(); i++ {
			m := st.Method(i).Name
			if strings.HasPrefix(m, "Get") && m != "GetStruct_size" {
				getters[m[3:]] = true
			}
		}
		matched := 0
		for g := range getters {
			if _, ok := goType.FieldByNameFunc(func(f string) bool { return fieldMatches(f, g) }); !ok {
				t.Errorf("%s: C field %s has no Go field", name, g)
			} else {
				matched++
			}
		}
		if n := countLeafFields(goType); matched != n {
			t.Errorf("%s: %d C fields matched, Go struct has %d", name, matched, n)
		}
	}
	metrics := capi.NewFlopspack_plan_metrics_data()
	defer capi.DeleteFlopspack_plan_metrics_data(metrics)
	check("plan metrics", metrics, reflect.TypeOf(PlanMetrics{}))
	cp := capi.NewFlopspack_cp_metrics()
	defer capi.DeleteFlopspack_cp_metrics(cp)
	check("cp metrics", cp, reflect.TypeOf(CpMetrics{}))
	totals := capi.NewFlopspack_stream_totals()
	defer capi.DeleteFlopspack_stream_totals(totals)
	check("stream totals", totals, reflect.TypeOf(StreamTotals{}))
	summary := capi.NewFlopspack_stats_summary()
	defer capi.DeleteFlopspack_stats_summary(summary)
	check("stats summary", summary, reflect.TypeOf(StatsSummary{}))
	tail := capi.NewFlopspack_stats_tail()
	defer capi.DeleteFlopspack_stats_tail(tail)
	check("stats tail", tail, reflect.TypeOf(StatsTail{}))
	sim := capi.NewFlopspack_simulate_summary()
	defer capi.DeleteFlopspack_simulate_summary(sim)
	check("simulate summary", sim, reflect.TypeOf(SimulationSummary{}))
}

func countLeafFields(t reflect.Type) int {
	return t.NumField()
}

// 10^6 lengths reach C without a copy: the call allocates nothing close to
// the 8 MB a copy of the slice would need.
func TestMillionLengthsPassWithoutCopy(t *testing.T) {
	m, _ := NewTokensModel()
	defer m.Close()
	lengths := make([]int64, 1_000_000)
	for i := range lengths {
		lengths[i] = int64(i%4096 + 1)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cost, err := m.SequenceCost(lengths)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	var want float64
	for _, l := range lengths {
		want += float64(l)
	}
	if cost != want {
		t.Fatalf("cost %v want %v", cost, want)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<10 {
		t.Fatalf("the call allocated %d bytes: the input was copied", grew)
	}
}

func BenchmarkSequenceCostMillion(b *testing.B) {
	m, _ := NewTokensModel()
	defer m.Close()
	lengths := make([]int64, 1_000_000)
	for i := range lengths {
		lengths[i] = int64(i%4096 + 1)
	}
	b.ReportAllocs()
	b.SetBytes(8 * int64(len(lengths)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := m.SequenceCost(lengths); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSequenceCostSmall: a call where the binding's share is visible
// (the handle's acquire/release, docs/bindings.md "Lifetime and threads").
func BenchmarkSequenceCostSmall(b *testing.B) {
	m, err := NewTokensModel()
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	lengths := []int64{5, 7}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := m.SequenceCost(lengths); err != nil {
			b.Fatal(err)
		}
	}
}
