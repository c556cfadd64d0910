package flopspack

import (
	"errors"
	"math"
	"sort"
	"strings"
	"testing"
)

func TestStatsAgainstDirectComputation(t *testing.T) {
	lengths := randomLengths(3000, 9, 20000)
	s, err := NewStats(lengths, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sum, _ := s.Summary()
	var tokens int64
	for _, l := range lengths {
		tokens += l
	}
	sorted := append([]int64(nil), lengths...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	if sum.Count != 3000 || sum.Tokens != tokens || sum.Min != sorted[0] || sum.Max != sorted[2999] {
		t.Fatalf("summary %+v", sum)
	}
	for _, q := range []float64{0.1, 0.5, 0.9, 0.99} {
		want := sorted[int(math.Ceil(q*3000))-1]
		if got, _ := s.Quantile(q, WeightCount); got != float64(want) {
			t.Fatalf("q%.2f: %v want %d", q, got, want)
		}
	}
	tail, _ := s.Tail(sum.P99)
	if tail.Documents != uint64(3000-sort.Search(3000, func(i int) bool { return sorted[i] > sum.P99 })) {
		t.Fatalf("tail %+v", tail)
	}
	l, c, _ := s.Entries()
	again, err := NewStatsFromHistogram(l, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s2, _ := again.Summary(); s2 != sum {
		t.Fatal("histogram round trip")
	}
	a, _ := NewStats(lengths[:1000], nil)
	b, _ := NewStats(lengths[1000:], nil)
	merged, _ := a.Merge(b)
	if m, _ := merged.Summary(); m != sum {
		t.Fatal("merge")
	}
	cmp, err := a.Compare(b)
	if err != nil || len(cmp.Levels) != 6 || cmp.Levels[0] != 0.5 {
		t.Fatalf("compare %+v %v", cmp, err)
	}
	if _, err := NewStats([]int64{5, 0}, nil); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("bad length: %v", err)
	}
	s.Close()
	if _, err := s.Summary(); !errors.Is(err, ErrClosed) {
		t.Fatal(err)
	}
}

func TestSimulateAndSweep(t *testing.T) {
	model := quadraticModel(t)
	lengths := randomLengths(2000, 4, 8000)
	opts := DefaultSimulateOptions()
	opts.NumRanks, opts.NumSteps, opts.RecordSteps, opts.Seed = 16, 8, true, 3
	sim, err := Simulate(lengths, model, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	sum, _ := sim.Summary()
	if sum.NumSteps != 8 || sum.NumRanks != 16 || sum.RelativeThroughput <= 0 || sum.RelativeThroughput > 1 {
		t.Fatalf("summary %+v", sum)
	}
	series, err := sim.Series(SeriesBalanceEfficiency)
	if err != nil || len(series) != 8 {
		t.Fatalf("series %v %v", series, err)
	}
	var mean float64
	for _, v := range series {
		mean += v / 8
	}
	if math.Abs(mean-sum.MeanBalanceEfficiency) > 1e-12 {
		t.Fatalf("mean %v vs %v", mean, sum.MeanBalanceEfficiency)
	}
	sweep, err := SimulateSweep(lengths, model, opts, []uint64{4, 32})
	if err != nil || len(sweep.SampledEfficiency) != 2 {
		t.Fatal(err)
	}
	bad := opts
	bad.NumRanks = 0
	if _, err := Simulate(lengths, model, bad); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("zero ranks: %v", err)
	}
}

func TestSimulateTopology(t *testing.T) {
	model, err := NewPolynomialModel(0, 0, 1, 1e-4)
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	lengths := randomLengths(4000, 4, 3000)
	run := func(sync Sync, stages uint32) (SimulationSummary, []float64) {
		opts := DefaultSimulateOptions()
		opts.NumRanks, opts.MicrobatchesPerRank, opts.TokensPerMicrobatch = 16, 4, 2048
		opts.NumSteps, opts.RecordSteps, opts.Seed = 10, true, 5
		opts.Sync, opts.PipelineStages = sync, stages
		sim, err := Simulate(lengths, model, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer sim.Close()
		sum, _ := sim.Summary()
		times, _ := sim.Series(SeriesStepTime)
		return sum, times
	}
	step, stepTimes := run(SyncStep, 0)
	micro, microTimes := run(SyncMicrobatch, 0)
	pipe, _ := run(SyncStep, 4)
	if step.Sync != SyncStep || micro.Sync != SyncMicrobatch || pipe.PipelineStages != 4 ||
		pipe.PipelineSchedule != Pipeline1F1B {
		t.Fatalf("models %+v %+v %+v", step, micro, pipe)
	}
	if step.MeanSyncEfficiency != step.MeanBalanceEfficiency ||
		micro.MeanBalanceEfficiency != step.MeanBalanceEfficiency {
		t.Fatalf("efficiencies %+v %+v", step, micro)
	}
	for i := range stepTimes {
		if microTimes[i] < stepTimes[i] {
			t.Fatalf("step %d: sum of slot maxima %v below the slowest rank %v", i, microTimes[i], stepTimes[i])
		}
	}
	if micro.RelativeThroughput >= step.RelativeThroughput || pipe.MeanSyncEfficiency > 4.0/7+1e-12 ||
		!math.IsNaN(pipe.PredictedEfficiency) {
		t.Fatalf("throughputs %+v %+v %+v", step, micro, pipe)
	}
	bad := DefaultSimulateOptions()
	bad.PipelineStages = 1025
	if _, err := Simulate(lengths, model, bad); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("1025 stages: %v", err)
	}
	bad = DefaultSimulateOptions()
	bad.Sync = 9
	if _, err := Simulate(lengths, model, bad); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("sync 9: %v", err)
	}
}

// 2,700,000 = 329 x 8192 + 4832: as trained at 8192 the document costs its
// 330 pieces (document cost 1 + 2l + 0.01l^2).
func TestStatsCostCapacityCostsPieces(t *testing.T) {
	model, err := NewPolynomialModel(5, 1, 2, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	doc := func(n float64) float64 { return 1 + 2*n + 0.01*n*n }
	lengths := []int64{2700000, 100, 8192}
	trained, err := NewStatsWithOptions(lengths, nil, model, StatsOptions{CostCapacity: 8192})
	if err != nil {
		t.Fatal(err)
	}
	defer trained.Close()
	whole, _ := NewStats(lengths, model)
	defer whole.Close()
	pieces := 329*doc(8192) + doc(4832)
	ts, _ := trained.Summary()
	ws, _ := whole.Summary()
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Abs(b) }
	if !near(ts.MaxCost, pieces) || !near(ts.TotalCost, pieces+doc(100)+doc(8192)) ||
		!near(ws.MaxCost, doc(2700000)) || ts.Tokens != ws.Tokens {
		t.Fatalf("trained %+v whole %+v", ts, ws)
	}
	h, err := NewStatsWithOptions([]int64{2700000, 100}, []uint64{2, 3}, model, StatsOptions{CostCapacity: 8192})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if hs, _ := h.Summary(); !near(hs.TotalCost, 2*pieces+3*doc(100)) {
		t.Fatalf("histogram %+v", hs)
	}
	if _, err := NewStatsWithOptions(lengths, nil, model, StatsOptions{CostCapacity: -1}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("negative capacity: %v", err)
	}
}

func TestSimulateContextParallel(t *testing.T) {
	model, err := NewPolynomialModel(0, 0, 1, 1e-4)
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	lengths := randomLengths(4000, 4, 30000)
	run := func(cp uint32, layout CpLayout) SimulationSummary {
		opts := DefaultSimulateOptions()
		opts.Policy, opts.NumRanks, opts.TokensPerMicrobatch = SimPlannerDocuments, 16, 4096
		opts.NumSteps, opts.Seed = 10, 5
		opts.ContextParallelSize, opts.ContextParallelLayout = cp, layout
		sim, err := Simulate(lengths, model, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer sim.Close()
		sum, _ := sim.Summary()
		return sum
	}
	if d := DefaultSimulateOptions(); d.ContextParallelSize != 0 || d.ContextParallelLayout != CpDocumentHeadTail {
		t.Fatalf("defaults %+v", d)
	}
	none, one := run(0, CpDocumentHeadTail), run(1, CpSequenceHeadTail)
	if one.RelativeThroughput != none.RelativeThroughput || one.MeanStepTime != none.MeanStepTime {
		t.Fatalf("CP 1 is not no CP: %+v %+v", one, none)
	}
	seq, doc := run(4, CpSequenceHeadTail), run(4, CpDocumentHeadTail)
	if doc.RealTokens <= 3*none.RealTokens || doc.RelativeThroughput < seq.RelativeThroughput {
		t.Fatalf("CP 4: %+v %+v", seq, doc)
	}
	bad := DefaultSimulateOptions()
	bad.ContextParallelSize = 65537
	if _, err := Simulate(lengths, model, bad); !errors.Is(err, ErrInvalidArgument) ||
		!strings.Contains(err.Error(), "context_parallel_size = 65537") {
		t.Fatalf("CP 65537: %v", err)
	}
}
