package flopspack

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

func quadraticModel(t *testing.T) *CostModel {
	t.Helper()
	m, err := NewPolynomialModel(0, 0, 1, 1e-4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func TestPlanStepPlacesEveryTokenOnceUnderTheCap(t *testing.T) {
	model := quadraticModel(t)
	for seed := int64(0); seed < 10; seed++ {
		for _, algorithm := range []StepAlgorithm{StepDocuments, StepRandom, StepTokens, StepSequences} {
			lengths := randomLengths(60, seed, 8000)
			opts := DefaultStepOptions()
			opts.NumRanks, opts.MicrobatchesPerRank, opts.MaxTokensPerMicrobatch = 4, 6, 16384
			opts.Algorithm, opts.Seed = algorithm, uint64(seed)
			plan, err := PlanStep(lengths, model, opts)
			if err != nil {
				t.Fatal(err)
			}
			groups, _ := plan.Groups()
			tokens := make([]int64, len(lengths))
			for g, group := range groups {
				if !group.HasSlot || group.Rank != g/6 || group.Slot != g%6 || group.RealTokens > 16384 {
					t.Fatalf("group %d: %+v", g, group)
				}
				for i, item := range group.Items {
					tokens[item] += group.Tokens[i]
				}
			}
			if !reflect.DeepEqual(tokens, lengths) {
				t.Fatalf("seed %d algorithm %d: tokens not conserved", seed, algorithm)
			}
			plan.Close()
		}
	}
}

func TestPlanStepErrorsAndStatefulPlannerResume(t *testing.T) {
	model := quadraticModel(t)
	opts := DefaultStepOptions()
	if _, err := PlanStep([]int64{1, 2}, model, opts); !errors.Is(err, ErrInvalidArgument) ||
		!strings.Contains(err.Error(), "num_ranks = 0") {
		t.Fatalf("num_ranks 0: %v", err)
	}
	opts.NumRanks, opts.MicrobatchesPerRank, opts.MaxTokensPerMicrobatch = 1, 2, 1000
	if _, err := PlanStep([]int64{900, 900, 900, 900, 900}, model, opts); !errors.Is(err, ErrInfeasible) {
		t.Fatalf("does not fit: %v", err)
	}
	opts.NumRanks, opts.MaxTokensPerMicrobatch = 2, 8192
	popts := DefaultStepPlannerOptions()
	popts.OutlierMinTokens = 6000
	p, err := NewStepPlanner(model, opts, popts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	lengths := randomLengths(200, 3, 8000)
	if first, _ := p.Push(lengths[:120]); first != 0 {
		t.Fatal(first)
	}
	if first, _ := p.Push(lengths[120:]); first != 120 {
		t.Fatal(first)
	}
	p.Next()
	state, err := p.Save()
	if err != nil {
		t.Fatal(err)
	}
	twin, err := RestoreStepPlanner(state, model)
	if err != nil {
		t.Fatal(err)
	}
	defer twin.Close()
	for i := 0; i < 4; i++ {
		a, _ := p.Next()
		b, _ := twin.Next()
		ga, _ := a.Groups()
		gb, _ := b.Groups()
		if !reflect.DeepEqual(ga, gb) {
			t.Fatalf("step %d diverged after restore", i)
		}
	}
	pa, _ := p.Pending()
	pb, _ := twin.Pending()
	if pa != pb || pa.Steps != 5 {
		t.Fatalf("pending %+v %+v", pa, pb)
	}
	if _, err := RestoreStepPlanner(state[:len(state)-1], model); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("truncated: %v", err)
	}
	p.Close()
	if _, err := p.Next(); !errors.Is(err, ErrClosed) {
		t.Fatalf("closed: %v", err)
	}
}

func TestMetricsSayWhichAlgorithmPlanned(t *testing.T) {
	// 8 ranks x 1 microbatch of 8,192 tokens, cap 10,240; the first document
	// costs far more than a rank's share, so the planner falls back.
	docs := []int64{12000}
	for i := 0; i < 35; i++ {
		docs = append(docs, 1500)
	}
	docs = append(docs, 8*8192-12000-35*1500)
	model, err := NewPolynomialModel(0, 0, 1, 1.0/1024)
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	opts := DefaultStepOptions()
	opts.NumRanks, opts.MicrobatchesPerRank, opts.MaxTokensPerMicrobatch = 8, 1, 10240
	metrics := func(o StepOptions) PlanMetrics {
		plan, err := PlanStep(docs, model, o)
		if err != nil {
			t.Fatal(err)
		}
		defer plan.Close()
		m, err := plan.Metrics()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	planned := metrics(opts)
	opts.Algorithm = StepTokens
	tokens := metrics(opts)
	if planned.PlannedBy != 2 { // FLOPSPACK_PLANNED_BY_CUT_TO_SHARE
		t.Errorf("planned by %d, want the cut to the share (2)", planned.PlannedBy)
	}
	if planned.RankBalanceEfficiency <= tokens.RankBalanceEfficiency || tokens.PlannedBy != 0 {
		t.Errorf("planner %v (by %d) vs token-balanced %v (by %d)", planned.RankBalanceEfficiency,
			planned.PlannedBy, tokens.RankBalanceEfficiency, tokens.PlannedBy)
	}
	packed, err := Pack(docs, DefaultPackOptions(16384), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer packed.Close()
	if m, _ := packed.Metrics(); m.PlannedBy != 0 {
		t.Errorf("pack plan planned by %d, want none", m.PlannedBy)
	}
}

func TestSyncModelAndPipelineMetrics(t *testing.T) {
	model := quadraticModel(t)
	lengths := randomLengths(70, 7, 12000)
	opts := DefaultStepOptions()
	if opts.Sync != SyncStep || opts.PipelineStages != 0 || opts.PipelineSchedule != Pipeline1F1B {
		t.Fatalf("defaults: %+v", opts)
	}
	opts.NumRanks, opts.MicrobatchesPerRank, opts.MaxTokensPerMicrobatch = 4, 8, 16384
	step, err := PlanStep(lengths, model, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer step.Close()
	opts.Sync, opts.PipelineStages = SyncMicrobatch, 4
	micro, err := PlanStep(lengths, model, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer micro.Close()
	s, _ := step.Metrics()
	m, _ := micro.Metrics()
	if s.PipelineMakespan != 0 || s.MicrobatchSyncEfficiency <= 0 {
		t.Fatalf("step: %+v", s)
	}
	if m.MicrobatchSyncEfficiency < s.MicrobatchSyncEfficiency || m.MeanSlotBalance < m.WorstSlotBalance ||
		m.MicrobatchSyncLowerBound > m.MicrobatchSyncCost {
		t.Fatalf("microbatch: %+v vs %+v", m, s)
	}
	if !(m.PipelineEfficiency > 0 && m.PipelineEfficiency < 1) || m.PipelineLowerBound > m.PipelineMakespan {
		t.Fatalf("pipeline: %+v", m)
	}
	opts.PipelineStages = 2000
	if _, err := PlanStep(lengths, model, opts); err == nil || !strings.Contains(err.Error(), "pipeline_stages = 2000") {
		t.Fatalf("want the stages error, got %v", err)
	}
	opts.PipelineStages, opts.Sync = 0, Sync(5)
	if _, err := PlanStep(lengths, model, opts); err == nil || !strings.Contains(err.Error(), "sync = 5") {
		t.Fatalf("want the sync error, got %v", err)
	}
}

func TestPlanStepWithContextParallelism(t *testing.T) {
	model := quadraticModel(t)
	lengths := []int64{1500, 400, 300, 900, 700, 120}
	opts := DefaultStepOptions()
	if opts.ContextParallelSize != 0 || opts.ContextParallelLayout != CpDocumentHeadTail {
		t.Fatalf("defaults: %+v", opts)
	}
	opts.NumRanks, opts.MaxTokensPerMicrobatch = 2, 1000
	opts.ContextParallelSize, opts.ContextParallelLayout = 2, CpAdaptive
	plan, err := PlanStep(lengths, model, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer plan.Close()
	m, _ := plan.Metrics()
	if m.SplitItems != 0 {
		t.Fatalf("a 1,500-token document fits a CP group of 2 x 1,000: %+v", m)
	}
	shard, err := ShardContextParallel(plan, model, 2, CpAdaptive)
	if err != nil {
		t.Fatal(err)
	}
	defer shard.Close()
	cm, _ := shard.Metrics()
	if math.Abs(cm.MaxCpRankCost-m.MaxGroupCost) > 1e-12*m.MaxGroupCost {
		t.Fatalf("max group cost %v, slowest CP rank %v", m.MaxGroupCost, cm.MaxCpRankCost)
	}
	opts.ContextParallelSize = 70000
	if _, err := PlanStep(lengths, model, opts); err == nil || !strings.Contains(err.Error(), "context_parallel_size = 70000") {
		t.Fatalf("want the CP size error, got %v", err)
	}
	opts.ContextParallelSize, opts.ContextParallelLayout = 2, CpLayout(7)
	if _, err := PlanStep(lengths, model, opts); err == nil || !strings.Contains(err.Error(), "context_parallel_layout = 7") {
		t.Fatalf("want the layout error, got %v", err)
	}
}
