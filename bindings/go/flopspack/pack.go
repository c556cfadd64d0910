package flopspack

import "github.com/flopspack/flopspack/bindings/go/internal/capi"

// PackAlgorithm says how Pack places documents.
type PackAlgorithm int32

const (
	PackBestFitDecreasing  PackAlgorithm = 0 // default
	PackFirstFitDecreasing PackAlgorithm = 1
	PackNextFit            PackAlgorithm = 2 // concatenate in input order
	PackShuffledFirstFit   PackAlgorithm = 3 // first fit in a seeded random order
)

// PackOptions configure Pack; Capacity is required.
type PackOptions struct {
	Algorithm PackAlgorithm
	Capacity  int64
	Overflow  Overflow // OverflowError (default), OverflowTruncate or OverflowSplit
	Seed      uint64
}

// DefaultPackOptions returns the library's defaults with this capacity.
func DefaultPackOptions(capacity int64) PackOptions {
	c := capi.NewFlopspack_pack_options()
	defer capi.DeleteFlopspack_pack_options(c)
	return PackOptions{Algorithm: PackAlgorithm(c.GetAlgorithm()), Capacity: capacity,
		Overflow: Overflow(c.GetOverflow()), Seed: c.GetSeed()}
}

// Pack puts documents into sequences of Capacity tokens. Group g is a
// sequence: document indices in placement order with the tokens each
// contributes. model nil = cost is tokens.
func Pack(lengths []int64, options PackOptions, model *CostModel) (*Plan, error) {
	return PackWithExtraCosts(lengths, nil, options, model)
}

// PackWithExtraCosts is Pack where a sequence also costs the extra costs of
// its documents (finite, non-negative; a split or truncated document's
// pieces carry theirs by tokens). Placement is by tokens, as in Pack; nil =
// none: the same plan as Pack.
func PackWithExtraCosts(lengths []int64, extraCosts []float64, options PackOptions, model *CostModel) (*Plan, error) {
	// nil: no extra costs; the wrapper passes NULL, the plain pack.
	if extraCosts != nil {
		if err := checkExtraCostsLength(extraCosts, lengths); err != nil {
			return nil, err
		}
	}
	m, err := modelHandle(model)
	if err != nil {
		return nil, err
	}
	defer model.release()
	c := capi.NewFlopspack_pack_options()
	defer capi.DeleteFlopspack_pack_options(c)
	c.SetAlgorithm(int(options.Algorithm))
	c.SetCapacity(options.Capacity)
	c.SetOverflow(int(options.Overflow))
	c.SetSeed(options.Seed)
	var h uintptr
	err = capi.Flopspack_swig_pack_with_extra_costs(c, m, lengths, extraCosts, &h)
	if err != nil {
		return nil, model.explain(err)
	}
	return newPlan(h), nil
}

// BalanceAlgorithm says how Balance assigns items.
type BalanceAlgorithm int32

const (
	BalanceAuto          BalanceAlgorithm = 0 // by shape (default)
	BalanceGreedy        BalanceAlgorithm = 1 // input order, cheapest group (baseline)
	BalanceLPT           BalanceAlgorithm = 2
	BalanceKarmarkarKarp BalanceAlgorithm = 3
)

// BalanceOptions configure Balance; NumGroups is required.
type BalanceOptions struct {
	Algorithm         BalanceAlgorithm
	NumGroups         int64
	EqualCount        bool
	Refine            bool
	MaxTokensPerGroup int64 // needs tokens; 0 = no cap
	MaxRefineSteps    int64
	Seed              uint64
}

// DefaultBalanceOptions returns the library's defaults for numGroups groups.
func DefaultBalanceOptions(numGroups int64) BalanceOptions {
	c := capi.NewFlopspack_balance_options()
	defer capi.DeleteFlopspack_balance_options(c)
	return BalanceOptions{Algorithm: BalanceAlgorithm(c.GetAlgorithm()), NumGroups: numGroups,
		EqualCount: c.GetEqual_count() == 1, Refine: c.GetRefine() == 1,
		MaxTokensPerGroup: c.GetMax_tokens_per_group(), MaxRefineSteps: c.GetMax_refine_steps(), Seed: c.GetSeed()}
}

// Balance splits items with costs (and optional token counts, nil = none)
// into NumGroups groups minimising the costliest.
func Balance(costs []float64, tokens []int64, options BalanceOptions) (*Plan, error) {
	c := capi.NewFlopspack_balance_options()
	defer capi.DeleteFlopspack_balance_options(c)
	c.SetAlgorithm(int(options.Algorithm))
	c.SetNum_groups(options.NumGroups)
	c.SetEqual_count(b2i(options.EqualCount))
	c.SetRefine(b2i(options.Refine))
	c.SetMax_tokens_per_group(options.MaxTokensPerGroup)
	c.SetMax_refine_steps(options.MaxRefineSteps)
	c.SetSeed(options.Seed)
	var h uintptr
	if err := capi.Flopspack_swig_balance(c, costs, tokens, &h); err != nil {
		return nil, err
	}
	return newPlan(h), nil
}
