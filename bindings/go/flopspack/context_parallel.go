package flopspack

import (
	"fmt"
	"runtime"

	"github.com/flopspack/flopspack/bindings/go/internal/capi"
)

// CpLayout says how a packed sequence is cut over the CP ranks
// (flopspack_cp_layout).
type CpLayout int32

const (
	// CpSequenceHeadTail cuts the packed sequence into 2C equal chunks; CP
	// rank i takes chunks i and 2C-1-i.
	CpSequenceHeadTail CpLayout = 0
	// CpDocumentHeadTail cuts every document into 2C chunks; CP rank i
	// takes chunks i and 2C-1-i of each.
	CpDocumentHeadTail CpLayout = 1
	// CpAdaptive takes, per sequence, whichever gives the lower maximum
	// CP-rank cost.
	CpAdaptive CpLayout = 2
)

// CpMetrics mirrors flopspack_cp_metrics.
type CpMetrics struct {
	ContextParallelSize, NumGroups, NumChunks  uint64
	BalanceEfficiency, WorstBalance            float64
	MaxCpRankCost, MeanCpRankCost              float64
	KvTokens                                   int64
	SequenceLayoutGroups, DocumentLayoutGroups uint64
}

// CpChunks are the chunks of one CP rank in one group: chunk k is tokens
// [Offsets[k], Offsets[k]+Lengths[k]) of item Items[k].
type CpChunks struct {
	Items, Offsets, Lengths []int64
}

// ContextParallelShard holds the chunks and costs of every (group, CP rank)
// of a plan (flopspack_cp_shard). Immutable; safe for concurrent reads.
type ContextParallelShard struct {
	ref  cref
	size int
}

func destroyCpShard(h uintptr) { capi.DeleteFlopspack_cp_shard(capi.SwigcptrFlopspack_cp_shard(h)) }

// ShardContextParallel cuts every group of the plan over
// contextParallelSize CP ranks (1 .. 65536) with the layout, costing each
// CP rank exactly for causal attention within documents
// (flopspack_plan_shard_context_parallel). The model must be additive.
func ShardContextParallel(plan *Plan, model *CostModel, contextParallelSize uint64, layout CpLayout) (*ContextParallelShard, error) {
	p, err := plan.handle()
	if err != nil {
		return nil, err
	}
	defer plan.release()
	m, err := model.handle()
	if err != nil {
		return nil, err
	}
	defer model.release()
	var h uintptr
	if err := capi.Flopspack_plan_shard_context_parallel(p, m, contextParallelSize, int(layout), &h); err != nil {
		return nil, err
	}
	s := &ContextParallelShard{ref: cref{h: h, destroy: destroyCpShard}, size: int(contextParallelSize)}
	runtime.SetFinalizer(s, (*ContextParallelShard).Close)
	return s, nil
}

func (s *ContextParallelShard) handle() (capi.Flopspack_cp_shard, error) {
	if s == nil {
		return nil, closedError("ContextParallelShard")
	}
	h, err := s.ref.acquire("ContextParallelShard")
	return capi.SwigcptrFlopspack_cp_shard(h), err
}

func (s *ContextParallelShard) release() { s.ref.release() }

// ContextParallelSize is C.
func (s *ContextParallelShard) ContextParallelSize() int { return s.size }

// NumGroups is the number of groups (0 after Close).
func (s *ContextParallelShard) NumGroups() int {
	h, err := s.handle()
	if err != nil {
		return 0
	}
	defer s.release()
	return int(capi.Flopspack_cp_shard_group_count(h))
}

func checkCpIndex(g, r int) error {
	if err := checkGroup(g); err != nil {
		return err
	}
	if r < 0 {
		return &Error{Status: StatusOutOfRange, Message: fmt.Sprintf("cp_rank %d is out of range: it must not be negative", r)}
	}
	return nil
}

// Chunks returns the chunks of CP rank r in group g, in its layout order.
func (s *ContextParallelShard) Chunks(g, r int) (CpChunks, error) {
	if err := checkCpIndex(g, r); err != nil {
		return CpChunks{}, err
	}
	h, err := s.handle()
	if err != nil {
		return CpChunks{}, err
	}
	defer s.release()
	var out CpChunks
	for _, read := range []struct {
		dst *[]int64
		fn  func(capi.Flopspack_cp_shard, int64, int64, *capi.View) error
	}{
		{&out.Items, capi.Flopspack_swig_cp_shard_chunk_items},
		{&out.Offsets, capi.Flopspack_swig_cp_shard_chunk_offsets},
		{&out.Lengths, capi.Flopspack_swig_cp_shard_chunk_lengths},
	} {
		var view capi.View
		if err := read.fn(h, int64(g), int64(r), &view); err != nil {
			return CpChunks{}, err
		}
		*read.dst = view.Int64s()
	}
	return out, nil
}

// RankCost returns what CP rank r of group g costs and the key/value tokens
// it receives.
func (s *ContextParallelShard) RankCost(g, r int) (cost float64, kvTokens int64, err error) {
	if err := checkCpIndex(g, r); err != nil {
		return 0, 0, err
	}
	h, err := s.handle()
	if err != nil {
		return 0, 0, err
	}
	defer s.release()
	err = capi.Flopspack_cp_shard_rank_cost(h, int64(g), int64(r), &cost, &kvTokens)
	return cost, kvTokens, err
}

// Layout returns the layout group g was cut with and its CP-rank balance.
func (s *ContextParallelShard) Layout(g int) (CpLayout, float64, error) {
	if err := checkGroup(g); err != nil {
		return 0, 0, err
	}
	h, err := s.handle()
	if err != nil {
		return 0, 0, err
	}
	defer s.release()
	var layout int32
	var balance float64
	err = capi.Flopspack_cp_shard_group_layout(h, int64(g), &layout, &balance)
	return CpLayout(layout), balance, err
}

// Metrics returns the shard's figures.
func (s *ContextParallelShard) Metrics() (CpMetrics, error) {
	h, err := s.handle()
	if err != nil {
		return CpMetrics{}, err
	}
	defer s.release()
	c := capi.NewFlopspack_cp_metrics()
	defer capi.DeleteFlopspack_cp_metrics(c)
	if err := capi.Flopspack_cp_shard_metrics(h, c); err != nil {
		return CpMetrics{}, err
	}
	var m CpMetrics
	copyGetters(&m, c)
	return m, nil
}

// Close releases the C shard (idempotent). Later calls get ErrClosed.
func (s *ContextParallelShard) Close() error {
	if s == nil {
		return nil
	}
	s.ref.close()
	return nil
}
