package flopspack

import (
	"errors"
	"reflect"
	"sort"
	"strings"
	"testing"
)

func TestPackPlacesEveryTokenOnce(t *testing.T) {
	for seed := int64(0); seed < 5; seed++ {
		for _, algorithm := range []PackAlgorithm{PackBestFitDecreasing, PackFirstFitDecreasing, PackNextFit, PackShuffledFirstFit} {
			lengths := randomLengths(300, seed, 5000)
			opts := DefaultPackOptions(4096)
			opts.Algorithm, opts.Overflow, opts.Seed = algorithm, OverflowSplit, uint64(seed)
			plan, err := Pack(lengths, opts, nil)
			if err != nil {
				t.Fatal(err)
			}
			groups, _ := plan.Groups()
			tokens := make([]int64, len(lengths))
			for _, g := range groups {
				if g.RealTokens > 4096 {
					t.Fatalf("over capacity: %+v", g)
				}
				for i, item := range g.Items {
					tokens[item] += g.Tokens[i]
				}
			}
			if !reflect.DeepEqual(tokens, lengths) {
				t.Fatalf("seed %d algorithm %d: tokens not conserved", seed, algorithm)
			}
			plan.Close()
		}
	}
	if _, err := Pack([]int64{10, 5000}, DefaultPackOptions(4096), nil); !errors.Is(err, ErrInvalidArgument) ||
		!strings.Contains(err.Error(), "5000") {
		t.Fatalf("overflow error: %v", err)
	}
}

func TestBalanceCoversItemsAndHonoursTheCap(t *testing.T) {
	costs := []float64{5, 4, 3, 3, 2, 1}
	tokens := []int64{50, 40, 30, 30, 20, 10}
	opts := DefaultBalanceOptions(2)
	opts.MaxTokensPerGroup = 95
	plan, err := Balance(costs, tokens, opts)
	if err != nil {
		t.Fatal(err)
	}
	groups, _ := plan.Groups()
	var all []int
	for _, g := range groups {
		var sum int64
		for _, item := range g.Items {
			all = append(all, int(item))
			sum += tokens[item]
		}
		if sum > 95 {
			t.Fatalf("cap broken: %d", sum)
		}
	}
	sort.Ints(all)
	if !reflect.DeepEqual(all, []int{0, 1, 2, 3, 4, 5}) {
		t.Fatal(all)
	}
	if _, err := Balance(costs, []int64{1, 2}, DefaultBalanceOptions(2)); err == nil ||
		!strings.Contains(err.Error(), "tokens has 2 entries for 6 costs") {
		t.Fatalf("tokens size: %v", err)
	}
	opts.MaxTokensPerGroup = 60
	if _, err := Balance(costs, tokens, opts); !errors.Is(err, ErrInfeasible) {
		t.Fatalf("infeasible: %v", err)
	}
}
