// Exact statistics of a dataset's document lengths, optionally with the
// per-document cost of a cost model.
//
// What: the dataset is held as its length histogram, a sorted map from each
// distinct length to its count (lengths are integers, so this is exact and
// usually far smaller than the dataset), with the cost of one document of
// each length and prefix sums of counts, tokens and cost. Everything else —
// moments, lower quantiles, CDFs, tail shares, histograms, order statistics,
// KS distances — is computed from the map.
// Complexity: building O(n + longest) or O(n log n) (stats/histogram.h), or
// O(k log k) from a histogram of k distinct lengths; CDF and quantile
// queries O(log k); merge O(k_a + k_b).
// Guarantee: merging is exact. Merge(a, b) holds exactly the map
// FromHistogram would build from the union, and every derived figure is
// computed from the map in a fixed order, so statistics merged from shards
// equal, bit for bit, those of the whole dataset.
// Reference: order statistics of a discrete distribution, David & Nagaraja,
// "Order Statistics", 3rd ed., 2003, §2.4.
#ifndef FLOPSPACK_STATS_LENGTH_STATS_H_
#define FLOPSPACK_STATS_LENGTH_STATS_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "cost/cost_model.h"

namespace flopspack::stats {

// What each document contributes to a CDF, histogram or quantile.
enum class Weighting { kCount = 0, kTokens = 1, kCost = 2 };

// Documents strictly longer than a threshold and their shares of the whole.
struct TailShare {
  uint64_t documents = 0;
  int64_t tokens = 0;
  double cost = 0;
  double document_share = 0, token_share = 0, cost_share = 0;  // 0 for an empty dataset
};

// Histogram bins. Linear: bin k holds lengths (k*width, (k+1)*width].
// Log2: bin 0 holds {1}, bin k >= 1 holds (2^(k-1), 2^k]. Either way the
// bins run from the one holding length 1 to the one holding the maximum.
enum class Binning { kLinear = 0, kLog2 = 1 };

struct HistogramSpec {
  Binning binning = Binning::kLog2;
  int64_t width = 0;  // linear only; 0 = the smallest power of two giving <= 64 bins
  Weighting weighting = Weighting::kCount;
  bool normalized = false;  // divide by the total weight (shares that sum to 1)
};

class LengthStats {
 public:
  // lengths: every length > 0; n = 0 gives an empty dataset. model may be
  // null (no cost figures); it is not kept: the per-length costs are.
  // cost_capacity > 0 costs each document as training with that sequence
  // length sees it (CostModel::DocumentCostAsTrained: a longer document as
  // its pieces); 0 costs documents whole. Lengths and tokens are unchanged.
  static absl::StatusOr<LengthStats> Create(absl::Span<const int64_t> lengths,
                                            const cost::CostModel* model,
                                            int64_t cost_capacity = 0);
  // From a histogram: counts[i] documents of length lengths[i]. Lengths need
  // not be sorted or distinct (repeated lengths add up); zero counts are
  // allowed and ignored.
  static absl::StatusOr<LengthStats> FromHistogram(absl::Span<const int64_t> lengths,
                                                   absl::Span<const uint64_t> counts,
                                                   const cost::CostModel* model,
                                                   int64_t cost_capacity = 0);
  // The statistics of the union of both datasets. Both must have been built
  // without a model, or with models that agree (same cost on a fixed set of
  // probe lengths and on every length both hold) and the same
  // cost_capacity: else InvalidArgument.
  static absl::StatusOr<LengthStats> Merge(const LengthStats& a, const LengthStats& b);

  uint64_t count() const { return count_; }
  int64_t tokens() const { return tokens_; }
  bool empty() const { return count_ == 0; }
  bool has_cost() const { return has_cost_; }
  // The sequence length costs were computed for (0 = whole documents).
  int64_t cost_capacity() const { return cost_capacity_; }
  double total_cost() const { return total_cost_; }
  // Mean length (0 when empty) and population standard deviation
  // (divides by n, the dataset is the population).
  double mean() const;
  double stddev() const;
  int64_t min() const { return lengths_.empty() ? 0 : lengths_.front(); }
  int64_t max() const { return lengths_.empty() ? 0 : lengths_.back(); }
  double max_cost() const { return max_cost_; }

  // The map: distinct lengths ascending, their counts, and the cost of one
  // document of that length (empty span without a model).
  absl::Span<const int64_t> lengths() const { return lengths_; }
  absl::Span<const uint64_t> counts() const { return counts_; }
  absl::Span<const double> costs() const { return costs_; }

  // Total weight of the whole dataset under w (count, tokens or cost).
  double TotalWeight(Weighting w) const;
  // Share of the weight held by documents of length <= x (0 when empty).
  double Cdf(int64_t x, Weighting w) const;
  // Lower empirical quantile: the smallest length whose CDF (under w) is
  // >= q, with the CDF computed as weight_le / total in double precision.
  // q in [0, 1]; q = 0 gives the minimum. InvalidArgument when empty, q out
  // of range, or w = kCost without a model.
  absl::StatusOr<int64_t> Quantile(double q, Weighting w = Weighting::kCount) const;
  // Documents strictly longer than threshold.
  TailShare Above(int64_t threshold) const;
  // E[max of `draws` iid draws] of the per-document cost (of the length
  // without a model) from the empirical distribution. See order_statistics.h.
  absl::StatusOr<double> ExpectedMax(uint64_t draws) const;

  // Number of bins spec gives for this dataset (0 when empty); OutOfRange
  // for a bad spec.
  absl::StatusOr<size_t> BinCount(const HistogramSpec& spec) const;
  // Fills upper_edges (inclusive upper length of each bin) and weights,
  // both of BinCount(spec) entries.
  absl::Status FillHistogram(const HistogramSpec& spec, absl::Span<int64_t> upper_edges,
                             absl::Span<double> weights) const;

  // Costs of the model on the probe lengths (NaN where the model failed),
  // empty without a model: a fingerprint to tell models apart on merge.
  absl::Span<const double> fingerprint() const { return fingerprint_; }

 private:
  // Builds prefix sums and moments from lengths_/counts_/costs_.
  absl::Status Finish();
  absl::Status Weigh(Weighting w) const;
  // Cumulative weight of the first i+1 distinct lengths.
  double CumWeight(size_t i, Weighting w) const;
  static absl::StatusOr<LengthStats> FromSortedMap(std::vector<int64_t> lengths,
                                                   std::vector<uint64_t> counts,
                                                   const cost::CostModel* model,
                                                   int64_t cost_capacity);

  std::vector<int64_t> lengths_;
  std::vector<uint64_t> counts_;
  std::vector<double> costs_;
  std::vector<uint64_t> cum_counts_;
  std::vector<int64_t> cum_tokens_;
  std::vector<double> cum_costs_;
  std::vector<double> fingerprint_;
  bool has_cost_ = false;
  int64_t cost_capacity_ = 0;
  uint64_t count_ = 0;
  int64_t tokens_ = 0;
  double total_cost_ = 0;
  double max_cost_ = 0;
  double sum_squared_deviation_ = 0;
};

}  // namespace flopspack::stats

#endif  // FLOPSPACK_STATS_LENGTH_STATS_H_
