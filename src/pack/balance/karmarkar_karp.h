// Karmarkar–Karp largest differencing for k-way number partitioning, in
// Korf's multiway form: every item starts as a partition of k subsets (the
// item and k − 1 empty ones); the two partitions with the largest spread
// (largest − smallest subset sum) are repeatedly combined by joining the
// largest subset of one with the smallest of the other, the second largest
// with the second smallest, and so on, until one partition remains.
//
// Complexity: O(n log n) for the order plus O(m log m) per combination with
// m <= min(k, items combined) non-empty subsets, so O(n·min(n, k)·log k)
// in the worst case and near O(n log n) when groups hold many items.
// Memory O(n + k): only non-empty subsets are stored, and subsets are
// linked lists of items, so joining two is O(1).
//
// The balanced variant (equal counts) is the balanced largest differencing
// method: items sorted by cost descending are cut into tuples of k
// consecutive items (padded with zero-cost dummies to a multiple of k), each
// tuple a partition of k one-item subsets; combining then keeps every
// subset's count equal, and dropping the dummies leaves counts that differ
// by at most one.
//
// Guarantee: none better than LPT in the worst case, but for many items per
// group the spread it leaves shrinks like n^(−Θ(log n)) for random inputs,
// far below LPT's.
// References: N. Karmarkar and R. M. Karp, "The differencing method of set
// partitioning", UC Berkeley tech. report UCB/CSD 82/113, 1982; R. E. Korf,
// "A complete anytime algorithm for number partitioning", Artificial
// Intelligence 106, 1998, and "Multi-way number partitioning", IJCAI 2009;
// B. Yakir, "The differencing algorithm LDM for partitioning: a proof of a
// conjecture of Karmarkar and Karp", Math. Oper. Res. 21, 1996 (balanced);
// W. Michiels et al., "Performance ratios for the differencing method",
// ACM Trans. Algorithms 2012.
//
// Determinism: ties in spread go to the partition made first, ties in
// subset sums to the subset whose first-listed item has the lower index.
#ifndef FLOPSPACK_PACK_BALANCE_KARMARKAR_KARP_H_
#define FLOPSPACK_PACK_BALANCE_KARMARKAR_KARP_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace flopspack::pack {

// Returns the group of each item, in [0, k); group 0 is the costliest.
// Precondition: costs finite and >= 0. InvalidArgument for k < 1.
absl::StatusOr<std::vector<int32_t>> AssignKarmarkarKarp(absl::Span<const double> costs, int32_t k);

// As above with equal counts: every group holds floor(n/k) or ceil(n/k)
// items.
absl::StatusOr<std::vector<int32_t>> AssignBalancedKarmarkarKarp(absl::Span<const double> costs,
                                                                 int32_t k);

}  // namespace flopspack::pack

#endif  // FLOPSPACK_PACK_BALANCE_KARMARKAR_KARP_H_
