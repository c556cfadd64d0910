// Diversity distance: how far the length mix of a subset of a dataset (an
// optimizer step of a plan) is from the whole dataset's. The one-sample
// special case of stats/compare.h's KsDistance (a subset's lengths are
// among the dataset's), tabulated once so each subset costs O(k log k).
//
// What: the Kolmogorov–Smirnov distance sup_x |G(x) - F(x)| between the
// subset's and the dataset's length distributions, token-weighted (F(x) =
// share of tokens from samples of length <= x, since the loss is averaged
// over tokens) and sample-weighted, as docs/buckets.md ("Metrics") defines.
// How: the dataset's two CDFs are tabulated once over its D distinct lengths;
// a subset's distance is a sweep over its sorted distinct lengths. Between
// two of the subset's lengths G is constant and F increasing, so the supremum
// is reached at the subset's lengths or just before them (the dataset's
// previous distinct length).
// Complexity: O(n + D) (stats/histogram.h) to build;
// O(k log k) per subset of k items. Guarantee: exact up to floating-point
// rounding; sums in a fixed order. Reference: Kolmogorov (1933), Smirnov
// (1948); the two-sample statistic evaluated at the union of jump points.
#ifndef FLOPSPACK_STATS_LENGTH_REFERENCE_H_
#define FLOPSPACK_STATS_LENGTH_REFERENCE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace flopspack::stats {

// The two distances of one subset; 0 = the same distribution.
struct DiversityDistance {
  double tokens = 0;
  double samples = 0;
};

// The dataset a subset is compared with.
class LengthReference {
 public:
  // Validates lengths (positive; totals fit int64).
  static absl::StatusOr<LengthReference> Create(absl::Span<const int64_t> lengths);

  size_t num_items() const { return rank_.size(); }
  size_t num_distinct() const { return values_.size(); }

  // Distances of the multiset {lengths[i] : i in items}. Precondition: every
  // item < num_items(). An empty subset has distance 1 (it matches nothing).
  // scratch is reused between calls to avoid allocation.
  DiversityDistance Distance(absl::Span<const int64_t> items, std::vector<uint32_t>& scratch) const;

 private:
  LengthReference() = default;
  std::vector<int64_t> values_;     // distinct lengths, ascending
  std::vector<uint32_t> rank_;      // per item: index of its length in values_
  std::vector<double> token_cdf_;   // share of tokens with length <= values_[d]
  std::vector<double> sample_cdf_;  // share of samples with length <= values_[d]
};

}  // namespace flopspack::stats

#endif  // FLOPSPACK_STATS_LENGTH_REFERENCE_H_
