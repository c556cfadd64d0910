package flopspack

import (
	"errors"
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

func randomLengths(n int, seed int64, max int64) []int64 {
	r := rand.New(rand.NewSource(seed))
	out := make([]int64, n)
	for i := range out {
		out[i] = 1 + r.Int63n(max)
	}
	return out
}

func drain(t *testing.T, p *StreamPacker, tokens map[int64]int64, capacity int64) *Plan {
	t.Helper()
	plan, err := p.Take()
	if err != nil {
		t.Fatal(err)
	}
	groups, err := plan.Groups()
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range groups {
		var sum int64
		for i, item := range g.Items {
			tokens[item] += g.Tokens[i]
			sum += g.Tokens[i]
		}
		if sum != g.RealTokens || sum > capacity || g.ComputedTokens != capacity || g.HasSlot {
			t.Fatalf("group %+v", g)
		}
	}
	return plan
}

func TestStreamPlacesEveryTokenOnce(t *testing.T) {
	for seed := int64(0); seed < 20; seed++ {
		lengths := randomLengths(400, seed, 3000)
		opts := DefaultStreamOptions(1024)
		opts.Window, opts.Seed = 32, uint64(seed)
		p, err := NewStreamPacker(opts, nil)
		if err != nil {
			t.Fatal(err)
		}
		tokens := map[int64]int64{}
		for i := 0; i < len(lengths); i += 57 {
			end := i + 57
			if end > len(lengths) {
				end = len(lengths)
			}
			if err := p.Push(lengths[i:end]); err != nil {
				t.Fatal(err)
			}
			drain(t, p, tokens, 1024).Close()
		}
		p.Flush()
		drain(t, p, tokens, 1024).Close()
		for i, l := range lengths {
			if tokens[int64(i)] != l {
				t.Fatalf("seed %d: document %d got %d of %d tokens", seed, i, tokens[int64(i)], l)
			}
		}
		totals, _ := p.Totals()
		if totals.DocumentsPushed != 400 || totals.PiecesHeld != 0 {
			t.Fatalf("totals %+v", totals)
		}
		p.Close()
	}
}

func TestStreamSaveRestoreAndErrors(t *testing.T) {
	lengths := randomLengths(300, 5, 3000)
	opts := DefaultStreamOptions(2048)
	opts.Window, opts.Seed, opts.Overflow = 40, 9, OverflowTruncate
	a, _ := NewStreamPacker(opts, nil)
	defer a.Close()
	a.Push(lengths[:150])
	a.Take()
	state, err := a.Save()
	if err != nil || len(state) == 0 {
		t.Fatal(err)
	}
	b, err := RestoreStreamPacker(state, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var results [2][]Group
	for i, p := range []*StreamPacker{a, b} {
		p.Push(lengths[150:])
		p.Flush()
		plan, _ := p.Take()
		results[i], _ = plan.Groups()
	}
	if !reflect.DeepEqual(results[0], results[1]) {
		t.Fatal("restored packer diverged")
	}
	if _, err := RestoreStreamPacker(state[:len(state)-3], nil); err == nil ||
		!strings.Contains(err.Error(), "corrupted") {
		t.Fatalf("truncated state: %v", err)
	}
	strict := DefaultStreamOptions(100)
	strict.Overflow = OverflowError
	s, _ := NewStreamPacker(strict, nil)
	if err := s.Push([]int64{50, 101}); !errors.Is(err, StatusInvalidArgument.Target()) {
		t.Fatalf("over capacity: %v", err)
	}
	s.Close()
	if err := s.Push([]int64{1}); !errors.Is(err, ErrClosed) {
		t.Fatalf("closed: %v", err)
	}
	if _, err := NewStreamPacker(DefaultStreamOptions(0), nil); err == nil {
		t.Fatal("capacity 0 must fail")
	}
	closedModel, _ := NewTokensModel()
	closedModel.Close()
	if _, err := NewStreamPacker(opts, closedModel); !errors.Is(err, ErrClosed) {
		t.Fatalf("closed model: %v", err)
	}
}

func TestCustomModelOutlivesCloseInsidePacker(t *testing.T) {
	calls := 0
	m, _ := NewCustomModel(func(l []int64) (float64, error) {
		calls++
		var s int64
		for _, x := range l {
			s += x
		}
		return float64(s), nil
	})
	p, _ := NewStreamPacker(StreamOptions{Capacity: 100, Window: 4, Overflow: OverflowSplit}, m)
	m.Close()
	p.Push([]int64{30, 30, 30, 30, 30, 30})
	p.Flush()
	plan, err := p.Take()
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := plan.Metrics()
	if calls == 0 || metrics.TotalCost != 180 {
		t.Fatalf("calls %d total %v", calls, metrics.TotalCost)
	}
	if !strings.HasPrefix(plan.String(), "flopspack.Plan(groups=") {
		t.Fatal(plan.String())
	}
	p.Close()
}
