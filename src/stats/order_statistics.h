// The exact expected maximum of N independent draws from an empirical
// (discrete) distribution.
//
// What: for values v_1 < ... < v_k with counts c_1..c_k (n = sum c),
// F_j = (c_1 + ... + c_j) / n, the maximum M of N iid draws has
// P(M <= v_j) = F_j^N, so
//   E[M] = sum_j v_j (F_j^N - F_{j-1}^N)
//        = v_1 + sum_{j<k} (v_{j+1} - v_j) (1 - F_j^N)      (summation by parts).
// The second form is what is computed: every term is non-negative, and
// 1 - F_j^N = -expm1(N log F_j) with log F_j = log1p(-s_j), s_j = (n - cum_j)/n
// taken from exact integer counts, so nothing cancels even for N = 10^6 and
// F_j within 1e-12 of 1.
// Complexity: O(k) after sorting. Guarantee: relative error a few ulps per
// term; ties and unsorted input are handled by the caller sorting.
// Reference: David & Nagaraja, "Order Statistics", 3rd ed., 2003, eq. 2.4.1.
#ifndef FLOPSPACK_STATS_ORDER_STATISTICS_H_
#define FLOPSPACK_STATS_ORDER_STATISTICS_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace flopspack::stats {

// values ascending (ties allowed), counts[i] > 0 or counts empty (= all 1),
// draws >= 1. InvalidArgument for no values, draws = 0, or unsorted values.
absl::StatusOr<double> ExpectedMaxSorted(absl::Span<const double> values,
                                         absl::Span<const uint64_t> counts, uint64_t draws);

// P(max of N draws > v_j) = 1 - F^N for F = cum / n, computed without
// cancellation (cum <= n, n > 0).
double ProbabilityMaxAbove(uint64_t cum, uint64_t n, uint64_t draws);

}  // namespace flopspack::stats

#endif  // FLOPSPACK_STATS_ORDER_STATISTICS_H_
