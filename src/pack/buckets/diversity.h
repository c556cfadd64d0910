// Diversity distance: how far the length mix of a subset of the data (an
// optimizer step) is from the whole dataset's.
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
// Complexity: O(n + D) (plus a sort when lengths exceed 4M) to build;
// O(k log k) per subset of k items. Guarantee: exact up to floating-point
// rounding; sums in a fixed order. Reference: Kolmogorov (1933), Smirnov
// (1948); the two-sample statistic evaluated at the union of jump points.
#ifndef FLOPSPACK_PACK_BUCKETS_DIVERSITY_H_
#define FLOPSPACK_PACK_BUCKETS_DIVERSITY_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "pack/primitives/plan.h"

namespace flopspack::pack {

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

// Per-step distances of a plan whose groups carry (rank, slot): the step of
// a group is slot / slots_per_step and holds every rank's groups of that
// step. Steps without items are skipped. Errors: a plan without slots, an
// item outside the reference, slots_per_step < 1.
absl::StatusOr<std::vector<DiversityDistance>> StepDistances(const Plan& plan,
                                                             const LengthReference& reference,
                                                             int64_t slots_per_step);

// Means of per-step distances (fixed summation order); {0, 0} when empty.
DiversityDistance MeanDistance(absl::Span<const DiversityDistance> distances);

}  // namespace flopspack::pack

#endif  // FLOPSPACK_PACK_BUCKETS_DIVERSITY_H_
