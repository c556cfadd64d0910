package flopspack

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/flopspack/flopspack/bindings/go/internal/capi"
)

func TestCpLayoutValuesAreTheHeaders(t *testing.T) {
	if int(CpSequenceHeadTail) != int(capi.FLOPSPACK_CP_SEQUENCE_HEAD_TAIL) ||
		int(CpDocumentHeadTail) != int(capi.FLOPSPACK_CP_DOCUMENT_HEAD_TAIL) || int(CpAdaptive) != int(capi.FLOPSPACK_CP_ADAPTIVE) {
		t.Error("CpLayout constants differ from flopspack_cp_layout")
	}
}

func cpFixture(t *testing.T) (*CostModel, *Plan) {
	t.Helper()
	config := DefaultTransformerConfig()
	config.NumLayers, config.HiddenSize, config.NumAttentionHeads, config.NumKeyValueHeads = 4, 256, 8, 8
	config.IntermediateSize, config.VocabSize = 1024, 1000
	model, err := NewTransformerModel(config)
	if err != nil {
		t.Fatal(err)
	}
	lengths := make([]int64, 60)
	for i := range lengths {
		lengths[i] = 1 + int64(i*7919)%700
	}
	options := DefaultStepOptions()
	options.NumRanks, options.MicrobatchesPerRank, options.MaxTokensPerMicrobatch = 4, 2, 4096
	plan, err := PlanStep(lengths, model, options)
	if err != nil {
		t.Fatal(err)
	}
	return model, plan
}

func TestShardContextParallelTilesAndCosts(t *testing.T) {
	model, plan := cpFixture(t)
	defer model.Close()
	defer plan.Close()
	for _, layout := range []CpLayout{CpSequenceHeadTail, CpDocumentHeadTail, CpAdaptive} {
		shard, err := ShardContextParallel(plan, model, 4, layout)
		if err != nil {
			t.Fatal(err)
		}
		if shard.NumGroups() != plan.NumGroups() || shard.ContextParallelSize() != 4 {
			t.Fatalf("groups %d vs %d", shard.NumGroups(), plan.NumGroups())
		}
		for g := 0; g < plan.NumGroups(); g++ {
			group, err := plan.Group(g)
			if err != nil {
				t.Fatal(err)
			}
			type token struct{ item, at int64 }
			want := map[token]int{}
			for k := range group.Items {
				for x := int64(0); x < group.Tokens[k]; x++ {
					want[token{group.Items[k], group.Offsets[k] + x}]++
				}
			}
			sum := 0.0
			for r := 0; r < 4; r++ {
				c, err := shard.Chunks(g, r)
				if err != nil {
					t.Fatal(err)
				}
				for k := range c.Items {
					for x := int64(0); x < c.Lengths[k]; x++ {
						want[token{c.Items[k], c.Offsets[k] + x}]--
					}
				}
				cost, kv, err := shard.RankCost(g, r)
				if err != nil || kv < 0 {
					t.Fatal(err, kv)
				}
				sum += cost
			}
			for tok, n := range want {
				if n != 0 {
					t.Fatalf("layout %d group %d: token %v covered %d times too few", layout, g, tok, n)
				}
			}
			if math.Abs(sum-group.Cost) > 1e-9*group.Cost {
				t.Errorf("group %d: CP ranks cost %g, the group %g", g, sum, group.Cost)
			}
			used, balance, err := shard.Layout(g)
			if err != nil || used == CpAdaptive || balance <= 0 || balance > 1 {
				t.Errorf("group %d: layout %d balance %g err %v", g, used, balance, err)
			}
		}
		m, err := shard.Metrics()
		if err != nil {
			t.Fatal(err)
		}
		if m.ContextParallelSize != 4 || m.NumGroups != uint64(plan.NumGroups()) ||
			m.SequenceLayoutGroups+m.DocumentLayoutGroups != m.NumGroups {
			t.Errorf("metrics %+v", m)
		}
		shard.Close()
	}
}

func TestShardContextParallelBadInput(t *testing.T) {
	model, plan := cpFixture(t)
	defer model.Close()
	defer plan.Close()
	_, err := ShardContextParallel(plan, model, 0, CpAdaptive)
	var e *Error
	if !errors.As(err, &e) || e.Status != StatusInvalidArgument || !strings.Contains(e.Message, "context_parallel_size = 0") {
		t.Errorf("C = 0: %v", err)
	}
	if _, err := ShardContextParallel(plan, model, 2, CpLayout(9)); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("bad layout: %v", err)
	}
	shard, err := ShardContextParallel(plan, model, 2, CpAdaptive)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := shard.Chunks(0, 2); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("cp_rank 2 of 2: %v", err)
	}
	if _, err := shard.Chunks(0, -1); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("cp_rank -1: %v", err)
	}
	shard.Close()
	if _, err := shard.Metrics(); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
}
