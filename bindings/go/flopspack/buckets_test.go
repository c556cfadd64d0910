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
