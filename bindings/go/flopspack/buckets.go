package flopspack

import (
	"runtime"

	"github.com/flopspack/flopspack/bindings/go/internal/capi"
)

// OptimizeBuckets returns the numBuckets upper bounds that minimise the
// total padding (exact dynamic programming over the distinct lengths).
func OptimizeBuckets(lengths []int64, numBuckets int) ([]int64, error) {
	if numBuckets < 0 {
		return nil, &Error{Status: StatusInvalidArgument, Message: "numBuckets must not be negative"}
	}
	bounds := make([]int64, numBuckets)
	if err := capi.Flopspack_swig_buckets_optimize(lengths, bounds); err != nil {
		return nil, err
	}
	return bounds, nil
}

// BucketPadding is the total padding when each sample is padded to the
// first bound >= its length.
func BucketPadding(lengths, upperBounds []int64) (int64, error) {
	var padding int64
	err := capi.Flopspack_buckets_padding(lengths, upperBounds, &padding)
	return padding, err
}

// BucketBudget says what limits a padded batch.
type BucketBudget int32

const (
	BudgetPaddedTokens BucketBudget = 0 // batch size x longest sample <= MaxPaddedTokens
	BudgetCost         BucketBudget = 1 // the model's padded-batch cost <= MaxBatchCost
)

// BucketSamplerOptions configure a BucketSampler; start from
// DefaultBucketSamplerOptions and set MaxPaddedTokens (or BudgetCost with
// MaxBatchCost and a model).
type BucketSamplerOptions struct {
	Budget            BucketBudget
	NumBuckets        uint32  // ignored when UpperBounds is given
	DropLast          bool    // drop the surplus batches instead of splitting
	UpperBounds       []int64 // explicit bounds; nil = optimal for the budget
	MaxPaddedTokens   int64
	MaxBatchCost      float64
	NumRanks          uint64
	AccumulationSteps uint64
	Seed              uint64
	// Samples that alone break the budget: OverflowError (default),
	// OverflowTruncate, or OverflowDefer (drop: left out of every epoch,
	// listed by Plan.Deferred).
	Overflow Overflow
}

// DefaultBucketSamplerOptions returns the library's defaults.
func DefaultBucketSamplerOptions() BucketSamplerOptions {
	c := capi.NewFlopspack_bucket_sampler_options()
	defer capi.DeleteFlopspack_bucket_sampler_options(c)
	return BucketSamplerOptions{
		Budget: BucketBudget(c.GetBudget_kind()), NumBuckets: uint32(c.GetNum_buckets()),
		DropLast: c.GetDrop_last() == 1, MaxPaddedTokens: c.GetMax_padded_tokens(),
		MaxBatchCost: c.GetMax_batch_cost(), NumRanks: c.GetNum_ranks(),
		AccumulationSteps: c.GetAccumulation_steps(), Seed: c.GetSeed(),
		Overflow: Overflow(c.GetOverflow()),
	}
}

// BucketSampler makes padded batches from length buckets and arranges them
// into optimizer steps of NumRanks x AccumulationSteps batches
// (flopspack_bucket_sampler). Epochs and steps are pure functions of (seed,
// epoch). Immutable and safe for concurrent use.
type BucketSampler struct {
	ref   cref
	model *CostModel
}

// NewBucketSampler makes a sampler over the samples' lengths; model may be
// nil unless the budget is BudgetCost.
func NewBucketSampler(lengths []int64, options BucketSamplerOptions, model *CostModel) (*BucketSampler, error) {
	m, err := modelHandle(model)
	if err != nil {
		return nil, err
	}
	defer model.release()
	c := capi.NewFlopspack_bucket_sampler_options()
	defer capi.DeleteFlopspack_bucket_sampler_options(c)
	c.SetBudget_kind(int(options.Budget))
	c.SetNum_buckets(uint(options.NumBuckets))
	c.SetDrop_last(b2i(options.DropLast))
	c.SetMax_padded_tokens(options.MaxPaddedTokens)
	c.SetMax_batch_cost(options.MaxBatchCost)
	c.SetNum_ranks(options.NumRanks)
	c.SetAccumulation_steps(options.AccumulationSteps)
	c.SetSeed(options.Seed)
	c.SetOverflow(int(options.Overflow))
	var h uintptr
	err = capi.Flopspack_swig_bucket_sampler_create(c, m, lengths, options.UpperBounds, &h)
	if err != nil {
		return nil, model.explain(err)
	}
	s := &BucketSampler{ref: cref{h: h, destroy: destroyBucketSampler}, model: model}
	runtime.SetFinalizer(s, (*BucketSampler).Close)
	return s, nil
}

func destroyBucketSampler(h uintptr) {
	capi.DeleteFlopspack_bucket_sampler(capi.SwigcptrFlopspack_bucket_sampler(h))
}

// handle acquires the C object for a call; pair it with release.
func (s *BucketSampler) handle() (capi.Flopspack_bucket_sampler, error) {
	if s == nil {
		return nil, closedError("BucketSampler")
	}
	h, err := s.ref.acquire("BucketSampler")
	return capi.SwigcptrFlopspack_bucket_sampler(h), err
}

func (s *BucketSampler) release() { s.ref.release() }

// Epoch returns one epoch: a group per batch, ordered by step, rank and
// accumulation index; group (s*R + r)*A + a has rank r and slot s*A + a.
func (s *BucketSampler) Epoch(epoch uint64) (*Plan, error) {
	h, err := s.handle()
	if err != nil {
		return nil, err
	}
	defer s.release()
	var plan uintptr
	err = capi.Flopspack_bucket_sampler_epoch(h, epoch, &plan)
	if err != nil {
		return nil, s.model.explain(err)
	}
	return newPlan(plan), nil
}

// Step returns one optimizer step of an epoch (NumRanks x A groups).
func (s *BucketSampler) Step(epoch, step uint64) (*Plan, error) {
	h, err := s.handle()
	if err != nil {
		return nil, err
	}
	defer s.release()
	var plan uintptr
	err = capi.Flopspack_bucket_sampler_step(h, epoch, step, &plan)
	if err != nil {
		return nil, s.model.explain(err)
	}
	return newPlan(plan), nil
}

// StepsPerEpoch is the number of optimizer steps of every epoch.
func (s *BucketSampler) StepsPerEpoch() (uint64, error) {
	h, err := s.handle()
	if err != nil {
		return 0, err
	}
	defer s.release()
	var n uint64
	err = capi.Flopspack_bucket_sampler_steps_per_epoch(h, &n)
	return n, err
}

// UpperBounds returns the bucket upper bounds in use.
func (s *BucketSampler) UpperBounds() ([]int64, error) {
	h, err := s.handle()
	if err != nil {
		return nil, err
	}
	defer s.release()
	var view capi.View
	err = capi.Flopspack_bucket_sampler_upper_bounds(h, &view)
	var bounds []int64
	if err == nil {
		bounds = view.Int64s()
	}
	return bounds, err
}

// StepDiversity returns each step's KS distance (token-weighted and
// sample-weighted) to the whole data's length distribution, for a plan of
// this sampler.
func (s *BucketSampler) StepDiversity(plan *Plan) (tokens, samples []float64, err error) {
	h, err := s.handle()
	if err != nil {
		return nil, nil, err
	}
	defer s.release()
	p, err := plan.handle()
	if err != nil {
		return nil, nil, err
	}
	defer plan.release()
	var n uint64
	if err := capi.Flopspack_swig_bucket_sampler_step_count(h, p, &n); err != nil {
		return nil, nil, err
	}
	tokens, samples = make([]float64, n), make([]float64, n)
	if err := capi.Flopspack_swig_bucket_sampler_step_diversity(h, p, tokens, samples); err != nil {
		return nil, nil, err
	}
	return tokens, samples, nil
}

// BucketDiagnostics says what an epoch achieves against targets and what
// limits it (flopspack_bucket_sampler_diagnostics; docs/buckets.md).
type BucketDiagnostics struct {
	Unmet                                              uint32 // BucketTarget* bits missed
	BalanceEfficiency, BalanceShortfall, BalanceBound  float64
	PaddingEfficiency, PaddingShortfall, PaddingBound  float64
	DiversityDistance, DiversityExcess, DiversityFloor float64
	BatchCostCap, ImpliedCostBudget                    float64
	TruncatedItems, DeferredItems                      uint64
	TruncatedTokens, DeferredTokens                    int64
}

// Bits of BucketDiagnostics.Unmet.
const (
	BucketTargetBalance   uint32 = 1
	BucketTargetPadding   uint32 = 2
	BucketTargetDiversity uint32 = 4
)

// Diagnose reports whether epoch meets the targets (step balance >= balance,
// padding efficiency >= padding, token-weighted step KS <= diversity; e.g.
// 0.97, 0.95, 0.1), by how much it misses them, and the bounds that explain it.
func (s *BucketSampler) Diagnose(epoch uint64, balance, padding, diversity float64) (BucketDiagnostics, error) {
	h, err := s.handle()
	if err != nil {
		return BucketDiagnostics{}, err
	}
	defer s.release()
	c := capi.NewFlopspack_bucket_sampler_diagnostics()
	defer capi.DeleteFlopspack_bucket_sampler_diagnostics(c)
	err = capi.Flopspack_bucket_sampler_diagnose(h, epoch, balance, padding, diversity, c)
	var d BucketDiagnostics
	if err == nil {
		copyGetters(&d, c)
	}
	return d, s.model.explain(err)
}

// Close releases the sampler (idempotent): now, or when the calls
// running with it in other goroutines return. Later calls get ErrClosed.
func (s *BucketSampler) Close() error {
	if s != nil {
		s.ref.close()
	}
	return nil
}
