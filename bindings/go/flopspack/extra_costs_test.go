package flopspack

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestPlanStepWithExtraCostsNilIsPlanStep(t *testing.T) {
	model := quadraticModel(t)
	lengths := randomLengths(120, 5, 3000)
	opts := DefaultStepOptions()
	opts.NumRanks, opts.MaxTokensPerMicrobatch = 4, 2048
	a, err := PlanStep(lengths, model, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := PlanStepWithExtraCosts(lengths, nil, model, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ga, _ := a.Groups()
	gb, _ := b.Groups()
	if !reflect.DeepEqual(ga, gb) {
		t.Fatal("nil extra costs changed the plan")
	}
}

func TestPlanStepWithExtraCostsHugeExtraCostEndsAlone(t *testing.T) {
	model, err := NewTokensModel()
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	opts := DefaultStepOptions()
	opts.NumRanks, opts.MicrobatchesPerRank, opts.MaxTokensPerMicrobatch = 2, 1, 4096
	plan, err := PlanStepWithExtraCosts([]int64{100, 100, 100, 100, 10, 100},
		[]float64{0, 0, 0, 0, 1e6, 0}, model, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer plan.Close()
	groups, _ := plan.Groups()
	alone := false
	for _, g := range groups {
		if reflect.DeepEqual(g.Items, []int64{4}) {
			alone = true
			if g.Cost != 10+1e6 {
				t.Errorf("cost %v, want %v", g.Cost, 10+1e6)
			}
		}
	}
	if !alone {
		t.Errorf("document 4 shares a microbatch: %+v", groups)
	}
}

func TestPlanStepWithExtraCostsBadInput(t *testing.T) {
	model, err := NewTokensModel()
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	opts := DefaultStepOptions()
	opts.NumRanks, opts.MicrobatchesPerRank, opts.MaxTokensPerMicrobatch = 2, 1, 64
	for _, row := range []struct {
		extra    []float64
		target   error
		fragment string
	}{
		{[]float64{0, -1, 0}, ErrInvalidArgument, "extra_costs[1] = -1"},
		{[]float64{0, 0, math.NaN()}, ErrInvalidArgument, "extra_costs[2] = nan"},
		{[]float64{math.Inf(1), 0, 0}, ErrInvalidArgument, "extra_costs[0] = inf"},
		{[]float64{1e308, 1e308, 0}, ErrOutOfRange, "extra_costs"},
		{[]float64{0, 0}, ErrInvalidArgument, "extra_costs has 2 entries for 3 lengths"},
		{[]float64{}, ErrInvalidArgument, "extra_costs has 0 entries for 3 lengths"},
	} {
		plan, err := PlanStepWithExtraCosts([]int64{10, 20, 30}, row.extra, model, opts)
		if plan != nil || !errors.Is(err, row.target) || !strings.Contains(err.Error(), row.fragment) {
			t.Errorf("%v: got %v, want %v containing %q", row.extra, err, row.target, row.fragment)
		}
	}
}

func TestMultimodalCosts(t *testing.T) {
	cfg := DefaultTransformerConfig()
	cfg.NumLayers, cfg.HiddenSize, cfg.NumAttentionHeads, cfg.NumKeyValueHeads = 24, 1024, 16, 16
	cfg.IntermediateSize, cfg.Causal = 4096, false
	vit, err := NewTransformerModel(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer vit.Close()
	tokens, extra, err := MultimodalCosts(vit, []int64{1500, 200, 0}, []int64{0, 3, 1}, []int64{0, 576, 256})
	if err != nil {
		t.Fatal(err)
	}
	d := 1024.0
	image := func(p float64) float64 { return 3 * (24*24*d*d*p + 24*4*d*p*p) }
	if !reflect.DeepEqual(tokens, []int64{1500, 200 + 3*576, 256}) {
		t.Errorf("tokens %v", tokens)
	}
	if extra[0] != 0 || math.Abs(extra[1]-3*image(576)) > 1e-12*extra[1] || math.Abs(extra[2]-image(256)) > 1e-12*extra[2] {
		t.Errorf("extra %v", extra)
	}
	if _, _, err := MultimodalCosts(vit, []int64{5, 5}, []int64{0, 2}, []int64{0, 0}); !errors.Is(err, ErrInvalidArgument) ||
		!strings.Contains(err.Error(), "document 1: multimodal document") {
		t.Errorf("got %v", err)
	}
}

func TestPackWithExtraCostsNilAndZerosArePack(t *testing.T) {
	model := quadraticModel(t)
	lengths := randomLengths(120, 5, 3000)
	opts := DefaultPackOptions(1024)
	opts.Overflow = OverflowSplit
	a, err := Pack(lengths, opts, model)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ga, _ := a.Groups()
	for _, extra := range [][]float64{nil, make([]float64, len(lengths))} {
		b, err := PackWithExtraCosts(lengths, extra, opts, model)
		if err != nil {
			t.Fatal(err)
		}
		gb, _ := b.Groups()
		b.Close()
		if !reflect.DeepEqual(ga, gb) {
			t.Fatalf("extra costs %v changed the plan", extra == nil)
		}
	}
}

func TestPackWithExtraCostsByHandAndBadInput(t *testing.T) {
	opts := DefaultPackOptions(100)
	opts.Algorithm = PackNextFit
	plan, err := PackWithExtraCosts([]int64{60, 40, 100, 30}, []float64{1.5, 0, 1000, 0.25}, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	groups, _ := plan.Groups()
	plan.Close()
	var costs []float64
	for _, g := range groups {
		costs = append(costs, g.Cost)
	}
	if !reflect.DeepEqual(costs, []float64{101.5, 1100, 30.25}) {
		t.Fatalf("costs %v, want [101.5 1100 30.25]", costs)
	}
	for _, row := range []struct {
		extra    []float64
		target   error
		fragment string
	}{
		{[]float64{0, -1, 0}, ErrInvalidArgument, "extra_costs[1] = -1"},
		{[]float64{0, 0, math.NaN()}, ErrInvalidArgument, "extra_costs[2] = nan"},
		{[]float64{1e308, 1e308, 0}, ErrOutOfRange, "extra_costs"},
		{[]float64{0, 0}, ErrInvalidArgument, "extra_costs has 2 entries for 3 lengths"},
	} {
		plan, err := PackWithExtraCosts([]int64{10, 20, 30}, row.extra, DefaultPackOptions(64), nil)
		if plan != nil || !errors.Is(err, row.target) || !strings.Contains(err.Error(), row.fragment) {
			t.Errorf("%v: got %v, want %v containing %q", row.extra, err, row.target, row.fragment)
		}
	}
}

func plannerStepOptions() StepOptions {
	opts := DefaultStepOptions()
	opts.NumRanks, opts.MicrobatchesPerRank, opts.MaxTokensPerMicrobatch = 4, 4, 1024
	return opts
}

// One step of documents pushed with extra costs (some 0, and mixed pushes)
// is PlanStepWithExtraCosts's plan of the same documents; nil is Push.
func TestStepPlannerPushWithExtraCostsIsPlanStepWithExtraCosts(t *testing.T) {
	model := quadraticModel(t)
	opts := plannerStepOptions()
	for seed := int64(1); seed <= 3; seed++ {
		lengths := randomLengths(30, seed, 500) // one step (4 x 4 x 1024) holds them
		extra := make([]float64, len(lengths))
		for i := range extra {
			if i%4 != 0 {
				extra[i] = float64(1000 + 313*i)
			}
		}
		planner, err := NewStepPlanner(model, opts, DefaultStepPlannerOptions())
		if err != nil {
			t.Fatal(err)
		}
		// Documents 0-9 without, 10-19 with, 20-29 nil: zeros filled in.
		want := append([]float64(nil), extra...)
		for i := range want {
			if i < 10 || i >= 20 {
				want[i] = 0
			}
		}
		if first, err := planner.Push(lengths[:10]); err != nil || first != 0 {
			t.Fatal(first, err)
		}
		if first, err := planner.PushWithExtraCosts(lengths[10:20], extra[10:20]); err != nil || first != 10 {
			t.Fatal(first, err)
		}
		if first, err := planner.PushWithExtraCosts(lengths[20:], nil); err != nil || first != 20 {
			t.Fatal(first, err)
		}
		stepped, err := planner.Next()
		if err != nil {
			t.Fatal(err)
		}
		direct, err := PlanStepWithExtraCosts(lengths, want, model, opts)
		if err != nil {
			t.Fatal(err)
		}
		samePlan(t, stepped, direct) // step_context_test.go: groups, deferred, metrics
		stepped.Close()
		direct.Close()
		planner.Close()
	}
}

func TestStepPlannerPushWithExtraCostsBadInputChangesNothing(t *testing.T) {
	model := quadraticModel(t)
	planner, err := NewStepPlanner(model, plannerStepOptions(), DefaultStepPlannerOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer planner.Close()
	if _, err := planner.PushWithExtraCosts([]int64{40, 50}, []float64{2.5, 0}); err != nil {
		t.Fatal(err)
	}
	before, _ := planner.Save()
	for _, extra := range [][]float64{{0, -1, 0}, {0, 0, math.NaN()}, {math.Inf(1), 0, 0},
		{1e308, 1e308, 0}, {0, 0}, {}} {
		_, want := PlanStepWithExtraCosts([]int64{10, 20, 30}, extra, model, plannerStepOptions())
		_, got := planner.PushWithExtraCosts([]int64{10, 20, 30}, extra)
		if want == nil || got == nil || got.Error() != want.Error() {
			t.Errorf("%v: got %v, want %v", extra, got, want)
		}
		if after, _ := planner.Save(); !reflect.DeepEqual(after, before) {
			t.Errorf("%v: a rejected push changed the planner", extra)
		}
	}
}

func TestStepPlannerSaveRestoreKeepsExtraCosts(t *testing.T) {
	model := quadraticModel(t)
	opts := plannerStepOptions()
	opts.MicrobatchesPerRank = 2
	po := DefaultStepPlannerOptions()
	po.TokensPerStep, po.OutlierMinTokens, po.MaxOutliersPerStep = 7000, 900, 1
	a, err := NewStepPlanner(model, opts, po)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	lengths := randomLengths(240, 9, 1024)
	extra := make([]float64, len(lengths))
	for i := range extra {
		if i%3 != 0 {
			extra[i] = 5000 + 37*float64(i)
		}
	}
	if _, err := a.PushWithExtraCosts(lengths[:120], extra[:120]); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		p, err := a.Next()
		if err != nil {
			t.Fatal(err)
		}
		p.Close()
	}
	state, _ := a.Save()
	b, err := RestoreStepPlanner(state, model)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if again, _ := b.Save(); !reflect.DeepEqual(again, state) {
		t.Fatal("a restored planner saves other bytes")
	}
	for _, p := range []*StepPlanner{a, b} {
		if _, err := p.Push(lengths[120:180]); err != nil {
			t.Fatal(err)
		}
		if _, err := p.PushWithExtraCosts(lengths[180:], extra[180:]); err != nil {
			t.Fatal(err)
		}
	}
	for step := 0; step < 30; step++ { // ~17 steps drain the queue
		pa, err := a.Next()
		if err != nil {
			t.Fatal(err)
		}
		pb, err := b.Next()
		if err != nil {
			t.Fatal(err)
		}
		samePlan(t, pa, pb)
		pa.Close()
		pb.Close()
	}
	if pending, _ := a.Pending(); pending.Documents != 0 {
		t.Errorf("%d documents left", pending.Documents)
	}
}

func TestSimulateWithExtraCostsZerosArePlainAndByHand(t *testing.T) {
	model, err := NewTokensModel()
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	lengths := make([]int64, 3000)
	for i := range lengths {
		lengths[i] = 1 + int64(i*7919)%2500
	}
	zeros := make([]float64, len(lengths))
	for policy := SimRandom; policy <= SimPlannerSequences; policy++ {
		opts := DefaultSimulateOptions()
		opts.Policy, opts.NumRanks, opts.NumSteps, opts.RecordSteps = policy, 8, 5, true
		opts.TokensPerMicrobatch = 4096
		if policy >= SimPlannerDocuments {
			opts.MaxTokensPerMicrobatch = 5000
		}
		a, err := Simulate(lengths, model, opts)
		if err != nil {
			t.Fatal(err)
		}
		b, err := SimulateWithExtraCosts(lengths, zeros, model, opts)
		if err != nil {
			t.Fatal(err)
		}
		sa, _ := a.Series(SeriesStepTime)
		sb, _ := b.Series(SeriesStepTime)
		if !reflect.DeepEqual(sa, sb) {
			t.Errorf("policy %d: step times %v != %v", policy, sa, sb)
		}
		a.Close()
		b.Close()
	}
	// One rank, token cost: 3 + 5 tokens plus extra costs 10 + 100.
	opts := DefaultSimulateOptions()
	opts.NumRanks, opts.TokensPerMicrobatch, opts.NumSteps, opts.RecordSteps = 1, 8, 3, true
	s, err := SimulateWithExtraCosts([]int64{3, 5}, []float64{10, 100}, model, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	times, err := s.Series(SeriesStepTime)
	if err != nil || !reflect.DeepEqual(times, []float64{118, 118, 118}) {
		t.Errorf("step times %v, %v", times, err)
	}
	// The sweep: one image-heavy document among equal ones.
	equal := make([]int64, 64)
	heavy := make([]float64, 64)
	for i := range equal {
		equal[i] = 128
	}
	heavy[5] = 1e4
	opts = DefaultSimulateOptions()
	opts.Policy, opts.TokensPerMicrobatch, opts.NumSteps = SimTokenBalanced, 1024, 4
	plain, err := SimulateSweepWithExtraCosts(equal, nil, model, opts, []uint64{2, 8})
	if err != nil {
		t.Fatal(err)
	}
	with, err := SimulateSweepWithExtraCosts(equal, heavy, model, opts, []uint64{2, 8})
	if err != nil {
		t.Fatal(err)
	}
	for i := range plain.SampledEfficiency {
		if plain.SampledEfficiency[i] != 1 || !(with.SampledEfficiency[i] < 0.9) {
			t.Errorf("count %d: plain %v, with %v", i, plain.SampledEfficiency[i], with.SampledEfficiency[i])
		}
	}
}

func TestSimulateWithExtraCostsBadInput(t *testing.T) {
	model, err := NewTokensModel()
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	opts := DefaultSimulateOptions()
	opts.NumRanks, opts.NumSteps = 2, 1
	for _, row := range []struct {
		extra    []float64
		target   error
		fragment string
	}{
		{[]float64{0, -1, 0}, ErrInvalidArgument, "extra_costs[1] = -1"},
		{[]float64{0, 0, math.NaN()}, ErrInvalidArgument, "extra_costs[2] = nan"},
		{[]float64{math.Inf(1), 0, 0}, ErrInvalidArgument, "extra_costs[0] = inf"},
		{[]float64{1e308, 1e308, 0}, ErrOutOfRange, "extra_costs"},
		{[]float64{0, 0}, ErrInvalidArgument, "extra_costs has 2 entries for 3 lengths"},
	} {
		s, err := SimulateWithExtraCosts([]int64{10, 20, 30}, row.extra, model, opts)
		if s != nil || !errors.Is(err, row.target) || !strings.Contains(err.Error(), row.fragment) {
			t.Errorf("%v: got %v, want %v containing %q", row.extra, err, row.target, row.fragment)
		}
		_, err = SimulateSweepWithExtraCosts([]int64{10, 20, 30}, row.extra, model, opts, []uint64{2})
		if !errors.Is(err, row.target) || !strings.Contains(err.Error(), row.fragment) {
			t.Errorf("sweep %v: got %v", row.extra, err)
		}
	}
}
