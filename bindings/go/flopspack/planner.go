package flopspack

import (
	"fmt"
	"runtime"

	"github.com/flopspack/flopspack/bindings/go/internal/capi"
)

// StepAlgorithm says how PlanStep assigns documents.
type StepAlgorithm int32

const (
	StepDocuments StepAlgorithm = 0 // cost balance under the cap (default)
	StepRandom    StepAlgorithm = 1 // concatenate, cut, deal at random (baseline)
	StepTokens    StepAlgorithm = 2 // balance token counts instead of cost
	StepSequences StepAlgorithm = 3 // pre-pack sequences, then LPT
)

// SlotOrder says which microbatch of a rank runs in which slot.
type SlotOrder int32

const (
	SlotDescending SlotOrder = 0 // heaviest first (default)
	SlotLightEnds  SlotOrder = 1 // lightest at both ends
	SlotAsPlanned  SlotOrder = 2
)

// Sync says how the trainer synchronizes, i.e. what PlanStep balances.
type Sync int32

const (
	SyncStep       Sync = 0 // once per step: rank totals (default)
	SyncMicrobatch Sync = 1 // FSDP / ZeRO-3: every slot across ranks
)

// PipelineSchedule is the schedule of each rank's pipeline replica.
type PipelineSchedule int32

const (
	Pipeline1F1B PipelineSchedule = 0 // PipeDream-Flush / Megatron (default)
)

// StepOptions configure PlanStep and a StepPlanner; start from
// DefaultStepOptions and set NumRanks and MaxTokensPerMicrobatch.
type StepOptions struct {
	NumRanks               uint32
	MicrobatchesPerRank    uint32 // 0 = the fewest that hold the batch
	Algorithm              StepAlgorithm
	MaxTokensPerMicrobatch int64
	Seed                   uint64
	Ordering               SlotOrder
	Overflow               Overflow // OverflowError, OverflowSplit or OverflowDefer
	Sync                   Sync
	PipelineStages         uint32 // per replica; 0 or 1 = none, at most 1024
	PipelineSchedule       PipelineSchedule
	// GPUs per context-parallel group: 0 or 1 = none, at most 65,536. The
	// cap stays per GPU: a microbatch holds ContextParallelSize x
	// MaxTokensPerMicrobatch tokens and costs its slowest CP rank under
	// ContextParallelLayout (default CpDocumentHeadTail).
	ContextParallelSize   uint32
	ContextParallelLayout CpLayout
}

// DefaultStepOptions returns the library's defaults.
func DefaultStepOptions() StepOptions {
	c := capi.NewFlopspack_step_options()
	defer capi.DeleteFlopspack_step_options(c)
	return StepOptions{
		NumRanks: uint32(c.GetNum_ranks()), MicrobatchesPerRank: uint32(c.GetMicrobatches_per_rank()),
		Algorithm: StepAlgorithm(c.GetAlgorithm()), MaxTokensPerMicrobatch: c.GetMax_tokens_per_microbatch(),
		Seed: c.GetSeed(), Ordering: SlotOrder(c.GetOrdering()), Overflow: Overflow(c.GetOverflow()),
		Sync: Sync(c.GetSync()), PipelineStages: uint32(c.GetPipeline_stages()),
		PipelineSchedule:      PipelineSchedule(c.GetPipeline_schedule()),
		ContextParallelSize:   uint32(c.GetContext_parallel_size()),
		ContextParallelLayout: CpLayout(c.GetContext_parallel_layout()),
	}
}

func (o StepOptions) toC() capi.Flopspack_step_options {
	c := capi.NewFlopspack_step_options()
	c.SetNum_ranks(uint(o.NumRanks))
	c.SetMicrobatches_per_rank(uint(o.MicrobatchesPerRank))
	c.SetAlgorithm(int(o.Algorithm))
	c.SetMax_tokens_per_microbatch(o.MaxTokensPerMicrobatch)
	c.SetSeed(o.Seed)
	c.SetOrdering(int(o.Ordering))
	c.SetOverflow(int(o.Overflow))
	c.SetSync(int(o.Sync))
	c.SetPipeline_stages(uint(o.PipelineStages))
	c.SetPipeline_schedule(int(o.PipelineSchedule))
	c.SetContext_parallel_size(uint(o.ContextParallelSize))
	c.SetContext_parallel_layout(int(o.ContextParallelLayout))
	return c
}

// PlanStep plans one step: document i (lengths[i] tokens) is item i,
// balanced by the model's cost onto NumRanks x M microbatches under the cap.
// Groups are rank-major; each has its rank and slot.
func PlanStep(lengths []int64, model *CostModel, options StepOptions) (*Plan, error) {
	m, err := model.handle()
	if err != nil {
		return nil, err
	}
	defer model.release()
	c := options.toC()
	defer capi.DeleteFlopspack_step_options(c)
	var h uintptr
	err = capi.Flopspack_plan_step(c, m, lengths, &h)
	if err != nil {
		return nil, model.explain(err)
	}
	return newPlan(h), nil
}

// PlanStepWithExtraCosts is PlanStep where document i costs the model's
// cost of its tokens plus extraCosts[i] (finite, non-negative; a vision
// encoder's work on its images, say). nil = none: the same plan as PlanStep.
// A split document's pieces share its extra cost by tokens.
func PlanStepWithExtraCosts(lengths []int64, extraCosts []float64, model *CostModel, options StepOptions) (*Plan, error) {
	if extraCosts == nil {
		return PlanStep(lengths, model, options)
	}
	if err := checkExtraCostsLength(extraCosts, lengths); err != nil {
		return nil, err
	}
	m, err := model.handle()
	if err != nil {
		return nil, err
	}
	defer model.release()
	c := options.toC()
	defer capi.DeleteFlopspack_step_options(c)
	var h uintptr
	err = capi.Flopspack_swig_plan_step_with_extra_costs(c, m, lengths, extraCosts, &h)
	if err != nil {
		return nil, model.explain(err)
	}
	return newPlan(h), nil
}

// StepPlannerOptions configure a StepPlanner's queue; see
// DefaultStepPlannerOptions.
type StepPlannerOptions struct {
	MaxDeferSteps      uint32 // how long an outlier may wait
	TokensPerStep      int64  // 0 = NumRanks x M x cap
	OutlierMinTokens   int64  // 0 = no outlier queue
	MaxOutliersPerStep int64  // 0 = NumRanks
}

// DefaultStepPlannerOptions returns the library's defaults.
func DefaultStepPlannerOptions() StepPlannerOptions {
	c := capi.NewFlopspack_step_planner_options()
	defer capi.DeleteFlopspack_step_planner_options(c)
	return StepPlannerOptions{MaxDeferSteps: uint32(c.GetMax_defer_steps()), TokensPerStep: c.GetTokens_per_step(),
		OutlierMinTokens: c.GetOutlier_min_tokens(), MaxOutliersPerStep: c.GetMax_outliers_per_step()}
}

// Pending is what a StepPlanner holds.
type Pending struct {
	Documents uint64
	Tokens    int64
	Steps     uint64
}

// StepPlanner is the stateful planner of a training loop
// (flopspack_step_planner): push documents as they stream in, take one plan
// per step with Next. Items are push ids. One goroutine at a time.
type StepPlanner struct {
	ref   cref
	model *CostModel
}

func newStepPlanner(h uintptr, model *CostModel) *StepPlanner {
	p := &StepPlanner{ref: cref{h: h, destroy: destroyStepPlanner}, model: model}
	runtime.SetFinalizer(p, (*StepPlanner).Close)
	return p
}

// NewStepPlanner makes a planner.
func NewStepPlanner(model *CostModel, options StepOptions, planner StepPlannerOptions) (*StepPlanner, error) {
	m, err := model.handle()
	if err != nil {
		return nil, err
	}
	defer model.release()
	c := options.toC()
	defer capi.DeleteFlopspack_step_options(c)
	p := capi.NewFlopspack_step_planner_options()
	defer capi.DeleteFlopspack_step_planner_options(p)
	p.SetMax_defer_steps(uint(planner.MaxDeferSteps))
	p.SetTokens_per_step(planner.TokensPerStep)
	p.SetOutlier_min_tokens(planner.OutlierMinTokens)
	p.SetMax_outliers_per_step(planner.MaxOutliersPerStep)
	var h uintptr
	err = capi.Flopspack_step_planner_create(c, p, m, &h)
	if err != nil {
		return nil, err
	}
	return newStepPlanner(h, model), nil
}

// RestoreStepPlanner makes a planner from bytes made by Save, with the same
// model; it produces exactly the plans the saved one would have.
func RestoreStepPlanner(state []byte, model *CostModel) (*StepPlanner, error) {
	m, err := model.handle()
	if err != nil {
		return nil, err
	}
	defer model.release()
	var h uintptr
	err = capi.Flopspack_swig_step_planner_restore(state, m, &h)
	if err != nil {
		return nil, err
	}
	return newStepPlanner(h, model), nil
}

func destroyStepPlanner(h uintptr) {
	capi.DeleteFlopspack_step_planner(capi.SwigcptrFlopspack_step_planner(h))
}

// handle acquires the C object for a call; pair it with release.
func (p *StepPlanner) handle() (capi.Flopspack_step_planner, error) {
	if p == nil {
		return nil, closedError("StepPlanner")
	}
	h, err := p.ref.acquire("StepPlanner")
	return capi.SwigcptrFlopspack_step_planner(h), err
}

func (p *StepPlanner) release() { p.ref.release() }

// Push appends documents (all or none) and returns the id of the first.
func (p *StepPlanner) Push(lengths []int64) (int64, error) {
	h, err := p.handle()
	if err != nil {
		return 0, err
	}
	defer p.release()
	var first int64
	err = capi.Flopspack_step_planner_push(h, lengths, &first)
	return first, err
}

// PushWithExtraCosts is Push where document i also carries extraCosts[i]
// (finite, non-negative; a vision encoder's work on its images, say), added
// to the model's cost of its tokens and kept while it waits: a step plans
// its documents as PlanStepWithExtraCosts would, documents pushed without
// counting 0. nil = none: the same as Push. All or none.
func (p *StepPlanner) PushWithExtraCosts(lengths []int64, extraCosts []float64) (int64, error) {
	if extraCosts == nil {
		return p.Push(lengths)
	}
	if err := checkExtraCostsLength(extraCosts, lengths); err != nil {
		return 0, err
	}
	h, err := p.handle()
	if err != nil {
		return 0, err
	}
	defer p.release()
	var first int64
	err = capi.Flopspack_swig_step_planner_push_with_extra_costs(h, lengths, extraCosts, &first)
	return first, err
}

// Next plans the next step from the queued documents.
func (p *StepPlanner) Next() (*Plan, error) {
	h, err := p.handle()
	if err != nil {
		return nil, err
	}
	defer p.release()
	var plan uintptr
	err = capi.Flopspack_step_planner_next(h, &plan)
	if err != nil {
		return nil, p.model.explain(err)
	}
	return newPlan(plan), nil
}

// Pending returns the queued documents and tokens and the steps planned.
func (p *StepPlanner) Pending() (Pending, error) {
	h, err := p.handle()
	if err != nil {
		return Pending{}, err
	}
	defer p.release()
	var out Pending
	err = capi.Flopspack_step_planner_pending(h, &out.Documents, &out.Tokens, &out.Steps)
	return out, err
}

// Save returns the whole state as bytes (versioned, checksummed).
func (p *StepPlanner) Save() ([]byte, error) {
	h, err := p.handle()
	if err != nil {
		return nil, err
	}
	defer p.release()
	var size uint64
	if err := capi.Flopspack_step_planner_save_size(h, &size); err != nil {
		return nil, err
	}
	buffer := make([]byte, size)
	var written uint64
	if err := capi.Flopspack_swig_step_planner_save(h, buffer, &written); err != nil {
		return nil, err
	}
	return buffer[:written], nil
}

// Close releases the planner (idempotent): now, or when the calls
// running with it in other goroutines return. Later calls get ErrClosed.
func (p *StepPlanner) Close() error {
	if p != nil {
		p.ref.close()
	}
	return nil
}

// MultimodalCosts maps multimodal documents (text tokens, images, patches
// per image; one entry each per document) to the tokens the language model
// sees (text + images x patches) and the encoder's cost of the images
// (images x the encoder's document cost of the patches): pass them to
// PlanStepWithExtraCosts. The encoder is typically a transformer model with
// Causal false and VocabSize 0.
func MultimodalCosts(encoder *CostModel, textTokens, images, patchesPerImage []int64) ([]int64, []float64, error) {
	if len(images) != len(textTokens) || len(patchesPerImage) != len(textTokens) {
		return nil, nil, &Error{Status: StatusInvalidArgument,
			Message: fmt.Sprintf("images has %d entries and patches_per_image %d for %d text_tokens",
				len(images), len(patchesPerImage), len(textTokens))}
	}
	m, err := encoder.handle()
	if err != nil {
		return nil, nil, err
	}
	defer encoder.release()
	tokens := make([]int64, len(textTokens))
	extra := make([]float64, len(textTokens))
	if err := capi.Flopspack_swig_multimodal_costs(m, textTokens, images, patchesPerImage, tokens, extra); err != nil {
		return nil, nil, encoder.explain(err)
	}
	return tokens, extra, nil
}

// StepContext plans step after step with the planner's working storage
// kept between calls (flopspack_step_context), and the arrays of closed
// plans reused, so the first call costs what later ones do (call Reserve
// once with the expected batch size). Its plans are PlanStep's, bit for
// bit. One goroutine at a time; its plans may outlive it.
type StepContext struct {
	ref cref
}

// NewStepContext makes an empty context.
func NewStepContext() (*StepContext, error) {
	var h uintptr
	if err := capi.Flopspack_step_context_create(&h); err != nil {
		return nil, err
	}
	c := &StepContext{ref: cref{h: h, destroy: destroyStepContext}}
	runtime.SetFinalizer(c, (*StepContext).Close)
	return c, nil
}

func destroyStepContext(h uintptr) {
	capi.DeleteFlopspack_step_context(capi.SwigcptrFlopspack_step_context(h))
}

func (c *StepContext) handle() (capi.Flopspack_step_context, error) {
	if c == nil {
		return nil, closedError("StepContext")
	}
	h, err := c.ref.acquire("StepContext")
	return capi.SwigcptrFlopspack_step_context(h), err
}

func (c *StepContext) release() { c.ref.release() }

// Reserve sizes the context for steps of up to `documents` documents under
// these options by planning a representative step once and keeping its
// storage. A negative count is an error with StatusInvalidArgument.
func (c *StepContext) Reserve(model *CostModel, documents int, options StepOptions) error {
	if documents < 0 {
		return &Error{Status: StatusInvalidArgument, Message: "documents must not be negative"}
	}
	h, err := c.handle()
	if err != nil {
		return err
	}
	defer c.release()
	m, err := model.handle()
	if err != nil {
		return err
	}
	defer model.release()
	o := options.toC()
	defer capi.DeleteFlopspack_step_options(o)
	if err := capi.Flopspack_step_context_reserve(h, o, m, int64(documents)); err != nil {
		return model.explain(err)
	}
	return nil
}

// PlanStep is the package's PlanStep (same arguments, same plan) on the
// context's storage. Closing a plan gives its arrays back to the context.
func (c *StepContext) PlanStep(lengths []int64, model *CostModel, options StepOptions) (*Plan, error) {
	h, err := c.handle()
	if err != nil {
		return nil, err
	}
	defer c.release()
	m, err := model.handle()
	if err != nil {
		return nil, err
	}
	defer model.release()
	o := options.toC()
	defer capi.DeleteFlopspack_step_options(o)
	var plan uintptr
	if err := capi.Flopspack_plan_step_in_context(h, o, m, lengths, &plan); err != nil {
		return nil, model.explain(err)
	}
	return newPlan(plan), nil
}

// KeptBytes returns the bytes of storage the context holds for reuse now.
func (c *StepContext) KeptBytes() (uint64, error) {
	h, err := c.handle()
	if err != nil {
		return 0, err
	}
	defer c.release()
	return uint64(capi.Flopspack_step_context_kept_bytes(h)), nil
}

// Close releases the context (idempotent); plans it made stay valid.
func (c *StepContext) Close() error {
	if c != nil {
		c.ref.close()
	}
	return nil
}
