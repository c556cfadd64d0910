package flopspack

// The golden vectors (tests/golden/*.json, from the C++ core): the Go
// binding must reproduce every cost, assignment and metric to the last bit.

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
)

func goldenDir() string {
	if dir := os.Getenv("FLOPSPACK_GOLDEN_DIR"); dir != "" {
		return dir
	}
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "tests", "golden")
}

type goldenFile struct {
	Format string            `json:"format"`
	Cases  []json.RawMessage `json:"cases"`
}

func loadGolden(t *testing.T, name string) []json.RawMessage {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(goldenDir(), name))
	if err != nil {
		t.Fatal(err)
	}
	var f goldenFile
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	if f.Format != "flopspack-golden-1" {
		t.Fatalf("format %q", f.Format)
	}
	return f.Cases
}

type modelSpec struct {
	Kind              string
	PerSequence       float64 `json:"per_sequence"`
	PerDocument       float64 `json:"per_document"`
	Linear, Quadratic float64
	NumLayers         int64 `json:"num_layers"`
	HiddenSize        int64 `json:"hidden_size"`
	NumAttentionHeads int64 `json:"num_attention_heads"`
	NumKeyValueHeads  int64 `json:"num_key_value_heads"`
	HeadDim           int64 `json:"head_dim"`
	IntermediateSize  int64 `json:"intermediate_size"`
	VocabSize         int64 `json:"vocab_size"`
	GatedMLP          int   `json:"gated_mlp"`
	Causal, Recompute int
	AttentionSpan     int32 `json:"attention_span"`
	Terms             uint32
	Lengths           []int64
	Offsets           []uint64
	Seconds           []float64
}

func makeModel(t *testing.T, spec *modelSpec) *CostModel {
	t.Helper()
	if spec == nil {
		return nil
	}
	var m *CostModel
	var err error
	switch spec.Kind {
	case "tokens":
		m, err = NewTokensModel()
	case "polynomial":
		m, err = NewPolynomialModel(spec.PerSequence, spec.PerDocument, spec.Linear, spec.Quadratic)
	case "transformer":
		m, err = NewTransformerModel(TransformerConfig{
			NumLayers: spec.NumLayers, HiddenSize: spec.HiddenSize,
			NumAttentionHeads: spec.NumAttentionHeads, NumKeyValueHeads: spec.NumKeyValueHeads,
			HeadDim: spec.HeadDim, IntermediateSize: spec.IntermediateSize, VocabSize: spec.VocabSize,
			GatedMLP: spec.GatedMLP == 1, Causal: spec.Causal == 1, Recompute: spec.Recompute == 1,
			AttentionSpan: AttentionSpan(spec.AttentionSpan),
		})
	case "fit":
		m, _, err = FitCostModelCSR(spec.Lengths, spec.Offsets, spec.Seconds, FitTerm(spec.Terms))
	default:
		t.Fatalf("unknown model kind %q", spec.Kind)
	}
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func sameBits(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.IsNaN(want) && math.IsNaN(got) {
		return
	}
	if math.Float64bits(got) != math.Float64bits(want) {
		t.Errorf("%s: %v (%#x) vs %v (%#x)", what, got, math.Float64bits(got), want, math.Float64bits(want))
	}
}

func TestGoldenCostModels(t *testing.T) {
	cases := loadGolden(t, "cost_models.json")
	if len(cases) < 8 {
		t.Fatalf("%d cases", len(cases))
	}
	for _, raw := range cases {
		var c struct {
			Name             string
			Model            modelSpec
			SequenceOverhead float64            `json:"sequence_overhead"`
			IsAdditive       int                `json:"is_additive"`
			FitReport        map[string]float64 `json:"fit_report"`
			Queries          []struct {
				Lengths         []int64
				SequenceCost    float64   `json:"sequence_cost"`
				PaddedBatchCost float64   `json:"padded_batch_cost"`
				DocumentCosts   []float64 `json:"document_costs"`
			}
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatal(err)
		}
		m := makeModel(t, &c.Model)
		overhead, _ := m.SequenceOverhead()
		sameBits(t, c.Name+" overhead", overhead, c.SequenceOverhead)
		if add, _ := m.IsAdditive(); add != (c.IsAdditive == 1) {
			t.Errorf("%s: additive %v", c.Name, add)
		}
		if c.FitReport != nil {
			_, r, err := FitCostModelCSR(c.Model.Lengths, c.Model.Offsets, c.Model.Seconds, FitTerm(c.Model.Terms))
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]float64{"per_sequence": r.PerSequence, "per_document": r.PerDocument,
				"linear": r.Linear, "quadratic": r.Quadratic, "r_squared": r.RSquared,
				"rms_residual": r.RMSResidual, "num_samples": float64(r.NumSamples)}
			if len(got) != len(c.FitReport) {
				t.Errorf("%s: fit report fields %d vs %d", c.Name, len(got), len(c.FitReport))
			}
			for k, v := range c.FitReport {
				sameBits(t, c.Name+" "+k, got[k], v)
			}
		}
		for _, q := range c.Queries {
			seq, err := m.SequenceCost(q.Lengths)
			if err != nil {
				t.Fatal(err)
			}
			sameBits(t, c.Name+" sequence", seq, q.SequenceCost)
			padded, _ := m.PaddedBatchCost(q.Lengths)
			sameBits(t, c.Name+" padded", padded, q.PaddedBatchCost)
			per, _ := m.DocumentCosts(q.Lengths)
			for i := range per {
				sameBits(t, c.Name+" document", per[i], q.DocumentCosts[i])
			}
		}
		m.Close()
	}
}

type goldenPlan struct {
	Groups []struct {
		Items, Tokens  []int64
		Offsets        []int64
		RealTokens     int64   `json:"real_tokens"`
		ComputedTokens int64   `json:"computed_tokens"`
		Cost           float64 `json:"cost"`
		Slot           []int
	}
	Deferred, Dropped []int64
	Metrics           map[string]json.Number
}

func checkPlan(t *testing.T, where string, p *Plan, want *goldenPlan) {
	t.Helper()
	groups, err := p.Groups()
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != len(want.Groups) {
		t.Fatalf("%s: %d groups, want %d", where, len(groups), len(want.Groups))
	}
	for g, wg := range want.Groups {
		got := groups[g]
		if !reflect.DeepEqual(got.Items, wg.Items) || !reflect.DeepEqual(got.Tokens, wg.Tokens) ||
			!reflect.DeepEqual(got.Offsets, wg.Offsets) || got.RealTokens != wg.RealTokens || got.ComputedTokens != wg.ComputedTokens {
			t.Errorf("%s group %d: %+v, want %+v", where, g, got, wg)
		}
		sameBits(t, where+" cost", got.Cost, wg.Cost)
		if got.HasSlot != (wg.Slot != nil) || (got.HasSlot && (got.Rank != wg.Slot[0] || got.Slot != wg.Slot[1])) {
			t.Errorf("%s group %d slot %v %d %d, want %v", where, g, got.HasSlot, got.Rank, got.Slot, wg.Slot)
		}
	}
	deferred, _ := p.Deferred()
	dropped, _ := p.Dropped()
	if len(deferred) != len(want.Deferred) || len(dropped) != len(want.Dropped) ||
		(len(deferred) > 0 && !reflect.DeepEqual(deferred, want.Deferred)) ||
		(len(dropped) > 0 && !reflect.DeepEqual(dropped, want.Dropped)) {
		t.Errorf("%s: deferred %v dropped %v", where, deferred, dropped)
	}
	m, err := p.Metrics()
	if err != nil {
		t.Fatal(err)
	}
	v := reflect.ValueOf(m)
	if v.NumField() != len(want.Metrics) {
		t.Errorf("%s: %d metrics fields, file has %d", where, v.NumField(), len(want.Metrics))
	}
	for name, number := range want.Metrics {
		field := v.FieldByNameFunc(func(f string) bool { return fieldMatches(f, name) })
		if !field.IsValid() {
			t.Errorf("%s: no Go field for metric %s", where, name)
			continue
		}
		switch field.Kind() {
		case reflect.Float64:
			w, _ := number.Float64()
			sameBits(t, where+" "+name, field.Float(), w)
		case reflect.Int64, reflect.Int32:
			if w, _ := number.Int64(); field.Int() != w {
				t.Errorf("%s %s: %d vs %d", where, name, field.Int(), w)
			}
		case reflect.Uint64:
			if w, _ := number.Int64(); field.Uint() != uint64(w) {
				t.Errorf("%s %s: %d vs %d", where, name, field.Uint(), w)
			}
		}
	}
}

func TestGoldenStreamPacker(t *testing.T) {
	cases := loadGolden(t, "stream_packer.json")
	if len(cases) < 3 {
		t.Fatalf("%d cases", len(cases))
	}
	for _, raw := range cases {
		var c struct {
			Name    string
			Model   *modelSpec
			Options struct {
				Capacity int64
				Window   uint64
				Overflow int32
				Seed     uint64
			}
			Script []struct {
				Op      string
				Lengths []int64
				Expect  json.RawMessage
				Plan    *goldenPlan
			}
		}
		dec := json.NewDecoder(bytesReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&c); err != nil {
			t.Fatal(err)
		}
		model := makeModel(t, c.Model)
		p, err := NewStreamPacker(StreamOptions{Capacity: c.Options.Capacity, Window: c.Options.Window,
			Overflow: Overflow(c.Options.Overflow), Seed: c.Options.Seed}, model)
		if err != nil {
			t.Fatal(err)
		}
		model.Close() // the packer keeps its own reference
		for step, op := range c.Script {
			where := c.Name + " step " + op.Op + " " + itoa(step)
			switch op.Op {
			case "push":
				if err := p.Push(op.Lengths); err != nil {
					t.Fatal(err)
				}
			case "flush":
				if err := p.Flush(); err != nil {
					t.Fatal(err)
				}
			case "ready":
				var want int
				json.Unmarshal(op.Expect, &want)
				if got, _ := p.Ready(); got != want {
					t.Errorf("%s: ready %d want %d", where, got, want)
				}
			case "take":
				plan, err := p.Take()
				if err != nil {
					t.Fatal(err)
				}
				checkPlan(t, where, plan, op.Plan)
				plan.Close()
			case "totals":
				var want map[string]int64
				json.Unmarshal(op.Expect, &want)
				got, _ := p.Totals()
				v := reflect.ValueOf(got)
				for name, w := range want {
					f := v.FieldByNameFunc(func(n string) bool { return fieldMatches(n, name) })
					if !f.IsValid() || (f.Kind() == reflect.Int64 && f.Int() != w) ||
						(f.Kind() == reflect.Uint64 && f.Uint() != uint64(w)) {
						t.Errorf("%s: totals %s = %v, want %d", where, name, f, w)
					}
				}
			default:
				t.Fatalf("unknown op %q", op.Op)
			}
		}
		p.Close()
	}
}

func TestGoldenBuckets(t *testing.T) {
	cases := loadGolden(t, "buckets.json")
	if len(cases) < 6 {
		t.Fatalf("%d cases", len(cases))
	}
	for _, raw := range cases {
		var c struct {
			Name        string
			Op          string
			Lengths     []int64
			NumBuckets  int     `json:"num_buckets"`
			UpperBounds []int64 `json:"upper_bounds"`
			Padding     int64
			Model       *modelSpec
			Options     struct {
				BudgetKind        int32   `json:"budget_kind"`
				NumBuckets        uint32  `json:"num_buckets"`
				DropLast          int     `json:"drop_last"`
				UpperBounds       []int64 `json:"upper_bounds"`
				MaxPaddedTokens   int64   `json:"max_padded_tokens"`
				MaxBatchCost      float64 `json:"max_batch_cost"`
				NumRanks          uint64  `json:"num_ranks"`
				AccumulationSteps uint64  `json:"accumulation_steps"`
				Seed              uint64
			}
			StepsPerEpoch uint64 `json:"steps_per_epoch"`
			Epochs        []struct {
				Epoch           uint64
				TokenDistances  []float64 `json:"token_distances"`
				SampleDistances []float64 `json:"sample_distances"`
				Plan            *goldenPlan
			}
			Steps []struct {
				Epoch, Step uint64
				Plan        *goldenPlan
			}
		}
		dec := json.NewDecoder(bytesReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&c); err != nil {
			t.Fatal(err)
		}
		if c.Op == "optimize" {
			bounds, err := OptimizeBuckets(c.Lengths, c.NumBuckets)
			if err != nil || !reflect.DeepEqual(bounds, c.UpperBounds) {
				t.Errorf("%s: bounds %v err %v", c.Name, bounds, err)
			}
			if p, _ := BucketPadding(c.Lengths, bounds); p != c.Padding {
				t.Errorf("%s: padding %d", c.Name, p)
			}
			continue
		}
		o := c.Options
		model := makeModel(t, c.Model)
		s, err := NewBucketSampler(c.Lengths, BucketSamplerOptions{
			Budget: BucketBudget(o.BudgetKind), NumBuckets: o.NumBuckets, DropLast: o.DropLast == 1,
			UpperBounds: o.UpperBounds, MaxPaddedTokens: o.MaxPaddedTokens, MaxBatchCost: o.MaxBatchCost,
			NumRanks: o.NumRanks, AccumulationSteps: o.AccumulationSteps, Seed: o.Seed}, model)
		if err != nil {
			t.Fatal(err)
		}
		model.Close()
		if n, _ := s.StepsPerEpoch(); n != c.StepsPerEpoch {
			t.Errorf("%s: steps %d", c.Name, n)
		}
		if b, _ := s.UpperBounds(); !reflect.DeepEqual(b, c.UpperBounds) {
			t.Errorf("%s: upper bounds %v", c.Name, b)
		}
		for _, e := range c.Epochs {
			plan, err := s.Epoch(e.Epoch)
			if err != nil {
				t.Fatal(err)
			}
			checkPlan(t, c.Name+" epoch "+itoa(int(e.Epoch)), plan, e.Plan)
			tokens, samples, err := s.StepDiversity(plan)
			if err != nil || len(tokens) != len(e.TokenDistances) {
				t.Fatalf("%s: diversity %v", c.Name, err)
			}
			for i := range tokens {
				sameBits(t, c.Name+" token distance", tokens[i], e.TokenDistances[i])
				sameBits(t, c.Name+" sample distance", samples[i], e.SampleDistances[i])
			}
			plan.Close()
		}
		for _, st := range c.Steps {
			plan, err := s.Step(st.Epoch, st.Step)
			if err != nil {
				t.Fatal(err)
			}
			checkPlan(t, c.Name+" step "+itoa(int(st.Step)), plan, st.Plan)
			plan.Close()
		}
		s.Close()
	}
}

type goldenStepOptions struct {
	NumRanks               uint32 `json:"num_ranks"`
	MicrobatchesPerRank    uint32 `json:"microbatches_per_rank"`
	Algorithm              int32
	MaxTokensPerMicrobatch int64 `json:"max_tokens_per_microbatch"`
	Seed                   uint64
	Ordering               int32
	Overflow               int32
	Sync                   int32
	PipelineStages         uint32 `json:"pipeline_stages"`
	PipelineSchedule       int32  `json:"pipeline_schedule"`
	ContextParallelSize    uint32 `json:"context_parallel_size"`
	ContextParallelLayout  int32  `json:"context_parallel_layout"`
}

func (o goldenStepOptions) options() StepOptions {
	return StepOptions{NumRanks: o.NumRanks, MicrobatchesPerRank: o.MicrobatchesPerRank,
		Algorithm: StepAlgorithm(o.Algorithm), MaxTokensPerMicrobatch: o.MaxTokensPerMicrobatch,
		Seed: o.Seed, Ordering: SlotOrder(o.Ordering), Overflow: Overflow(o.Overflow),
		Sync: Sync(o.Sync), PipelineStages: o.PipelineStages,
		PipelineSchedule:    PipelineSchedule(o.PipelineSchedule),
		ContextParallelSize: o.ContextParallelSize, ContextParallelLayout: CpLayout(o.ContextParallelLayout)}
}

func TestGoldenStepPlanner(t *testing.T) {
	cases := loadGolden(t, "step_planner.json")
	if len(cases) < 8 {
		t.Fatalf("%d cases", len(cases))
	}
	for _, raw := range cases {
		var c struct {
			Name           string
			Op             string
			Model          *modelSpec
			Options        goldenStepOptions
			Lengths        []int64
			ExtraCosts     []float64 `json:"extra_costs"`
			Plan           *goldenPlan
			PlannerOptions struct {
				TokensPerStep      int64  `json:"tokens_per_step"`
				MaxDeferSteps      uint32 `json:"max_defer_steps"`
				OutlierMinTokens   int64  `json:"outlier_min_tokens"`
				MaxOutliersPerStep int64  `json:"max_outliers_per_step"`
			} `json:"planner_options"`
			Script []struct {
				Op      string
				Lengths []int64
				FirstID int64 `json:"first_id"`
				Expect  map[string]int64
				Plan    *goldenPlan
			}
		}
		dec := json.NewDecoder(bytesReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&c); err != nil {
			t.Fatal(err)
		}
		model := makeModel(t, c.Model)
		if c.Op == "plan_step" || c.Op == "plan_step_with_extra_costs" {
			if (c.Op == "plan_step") != (c.ExtraCosts == nil) {
				t.Fatalf("%s: op %s with extra_costs %v", c.Name, c.Op, c.ExtraCosts)
			}
			plan, err := PlanStepWithExtraCosts(c.Lengths, c.ExtraCosts, model, c.Options.options())
			if err != nil {
				t.Fatal(err)
			}
			checkPlan(t, c.Name, plan, c.Plan)
			plan.Close()
			model.Close()
			continue
		}
		po := c.PlannerOptions
		p, err := NewStepPlanner(model, c.Options.options(), StepPlannerOptions{MaxDeferSteps: po.MaxDeferSteps,
			TokensPerStep: po.TokensPerStep, OutlierMinTokens: po.OutlierMinTokens, MaxOutliersPerStep: po.MaxOutliersPerStep})
		if err != nil {
			t.Fatal(err)
		}
		model.Close() // the planner keeps its own reference
		for i, op := range c.Script {
			where := c.Name + " op " + itoa(i)
			switch op.Op {
			case "push":
				if first, err := p.Push(op.Lengths); err != nil || first != op.FirstID {
					t.Fatalf("%s: first %d err %v", where, first, err)
				}
			case "pending":
				got, _ := p.Pending()
				if int64(got.Documents) != op.Expect["documents"] || got.Tokens != op.Expect["tokens"] ||
					int64(got.Steps) != op.Expect["steps"] {
					t.Errorf("%s: pending %+v, want %v", where, got, op.Expect)
				}
			case "next":
				plan, err := p.Next()
				if err != nil {
					t.Fatal(err)
				}
				checkPlan(t, where, plan, op.Plan)
				plan.Close()
			default:
				t.Fatalf("unknown op %q", op.Op)
			}
		}
		p.Close()
	}
}

func TestGoldenPackAndBalance(t *testing.T) {
	cases := loadGolden(t, "pack_balance.json")
	if len(cases) < 10 {
		t.Fatalf("%d cases", len(cases))
	}
	for _, raw := range cases {
		var c struct {
			Name    string
			Op      string
			Model   *modelSpec
			Options struct {
				Algorithm         int32
				Capacity          int64
				Overflow          int32
				Seed              uint64
				NumGroups         int64 `json:"num_groups"`
				EqualCount        int   `json:"equal_count"`
				Refine            int
				MaxTokensPerGroup int64 `json:"max_tokens_per_group"`
			}
			Lengths []int64
			Costs   []float64
			Tokens  []int64
			Plan    *goldenPlan
		}
		dec := json.NewDecoder(bytesReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&c); err != nil {
			t.Fatal(err)
		}
		o := c.Options
		var plan *Plan
		var err error
		if c.Op == "pack" {
			model := makeModel(t, c.Model)
			plan, err = Pack(c.Lengths, PackOptions{Algorithm: PackAlgorithm(o.Algorithm), Capacity: o.Capacity,
				Overflow: Overflow(o.Overflow), Seed: o.Seed}, model)
			model.Close()
		} else {
			opts := DefaultBalanceOptions(o.NumGroups)
			opts.Algorithm, opts.EqualCount, opts.Refine = BalanceAlgorithm(o.Algorithm), o.EqualCount == 1, o.Refine == 1
			opts.MaxTokensPerGroup, opts.Seed = o.MaxTokensPerGroup, o.Seed
			var tokens []int64
			if len(c.Tokens) > 0 {
				tokens = c.Tokens
			}
			plan, err = Balance(c.Costs, tokens, opts)
		}
		if err != nil {
			t.Fatal(err)
		}
		checkPlan(t, c.Name, plan, c.Plan)
		plan.Close()
	}
}

// goldenFloat reads a golden double: a number, or "nan" for a figure that
// does not apply.
type goldenFloat float64

func (f *goldenFloat) UnmarshalJSON(b []byte) error {
	if string(b) == `"nan"` {
		*f = goldenFloat(math.NaN())
		return nil
	}
	var v float64
	err := json.Unmarshal(b, &v)
	*f = goldenFloat(v)
	return err
}

// checkFields compares a Go mirror struct with a golden object by name.
func checkFields(t *testing.T, where string, got interface{}, want map[string]goldenFloat) {
	t.Helper()
	v := reflect.ValueOf(got)
	for name, w := range want {
		f := v.FieldByNameFunc(func(n string) bool { return fieldMatches(n, name) })
		if !f.IsValid() {
			t.Errorf("%s: no field %s", where, name)
			continue
		}
		switch f.Kind() {
		case reflect.Float64:
			sameBits(t, where+" "+name, f.Float(), float64(w))
		case reflect.Int64, reflect.Int32:
			if float64(f.Int()) != float64(w) {
				t.Errorf("%s %s: %d vs %v", where, name, f.Int(), w)
			}
		case reflect.Uint64:
			if float64(f.Uint()) != float64(w) {
				t.Errorf("%s %s: %d vs %v", where, name, f.Uint(), w)
			}
		}
	}
}

func TestGoldenStatsAndSimulate(t *testing.T) {
	cases := loadGolden(t, "stats_simulate.json")
	if len(cases) < 5 {
		t.Fatalf("%d cases", len(cases))
	}
	for _, raw := range cases {
		var c struct {
			Name       string
			Op         string
			Model      *modelSpec
			Lengths    []int64
			Other      []int64
			Summary    map[string]goldenFloat
			Levels     []float64
			Quantiles  [][]float64
			CdfAt      []int64 `json:"cdf_at"`
			Cdf        [][]float64
			Histograms []struct {
				Binning, Weighting, Normalized int32
				UpperEdges                     []int64 `json:"upper_edges"`
				Weights                        []float64
			}
			Tails       []map[string]goldenFloat
			Draws       []uint64
			ExpectedMax []float64 `json:"expected_max"`
			Ks          [][]float64
			Comparison  map[string]json.RawMessage
			Entries     struct {
				Lengths []int64
				Counts  []uint64
			}
			Options struct {
				Policy                 int32
				NumRanks               uint64 `json:"num_ranks"`
				MicrobatchesPerRank    uint64 `json:"microbatches_per_rank"`
				TokensPerMicrobatch    int64  `json:"tokens_per_microbatch"`
				MaxTokensPerMicrobatch int64  `json:"max_tokens_per_microbatch"`
				NumSteps               uint64 `json:"num_steps"`
				Seed                   uint64
			}
			Series        [][]float64
			PiecesSummary map[string]goldenFloat `json:"pieces_summary"`
			Sweep         struct {
				RankCounts          []uint64      `json:"rank_counts"`
				SampledEfficiency   []goldenFloat `json:"sampled_efficiency"`
				PredictedEfficiency []goldenFloat `json:"predicted_efficiency"`
				RelativeThroughput  []goldenFloat `json:"relative_throughput"`
			}
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatal(err)
		}
		model := makeModel(t, c.Model)
		if c.Op == "stats" {
			s, err := NewStats(c.Lengths, model)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := NewStats(c.Other, model)
			sum, _ := s.Summary()
			checkFields(t, c.Name+" summary", sum, c.Summary)
			for i, level := range c.Levels {
				for w, want := range c.Quantiles[i] {
					got, _ := s.Quantile(level, Weighting(w))
					sameBits(t, c.Name+" quantile", got, want)
				}
			}
			for i, at := range c.CdfAt {
				for w, want := range c.Cdf[i] {
					got, _ := s.CDF(at, Weighting(w))
					sameBits(t, c.Name+" cdf", got, want)
				}
			}
			for _, h := range c.Histograms {
				edges, weights, err := s.Histogram(HistogramOptions{Binning: Binning(h.Binning),
					Weighting: Weighting(h.Weighting), Normalized: h.Normalized == 1})
				if err != nil || !reflect.DeepEqual(edges, h.UpperEdges) {
					t.Fatalf("%s histogram edges %v", c.Name, err)
				}
				for i := range weights {
					sameBits(t, c.Name+" histogram", weights[i], h.Weights[i])
				}
			}
			for _, want := range c.Tails {
				tail, _ := s.Tail(int64(want["threshold"]))
				delete(want, "threshold")
				checkFields(t, c.Name+" tail", tail, want)
			}
			for i, draws := range c.Draws {
				got, _ := s.ExpectedMax(draws)
				sameBits(t, c.Name+" expected max", got, c.ExpectedMax[i])
			}
			for w, want := range c.Ks {
				d, length, _ := s.KSDistance(b, Weighting(w))
				sameBits(t, c.Name+" ks", d, want[0])
				if float64(length) != want[1] {
					t.Errorf("%s ks length %d vs %v", c.Name, length, want[1])
				}
			}
			cmp, _ := s.Compare(b)
			scalars := map[string]goldenFloat{}
			for k, v := range c.Comparison {
				var f goldenFloat
				if json.Unmarshal(v, &f) == nil {
					scalars[k] = f
				}
			}
			checkFields(t, c.Name+" comparison", cmp, scalars)
			var levels []float64
			var qa, qb []int64
			json.Unmarshal(c.Comparison["levels"], &levels)
			json.Unmarshal(c.Comparison["quantiles_a"], &qa)
			json.Unmarshal(c.Comparison["quantiles_b"], &qb)
			if !reflect.DeepEqual(cmp.Levels, levels) || !reflect.DeepEqual(cmp.QuantilesA, qa) ||
				!reflect.DeepEqual(cmp.QuantilesB, qb) {
				t.Errorf("%s comparison arrays", c.Name)
			}
			l, n, _ := s.Entries()
			if !reflect.DeepEqual(l, c.Entries.Lengths) || !reflect.DeepEqual(n, c.Entries.Counts) {
				t.Errorf("%s entries", c.Name)
			}
			s.Close()
			b.Close()
			model.Close()
			continue
		}
		o := c.Options
		opts := SimulateOptions{Policy: SimPolicy(o.Policy), NumRanks: o.NumRanks, MicrobatchesPerRank: o.MicrobatchesPerRank,
			TokensPerMicrobatch: o.TokensPerMicrobatch, MaxTokensPerMicrobatch: o.MaxTokensPerMicrobatch,
			NumSteps: o.NumSteps, Seed: o.Seed, RecordSteps: true}
		sim, err := Simulate(c.Lengths, model, opts)
		if err != nil {
			t.Fatal(err)
		}
		sum, _ := sim.Summary()
		checkFields(t, c.Name+" summary", sum, c.Summary)
		for kind, want := range c.Series {
			got, _ := sim.Series(SimSeries(kind))
			if len(got) != len(want) {
				t.Fatalf("%s series %d", c.Name, kind)
			}
			for i := range got {
				sameBits(t, c.Name+" series", got[i], want[i])
			}
		}
		pieces, _ := sim.Pieces()
		ps, _ := pieces.Summary()
		checkFields(t, c.Name+" pieces", ps, c.PiecesSummary)
		sweep, err := SimulateSweep(c.Lengths, model, opts, c.Sweep.RankCounts)
		if err != nil {
			t.Fatal(err)
		}
		for i := range sweep.SampledEfficiency {
			sameBits(t, c.Name+" sweep sampled", sweep.SampledEfficiency[i], float64(c.Sweep.SampledEfficiency[i]))
			sameBits(t, c.Name+" sweep predicted", sweep.PredictedEfficiency[i], float64(c.Sweep.PredictedEfficiency[i]))
			sameBits(t, c.Name+" sweep relative", sweep.RelativeThroughput[i], float64(c.Sweep.RelativeThroughput[i]))
		}
		sim.Close()
		model.Close()
	}
}

func TestGoldenSeeds(t *testing.T) {
	cases := loadGolden(t, "seeds.json")
	if len(cases) < 25 {
		t.Fatalf("%d cases", len(cases))
	}
	for _, raw := range cases {
		var c struct {
			Seed    uint64 `json:"seed,string"`
			Stream  uint64 `json:"stream,string"`
			Derived uint64 `json:"derived,string"`
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatal(err)
		}
		if got := DeriveSeed(c.Seed, c.Stream); got != c.Derived {
			t.Errorf("DeriveSeed(%d, %d) = %d, want %d", c.Seed, c.Stream, got, c.Derived)
		}
	}
}

func TestGoldenContextParallel(t *testing.T) {
	cases := loadGolden(t, "context_parallel.json")
	if len(cases) < 4 {
		t.Fatalf("%d cases", len(cases))
	}
	for _, raw := range cases {
		var c struct {
			Name                string
			Op                  string
			Model               *modelSpec
			Options             goldenStepOptions
			Lengths             []int64
			ContextParallelSize uint64 `json:"context_parallel_size"`
			Layout              int32
			Groups              []struct {
				Layout  int32
				Balance float64
				Ranks   []struct {
					Items, Offsets, Lengths []int64
					Cost                    float64
					KvTokens                int64 `json:"kv_tokens"`
				}
			}
			Metrics map[string]goldenFloat
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatal(err)
		}
		if c.Op != "shard_context_parallel" {
			t.Fatalf("unknown op %q", c.Op)
		}
		model := makeModel(t, c.Model)
		plan, err := PlanStep(c.Lengths, model, c.Options.options())
		if err != nil {
			t.Fatal(err)
		}
		shard, err := ShardContextParallel(plan, model, c.ContextParallelSize, CpLayout(c.Layout))
		if err != nil {
			t.Fatal(err)
		}
		if shard.NumGroups() != len(c.Groups) {
			t.Fatalf("%s: %d groups, want %d", c.Name, shard.NumGroups(), len(c.Groups))
		}
		for g, want := range c.Groups {
			layout, balance, err := shard.Layout(g)
			if err != nil || int32(layout) != want.Layout {
				t.Errorf("%s group %d: layout %d err %v", c.Name, g, layout, err)
			}
			sameBits(t, c.Name+" balance", balance, want.Balance)
			for r, rank := range want.Ranks {
				chunks, err := shard.Chunks(g, r)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(chunks.Items, rank.Items) || !reflect.DeepEqual(chunks.Offsets, rank.Offsets) ||
					!reflect.DeepEqual(chunks.Lengths, rank.Lengths) {
					t.Errorf("%s group %d rank %d: chunks %+v", c.Name, g, r, chunks)
				}
				cost, kv, err := shard.RankCost(g, r)
				if err != nil || kv != rank.KvTokens {
					t.Errorf("%s group %d rank %d: kv %d err %v", c.Name, g, r, kv, err)
				}
				sameBits(t, c.Name+" cost", cost, rank.Cost)
			}
		}
		m, err := shard.Metrics()
		if err != nil {
			t.Fatal(err)
		}
		checkFields(t, c.Name+" metrics", m, c.Metrics)
		shard.Close()
		plan.Close()
		model.Close()
	}
}
