package flopspack

import (
	"sort"
	"testing"
)

// addSpans records, per item, its pieces (offset, tokens) in a plan.
func addSpans(t *testing.T, plan *Plan, spans map[int64][][2]int64) {
	t.Helper()
	groups, err := plan.Groups()
	if err != nil {
		t.Fatal(err)
	}
	for g, group := range groups {
		if len(group.Offsets) != len(group.Items) {
			t.Fatalf("group %d: %d offsets for %d items", g, len(group.Offsets), len(group.Items))
		}
		offsets, err := plan.Offsets(g)
		if err != nil || !sameInts(offsets, group.Offsets) {
			t.Fatalf("group %d: Offsets %v %v, Group %v", g, offsets, err, group.Offsets)
		}
		for k, item := range group.Items {
			spans[item] = append(spans[item], [2]int64{group.Offsets[k], group.Tokens[k]})
		}
	}
}

func sameInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// checkTiling: the pieces of document i tile [0, lengths[i]) exactly.
// Returns how many documents came in more than one piece.
func checkTiling(t *testing.T, where string, spans map[int64][][2]int64, lengths []int64) int {
	t.Helper()
	split := 0
	for i, length := range lengths {
		s := spans[int64(i)]
		sort.Slice(s, func(a, b int) bool { return s[a][0] < s[b][0] })
		var end int64
		for _, piece := range s {
			if piece[0] != end || piece[1] <= 0 {
				t.Fatalf("%s: document %d pieces %v do not tile [0, %d)", where, i, s, length)
			}
			end += piece[1]
		}
		if end != length {
			t.Fatalf("%s: document %d pieces %v end at %d, length %d", where, i, s, end, length)
		}
		if len(s) > 1 {
			split++
		}
	}
	return split
}

func TestOffsetsTileSplitDocuments(t *testing.T) {
	model := quadraticModel(t)
	for seed := int64(0); seed < 4; seed++ {
		lengths := randomLengths(200, seed, 3*4096)
		opts := DefaultPackOptions(4096)
		opts.Overflow, opts.Seed = OverflowSplit, uint64(seed)
		plan, err := Pack(lengths, opts, nil)
		if err != nil {
			t.Fatal(err)
		}
		spans := map[int64][][2]int64{}
		addSpans(t, plan, spans)
		if checkTiling(t, "pack", spans, lengths) == 0 {
			t.Fatal("pack: no document was split")
		}
		plan.Close()

		step := DefaultStepOptions()
		step.NumRanks, step.MicrobatchesPerRank, step.MaxTokensPerMicrobatch = 4, 0, 4096
		step.Overflow, step.Seed = OverflowSplit, uint64(seed)
		plan, err = PlanStep(lengths[:60], model, step)
		if err != nil {
			t.Fatal(err)
		}
		spans = map[int64][][2]int64{}
		addSpans(t, plan, spans)
		if checkTiling(t, "plan_step", spans, lengths[:60]) == 0 {
			t.Fatal("plan_step: no document was split")
		}
		plan.Close()
	}
}

func TestStreamOffsetsTileAcrossTakes(t *testing.T) {
	acrossTakes := 0
	for seed := int64(0); seed < 6; seed++ {
		lengths := randomLengths(300, seed, 3000)
		opts := DefaultStreamOptions(1024)
		opts.Window, opts.Seed = 8, uint64(seed)
		p, err := NewStreamPacker(opts, nil)
		if err != nil {
			t.Fatal(err)
		}
		spans := map[int64][][2]int64{}
		takes := map[int64]int{}
		take := func() {
			plan, err := p.Take()
			if err != nil {
				t.Fatal(err)
			}
			here := map[int64][][2]int64{}
			addSpans(t, plan, here)
			for item, s := range here {
				spans[item] = append(spans[item], s...)
				takes[item]++
			}
			plan.Close()
		}
		for i := 0; i < len(lengths); i += 13 {
			end := i + 13
			if end > len(lengths) {
				end = len(lengths)
			}
			if err := p.Push(lengths[i:end]); err != nil {
				t.Fatal(err)
			}
			take()
		}
		p.Flush()
		take()
		checkTiling(t, "stream", spans, lengths)
		for _, n := range takes {
			if n > 1 {
				acrossTakes++
			}
		}
		p.Close()
	}
	if acrossTakes == 0 {
		t.Fatal("no document's pieces came in two takes: the test does not exercise offsets")
	}
}
