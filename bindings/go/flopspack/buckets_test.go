package flopspack

import (
	"errors"
	"sort"
	"strings"
	"testing"
)

func TestOptimizeBucketsAndPadding(t *testing.T) {
	bounds, err := OptimizeBuckets([]int64{1, 2, 3, 10, 11, 12}, 2)
	if err != nil || len(bounds) != 2 || bounds[0] != 3 || bounds[1] != 12 {
		t.Fatalf("bounds %v err %v", bounds, err)
	}
	if p, err := BucketPadding([]int64{1, 2, 3, 10, 11, 12}, bounds); err != nil || p != 6 {
		t.Fatalf("padding %d err %v", p, err)
	}
	if _, err := OptimizeBuckets([]int64{4, 0, 5}, 2); err == nil || !strings.Contains(err.Error(), "lengths[1] = 0") {
		t.Fatalf("bad length: %v", err)
	}
}

func TestBucketSamplerEpochCoversEverySampleOnce(t *testing.T) {
	lengths := randomLengths(3000, 2, 2000)
	opts := DefaultBucketSamplerOptions()
	opts.NumBuckets, opts.MaxPaddedTokens, opts.NumRanks, opts.AccumulationSteps, opts.Seed = 8, 8000, 4, 2, 5
	s, err := NewBucketSampler(lengths, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	steps, _ := s.StepsPerEpoch()
	plan, err := s.Epoch(3)
	if err != nil {
		t.Fatal(err)
	}
	groups, _ := plan.Groups()
	if uint64(len(groups)) != steps*8 {
		t.Fatalf("%d groups for %d steps", len(groups), steps)
	}
	var all []int
	for i, g := range groups {
		step, rest := i/8, i%8
		if !g.HasSlot || g.Rank != rest/2 || g.Slot != step*2+rest%2 {
			t.Fatalf("group %d at rank %d slot %d", i, g.Rank, g.Slot)
		}
		var longest int64
		for _, item := range g.Items {
			all = append(all, int(item))
			if lengths[item] > longest {
				longest = lengths[item]
			}
		}
		if int64(len(g.Items))*longest > 8000 {
			t.Fatalf("group %d breaks the budget", i)
		}
	}
	sort.Ints(all)
	for i, v := range all {
		if i != v {
			t.Fatalf("sample %d missing or repeated", i)
		}
	}
	tokens, samples, err := s.StepDiversity(plan)
	if err != nil || uint64(len(tokens)) != steps || len(samples) != len(tokens) {
		t.Fatalf("diversity %d %v", len(tokens), err)
	}
	if _, err := NewBucketSampler(lengths, DefaultBucketSamplerOptions(), nil); err == nil ||
		!strings.Contains(err.Error(), "max_padded_tokens = 0") {
		t.Fatalf("no budget: %v", err)
	}
	s.Close()
	if _, err := s.Epoch(0); !errors.Is(err, ErrClosed) {
		t.Fatalf("closed: %v", err)
	}
}

func TestBucketSamplerOverflowAndDiagnose(t *testing.T) {
	lengths := make([]int64, 0, 120)
	for i := 0; i < 20; i++ {
		lengths = append(lengths, 100, 5000, 300, 200, 9000, 50)
	}
	opts := DefaultBucketSamplerOptions()
	opts.MaxPaddedTokens, opts.NumRanks = 1000, 2
	if _, err := NewBucketSampler(lengths, opts, nil); err == nil || !strings.Contains(err.Error(), "lengths[1] = 5000 exceeds") {
		t.Fatalf("error policy: %v", err)
	}
	opts.Overflow = OverflowDefer
	s, err := NewBucketSampler(lengths, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	plan, err := s.Epoch(0)
	if err != nil {
		t.Fatal(err)
	}
	deferred, _ := plan.Deferred()
	if len(deferred) != 40 {
		t.Fatalf("%d deferred, want 40", len(deferred))
	}
	d, err := s.Diagnose(0, 0.97, 0.95, 0.1)
	if err != nil || d.DeferredItems != 40 || d.DeferredTokens != 20*14000 || d.BalanceEfficiency <= 0 {
		t.Fatalf("diagnostics %+v err %v", d, err)
	}
	m, _ := plan.Metrics()
	if (d.Unmet&BucketTargetBalance != 0) != (m.BalanceEfficiency < 0.97) {
		t.Fatalf("unmet %d with balance %g", d.Unmet, m.BalanceEfficiency)
	}
	if _, err := s.Diagnose(0, 1.5, 0.95, 0.1); err == nil || !strings.Contains(err.Error(), "balance target = 1.5") {
		t.Fatalf("bad target: %v", err)
	}
	opts.Overflow = OverflowSplit
	if _, err := NewBucketSampler(lengths, opts, nil); err == nil || !strings.Contains(err.Error(), "options->overflow = 2") {
		t.Fatalf("split: %v", err)
	}
}
