// Comparing two length distributions: the Kolmogorov–Smirnov distance
// (count-, token- or cost-weighted) with the length where it is attained,
// and a summary that names where the tails differ.
//
// What: sup_x |F_a(x) - F_b(x)| over every length x, where F(x) is the share
// of documents (tokens, cost) of length <= x. Both CDFs are step functions
// that change only at the two datasets' distinct lengths, so the supremum is
// attained at one of them and a merge walk finds it exactly.
// Complexity: O(k_a + k_b) distinct lengths. Guarantee: exact (up to the
// rounding of the shares); ties in the supremum go to the smallest length.
// Reference: Kolmogorov–Smirnov two-sample statistic, e.g. Conover,
// "Practical Nonparametric Statistics", 3rd ed., 1999, §6.3.
#ifndef FLOPSPACK_STATS_COMPARE_H_
#define FLOPSPACK_STATS_COMPARE_H_

#include <array>
#include <cstdint>

#include "absl/status/statusor.h"
#include "stats/length_stats.h"

namespace flopspack::stats {

struct KsResult {
  double distance = 0;
  int64_t length = 0;  // smallest length where |F_a - F_b| is largest
};

// InvalidArgument when either dataset is empty or, for kCost, lacks costs.
absl::StatusOr<KsResult> KsDistance(const LengthStats& a, const LengthStats& b, Weighting w);

// Quantile levels the comparison reports, in this order.
inline constexpr std::array<double, 6> kComparisonLevels = {0.5, 0.9, 0.95, 0.99, 0.999, 0.9999};
// Relative difference of two quantiles above which a level counts as
// divergent.
inline constexpr double kDivergenceTolerance = 0.05;

struct Comparison {
  KsResult ks_count, ks_tokens;
  std::array<int64_t, kComparisonLevels.size()> quantiles_a{}, quantiles_b{};
  // The lowest level whose quantiles differ by more than
  // kDivergenceTolerance relative to a's (0 when none does).
  double first_divergent_level = 0;
  // a's p99, and the share of each dataset's tokens (cost) in documents
  // longer than it: how much more (or less) of b sits in a's tail.
  int64_t tail_threshold = 0;
  double token_share_above_a = 0, token_share_above_b = 0;
  double cost_share_above_a = 0, cost_share_above_b = 0;  // 0 unless both have costs
};

absl::StatusOr<Comparison> Compare(const LengthStats& a, const LengthStats& b);

}  // namespace flopspack::stats

#endif  // FLOPSPACK_STATS_COMPARE_H_
