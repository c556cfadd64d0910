package flopspack

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"

	"github.com/flopspack/flopspack/bindings/go/internal/capi"
)

// Plan is the result of packing, balancing, step planning or bucketing
// (flopspack_plan): groups of input items with their tokens and costs, and
// metrics. Immutable; safe for concurrent reads, and Close may race them (a
// running call finishes on the live plan). Slices returned are copies.
type Plan struct {
	ref cref
}

// GroupInfo summarises one group.
type GroupInfo struct {
	RealTokens, ComputedTokens int64
	Cost                       float64
}

// Group is one group: item indices into the input, the tokens each
// contributes, the summary, (for plans with ranks) its rank and slot, and
// where each entry's piece starts in its item (see Plan.Offsets).
type Group struct {
	Items, Tokens []int64
	GroupInfo
	HasSlot    bool
	Rank, Slot int
	Offsets    []int64
}

// PlanMetrics mirrors struct flopspack_plan_metrics; a field that does not
// apply to the plan's kind is 0.
type PlanMetrics struct {
	NumGroups, NumItems                                     uint64
	MaxGroupCost, MeanGroupCost, MinGroupCost, TotalCost    float64
	BalanceEfficiency                                       float64
	LowerBound, GapToLowerBound                             float64
	RealTokens, ComputedTokens, Capacity                    int64
	Fill, PaddingEfficiency                                 float64
	NumRanks, MicrobatchesPerRank                           uint64
	MaxRankCost, MeanRankCost, RankBalanceEfficiency        float64
	RankLowerBound, RankGapToLowerBound, WorstSlotBalance   float64
	SplitItems, TruncatedItems, DeferredItems, DroppedItems uint64
	TruncatedTokens, DeferredTokens, DroppedTokens          int64
	NumSteps                                                uint64
	DiversityDistance, DiversityDistanceSamples             float64
	// PlannedBy says which algorithm made a step plan (C enum
	// flopspack_planned_by): 0 none (not a step plan, or a step algorithm
	// without fallbacks), 1 the document-level planner, 2 its fallback the
	// cut to the share, 3 its fallback the token-balanced planner.
	PlannedBy int32
	// Synchronization figures of step plans (docs/planner.md): the
	// microbatch-synchronous (FSDP / ZeRO-3) efficiency, mean per-slot
	// balance, step cost, its lower bound and the gap; with PipelineStages
	// >= 2 the 1F1B makespan, efficiency, lower bound and gap (else 0).
	MicrobatchSyncEfficiency, MeanSlotBalance, MicrobatchSyncCost float64
	MicrobatchSyncLowerBound, MicrobatchSyncGapToLowerBound       float64
	PipelineMakespan, PipelineEfficiency                          float64
	PipelineLowerBound, PipelineGapToLowerBound                   float64
}

// newPlan takes ownership of a C plan handle.
func newPlan(h uintptr) *Plan {
	p := &Plan{ref: cref{h: h, destroy: destroyPlan}}
	runtime.SetFinalizer(p, (*Plan).Close)
	return p
}

func destroyPlan(h uintptr) { capi.DeleteFlopspack_plan(capi.SwigcptrFlopspack_plan(h)) }

// handle acquires the C plan for a call; pair it with release.
func (p *Plan) handle() (capi.Flopspack_plan, error) {
	if p == nil {
		return nil, closedError("Plan")
	}
	h, err := p.ref.acquire("Plan")
	return capi.SwigcptrFlopspack_plan(h), err
}

func (p *Plan) release() { p.ref.release() }

// checkGroup refuses a negative group index here: converted to C's size_t
// it would read as a huge index in the library's message.
func checkGroup(g int) error {
	if g < 0 {
		return &Error{Status: StatusOutOfRange, Message: fmt.Sprintf("group %d is out of range: it must not be negative", g)}
	}
	return nil
}

// NumGroups is the number of groups (0 after Close).
func (p *Plan) NumGroups() int {
	h, err := p.handle()
	if err != nil {
		return 0
	}
	defer p.release()
	n := capi.Flopspack_plan_group_count(h)
	return int(n)
}

// Items returns the item indices of group g.
func (p *Plan) Items(g int) ([]int64, error) {
	return p.groupArray(g, capi.Flopspack_swig_plan_group_items)
}

// Tokens returns the tokens each item of group g contributes.
func (p *Plan) Tokens(g int) ([]int64, error) {
	return p.groupArray(g, capi.Flopspack_swig_plan_group_tokens)
}

// Offsets returns where each entry of group g starts in its item
// (flopspack_plan_group_offsets): entry k is tokens
// [Offsets[k], Offsets[k]+Tokens[k]) of item Items[k]. A whole or truncated
// item is one piece at 0; the pieces of a split item tile [0, its length)
// exactly (for the stream packer, over the plans its pieces come in).
func (p *Plan) Offsets(g int) ([]int64, error) {
	return p.groupArray(g, capi.Flopspack_swig_plan_group_offsets)
}

// groupArray copies one per-entry array of group g (items, tokens or
// offsets) out of the plan while it is alive.
func (p *Plan) groupArray(g int, read func(capi.Flopspack_plan, int64, *capi.View) error) ([]int64, error) {
	if err := checkGroup(g); err != nil {
		return nil, err
	}
	h, err := p.handle()
	if err != nil {
		return nil, err
	}
	defer p.release()
	var view capi.View
	if err := read(h, int64(g), &view); err != nil {
		return nil, err
	}
	return view.Int64s(), nil
}

// Info returns the summary of group g.
func (p *Plan) Info(g int) (GroupInfo, error) {
	if err := checkGroup(g); err != nil {
		return GroupInfo{}, err
	}
	h, err := p.handle()
	if err != nil {
		return GroupInfo{}, err
	}
	defer p.release()
	var info GroupInfo
	err = capi.Flopspack_plan_group_info(h, int64(g), &info.RealTokens, &info.ComputedTokens, &info.Cost)
	return info, err
}

// Slot returns the rank and slot (microbatch) of group g of a plan with
// ranks; an error with StatusInvalidArgument for plans without.
func (p *Plan) Slot(g int) (rank, slot int, err error) {
	if err := checkGroup(g); err != nil {
		return 0, 0, err
	}
	h, err := p.handle()
	if err != nil {
		return 0, 0, err
	}
	defer p.release()
	var r, s uint64
	err = capi.Flopspack_plan_group_slot(h, int64(g), &r, &s)
	return int(r), int(s), err
}

// Group returns everything about group g.
func (p *Plan) Group(g int) (Group, error) {
	var out Group
	var err error
	if out.Items, err = p.Items(g); err != nil {
		return Group{}, err
	}
	if out.Tokens, err = p.Tokens(g); err != nil {
		return Group{}, err
	}
	if out.GroupInfo, err = p.Info(g); err != nil {
		return Group{}, err
	}
	if out.Offsets, err = p.Offsets(g); err != nil {
		return Group{}, err
	}
	if rank, slot, err := p.Slot(g); err == nil {
		out.HasSlot, out.Rank, out.Slot = true, rank, slot
	}
	return out, nil
}

// Groups returns every group in order.
func (p *Plan) Groups() ([]Group, error) {
	if p == nil || p.ref.isClosed() {
		return nil, closedError("Plan")
	}
	n := p.NumGroups()
	out := make([]Group, n)
	for g := 0; g < n; g++ {
		var err error
		if out[g], err = p.Group(g); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Deferred returns the items kept for a later step.
func (p *Plan) Deferred() ([]int64, error) {
	h, err := p.handle()
	if err != nil {
		return nil, err
	}
	defer p.release()
	var view capi.View
	err = capi.Flopspack_swig_plan_deferred(h, &view)
	var items []int64
	if err == nil {
		items = view.Int64s() // copied while the plan is alive
	}
	return items, err
}

// Dropped returns the items dropped (drop-last, rejected).
func (p *Plan) Dropped() ([]int64, error) {
	h, err := p.handle()
	if err != nil {
		return nil, err
	}
	defer p.release()
	var view capi.View
	err = capi.Flopspack_swig_plan_dropped(h, &view)
	var items []int64
	if err == nil {
		items = view.Int64s() // copied while the plan is alive
	}
	return items, err
}

// Metrics returns the plan's quality figures.
func (p *Plan) Metrics() (PlanMetrics, error) {
	h, err := p.handle()
	if err != nil {
		return PlanMetrics{}, err
	}
	defer p.release()
	c := capi.NewFlopspack_plan_metrics_data() // struct_size set
	defer capi.DeleteFlopspack_plan_metrics_data(c)
	err = capi.Flopspack_swig_plan_metrics(h, c)
	if err != nil {
		return PlanMetrics{}, err
	}
	var m PlanMetrics
	copyGetters(&m, c)
	return m, nil
}

// copyGetters fills each field of *dst from the SWIG getter of the same
// name (Get<snake_case> ~ CamelCase), so a field added to a C output struct
// needs only the Go field. TestStructMirrors checks both sides agree.
func copyGetters(dst interface{}, src interface{}) {
	d := reflect.ValueOf(dst).Elem()
	s := reflect.ValueOf(src)
	for i := 0; i < s.NumMethod(); i++ {
		name := s.Type().Method(i).Name
		if !strings.HasPrefix(name, "Get") || name == "GetStruct_size" {
			continue
		}
		field := d.FieldByNameFunc(func(f string) bool { return fieldMatches(f, name[3:]) })
		if !field.IsValid() {
			continue
		}
		v := s.Method(i).Call(nil)[0]
		field.Set(v.Convert(field.Type()))
	}
}

// fieldMatches compares a Go field name with a SWIG getter suffix
// ("Gap_to_lower_bound" ~ "GapToLowerBound").
func fieldMatches(goName, swigName string) bool {
	return strings.EqualFold(goName, strings.ReplaceAll(swigName, "_", ""))
}

// String summarises the plan, e.g. "flopspack.Plan(groups=12 items=100 balance=0.9871)".
func (p *Plan) String() string {
	m, err := p.Metrics()
	if err != nil {
		return "flopspack.Plan(closed)"
	}
	text := fmt.Sprintf("flopspack.Plan(groups=%d items=%d balance=%.4f", m.NumGroups, m.NumItems, m.BalanceEfficiency)
	if m.Capacity > 0 {
		text += fmt.Sprintf(" fill=%.4f", m.Fill)
	}
	if m.NumRanks > 0 {
		text += fmt.Sprintf(" ranks=%dx%d rank_balance=%.4f", m.NumRanks, m.MicrobatchesPerRank, m.RankBalanceEfficiency)
	}
	return text + ")"
}

// Close releases the C plan (idempotent): now, or when the calls running
// with it in other goroutines return. Later calls get ErrClosed.
func (p *Plan) Close() error {
	if p != nil {
		p.ref.close()
	}
	return nil
}
