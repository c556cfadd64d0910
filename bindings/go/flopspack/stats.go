package flopspack

import (
	"fmt"
	"runtime"

	"github.com/flopspack/flopspack/bindings/go/internal/capi"
)

// Weighting says what each document weighs in a CDF, quantile, histogram
// or KS distance.
type Weighting int32

const (
	WeightCount  Weighting = 0
	WeightTokens Weighting = 1
	WeightCost   Weighting = 2 // needs a model
)

// Binning of a histogram.
type Binning int32

const (
	BinsLinear Binning = 0
	BinsLog2   Binning = 1
)

// StatsSummary mirrors flopspack_stats_summary.
type StatsSummary struct {
	Count, DistinctLengths        uint64
	Tokens                        int64
	Mean, Stddev                  float64
	Min, Max, P50, P90, P99, P999 int64
	HasCost                       int32
	TotalCost, MeanCost, MaxCost  float64
}

// StatsTail mirrors flopspack_stats_tail.
type StatsTail struct {
	Documents                            uint64
	Tokens                               int64
	Cost                                 float64
	DocumentShare, TokenShare, CostShare float64
}

// StatsComparison mirrors flopspack_stats_comparison.
type StatsComparison struct {
	KsDistance                         float64
	KsLength                           int64
	KsDistanceTokens                   float64
	KsLengthTokens                     int64
	Levels                             []float64
	QuantilesA, QuantilesB             []int64
	FirstDivergentLevel                float64
	TailThreshold                      int64
	TokenShareAboveA, TokenShareAboveB float64
	CostShareAboveA, CostShareAboveB   float64
}

// Stats holds a dataset's exact length histogram (flopspack_stats).
// Immutable; safe for concurrent use.
type Stats struct{ ref cref }

func newStats(h uintptr) *Stats {
	s := &Stats{ref: cref{h: h, destroy: destroyStats}}
	runtime.SetFinalizer(s, (*Stats).Close)
	return s
}

// NewStats builds statistics of the lengths; model may be nil (no costs).
func NewStats(lengths []int64, model *CostModel) (*Stats, error) {
	m, err := modelHandle(model)
	if err != nil {
		return nil, err
	}
	defer model.release()
	var h uintptr
	err = capi.Flopspack_stats_create(lengths, m, &h)
	if err != nil {
		return nil, model.explain(err)
	}
	return newStats(h), nil
}

// NewStatsFromHistogram builds statistics from counts[i] documents of
// length lengths[i].
func NewStatsFromHistogram(lengths []int64, counts []uint64, model *CostModel) (*Stats, error) {
	m, err := modelHandle(model)
	if err != nil {
		return nil, err
	}
	defer model.release()
	var h uintptr
	err = capi.Flopspack_swig_stats_create_from_histogram(lengths, counts, m, &h)
	if err != nil {
		return nil, model.explain(err)
	}
	return newStats(h), nil
}

// StatsOptions mirrors flopspack_stats_options.
type StatsOptions struct {
	// CostCapacity is the training sequence length: a document longer than
	// it is costed as the pieces training sees (floor(length/CostCapacity)
	// pieces of CostCapacity tokens and the remainder). 0 = whole documents.
	CostCapacity int64
}

// NewStatsWithOptions builds statistics of the lengths (counts nil: each
// length once; else counts[i] documents of length lengths[i]) with options
// (flopspack_stats_create_with_options).
func NewStatsWithOptions(lengths []int64, counts []uint64, model *CostModel, options StatsOptions) (*Stats, error) {
	m, err := modelHandle(model)
	if err != nil {
		return nil, err
	}
	defer model.release()
	if counts != nil && len(counts) != len(lengths) {
		return nil, &Error{Status: StatusInvalidArgument, Message: fmt.Sprintf("counts has %d entries for %d lengths", len(counts), len(lengths))}
	}
	var h uintptr
	err = capi.Flopspack_swig_stats_create_with_options(lengths, counts, m, options.CostCapacity, &h)
	if err != nil {
		return nil, model.explain(err)
	}
	return newStats(h), nil
}

func destroyStats(h uintptr) { capi.DeleteFlopspack_stats(capi.SwigcptrFlopspack_stats(h)) }

// handle acquires the C object for a call; pair it with release.
func (s *Stats) handle() (capi.Flopspack_stats, error) {
	if s == nil {
		return nil, closedError("Stats")
	}
	h, err := s.ref.acquire("Stats")
	return capi.SwigcptrFlopspack_stats(h), err
}

func (s *Stats) release() { s.ref.release() }

// Merge returns the statistics of both datasets, exactly.
func (s *Stats) Merge(other *Stats) (*Stats, error) {
	a, err := s.handle()
	if err != nil {
		return nil, err
	}
	defer s.release()
	b, err := other.handle()
	if err != nil {
		return nil, err
	}
	defer other.release()
	var h uintptr
	err = capi.Flopspack_stats_merge(a, b, &h)
	if err != nil {
		return nil, err
	}
	return newStats(h), nil
}

// Summary returns the dataset at a glance.
func (s *Stats) Summary() (StatsSummary, error) {
	h, err := s.handle()
	if err != nil {
		return StatsSummary{}, err
	}
	defer s.release()
	c := capi.NewFlopspack_stats_summary()
	defer capi.DeleteFlopspack_stats_summary(c)
	err = capi.Flopspack_stats_summarize(h, c)
	var out StatsSummary
	if err == nil {
		copyGetters(&out, c)
	}
	return out, err
}

// Quantile is the lower empirical quantile of the length, documents
// weighted as given.
func (s *Stats) Quantile(q float64, weighting Weighting) (float64, error) {
	h, err := s.handle()
	if err != nil {
		return 0, err
	}
	defer s.release()
	var v float64
	err = capi.Flopspack_stats_weighted_quantile(h, int(weighting), q, &v)
	return v, err
}

// CDF is the share of documents (tokens, cost) of length <= length.
func (s *Stats) CDF(length int64, weighting Weighting) (float64, error) {
	h, err := s.handle()
	if err != nil {
		return 0, err
	}
	defer s.release()
	var v float64
	err = capi.Flopspack_stats_cdf(h, int(weighting), length, &v)
	return v, err
}

// HistogramOptions configure Histogram (zero Width = automatic).
type HistogramOptions struct {
	Binning    Binning
	Weighting  Weighting
	Normalized bool
	Width      int64
}

// Histogram returns the bins' upper edges and weights.
func (s *Stats) Histogram(options HistogramOptions) (edges []int64, weights []float64, err error) {
	h, err := s.handle()
	if err != nil {
		return nil, nil, err
	}
	defer s.release()
	o := capi.NewFlopspack_histogram_options()
	defer capi.DeleteFlopspack_histogram_options(o)
	o.SetBinning(int(options.Binning))
	o.SetWeighting(int(options.Weighting))
	o.SetNormalized(b2i(options.Normalized))
	o.SetWidth(options.Width)
	var n uint64
	if err := capi.Flopspack_swig_stats_histogram_size(h, o, &n); err != nil {
		return nil, nil, err
	}
	edges, weights = make([]int64, n), make([]float64, n)
	if err := capi.Flopspack_swig_stats_histogram(h, o, edges, weights); err != nil {
		return nil, nil, err
	}
	return edges, weights, nil
}

// Tail describes the documents strictly longer than threshold.
func (s *Stats) Tail(threshold int64) (StatsTail, error) {
	h, err := s.handle()
	if err != nil {
		return StatsTail{}, err
	}
	defer s.release()
	c := capi.NewFlopspack_stats_tail()
	defer capi.DeleteFlopspack_stats_tail(c)
	err = capi.Flopspack_stats_tail_share(h, threshold, c)
	var out StatsTail
	if err == nil {
		copyGetters(&out, c)
	}
	return out, err
}

// ExpectedMax is the exact expected maximum of draws independent draws of
// a document's cost (its length without a model).
func (s *Stats) ExpectedMax(draws uint64) (float64, error) {
	h, err := s.handle()
	if err != nil {
		return 0, err
	}
	defer s.release()
	var v float64
	err = capi.Flopspack_stats_expected_max(h, draws, &v)
	return v, err
}

// KSDistance is the weighted Kolmogorov-Smirnov distance to other and the
// smallest length where the gap is largest.
func (s *Stats) KSDistance(other *Stats, weighting Weighting) (float64, int64, error) {
	a, err := s.handle()
	if err != nil {
		return 0, 0, err
	}
	defer s.release()
	b, err := other.handle()
	if err != nil {
		return 0, 0, err
	}
	defer other.release()
	var d float64
	var length int64
	err = capi.Flopspack_stats_ks_distance_weighted(a, b, int(weighting), &d, &length)
	return d, length, err
}

// Compare says where two datasets differ.
func (s *Stats) Compare(other *Stats) (StatsComparison, error) {
	a, err := s.handle()
	if err != nil {
		return StatsComparison{}, err
	}
	defer s.release()
	b, err := other.handle()
	if err != nil {
		return StatsComparison{}, err
	}
	defer other.release()
	c := capi.NewFlopspack_stats_comparison()
	defer capi.DeleteFlopspack_stats_comparison(c)
	err = capi.Flopspack_stats_compare(a, b, c)
	if err != nil {
		return StatsComparison{}, err
	}
	var out StatsComparison
	copyGetters(&out, c)
	for i := 0; i < int(capi.FLOPSPACK_STATS_COMPARE_LEVELS); i++ {
		out.Levels = append(out.Levels, c.Level_at(int64(i)))
		out.QuantilesA = append(out.QuantilesA, c.Quantile_a_at(int64(i)))
		out.QuantilesB = append(out.QuantilesB, c.Quantile_b_at(int64(i)))
	}
	return out, nil
}

// Entries returns the distinct lengths (ascending) and their counts.
func (s *Stats) Entries() (lengths []int64, counts []uint64, err error) {
	h, err := s.handle()
	if err != nil {
		return nil, nil, err
	}
	defer s.release()
	var n uint64
	if err := capi.Flopspack_swig_stats_entries_size(h, &n); err != nil {
		return nil, nil, err
	}
	lengths, counts = make([]int64, n), make([]uint64, n)
	if err := capi.Flopspack_swig_stats_entries(h, lengths, counts); err != nil {
		return nil, nil, err
	}
	return lengths, counts, nil
}

// Close releases the statistics (idempotent): now, or when the calls
// running with it in other goroutines return. Later calls get ErrClosed.
func (s *Stats) Close() error {
	if s != nil {
		s.ref.close()
	}
	return nil
}
