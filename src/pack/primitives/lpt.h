// List scheduling for multiway number partitioning: each item, in turn,
// goes to the group with the smallest cost that may still take it (equal
// counts, slots, token cap); ties go to the lowest group index. The one LPT
// of the library: balance, the step planner's sequence baseline, the bucket
// sampler's rank assignment and the simulator's token balancing call it.
//
//   AssignGreedy    items in the given order (Graham's list scheduling; the
//                   baseline): O(n log k); max group <= (2 − 1/k)·OPT.
//   AssignLpt       items by cost descending, ties by index (Longest
//                   Processing Time first, cost_order.h): O(n log n +
//                   n log k); max group <= (4/3 − 1/(3k))·OPT without limits.
//   AssignLptSlots  LPT onto k groups of `slots` slots each (a rank with M
//                   microbatches): the same order and bound among the items
//                   placed.
// With a token cap a group that cannot take an item is skipped for that
// item only, which costs up to O(k) per item when caps are tight; a group
// that is full on count (equal counts, slots) leaves the heap for good.
// Reference: R. L. Graham, "Bounds on multiprocessing timing anomalies",
// SIAM J. Appl. Math. 17(2), 1969.
#ifndef FLOPSPACK_PACK_PRIMITIVES_LPT_H_
#define FLOPSPACK_PACK_PRIMITIVES_LPT_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "pack/primitives/cost_order.h"
#include "pack/primitives/group_limits.h"

namespace flopspack::pack {

// Returns the group of each item, in [0, k). Preconditions: k >= 1, costs
// finite and >= 0, limits.tokens empty or of size costs.size(). Returns
// FailedPrecondition naming the item when no group may take it (the limits
// may still admit an assignment that list scheduling did not find), unless
// limits.allow_unplaced, which leaves such items at -1.
absl::StatusOr<std::vector<int32_t>> AssignGreedy(absl::Span<const double> costs, int32_t k,
                                                  const GroupLimits& limits = {});
absl::StatusOr<std::vector<int32_t>> AssignLpt(absl::Span<const double> costs, int32_t k,
                                               const GroupLimits& limits = {});

// LPT onto k groups of `slots` slots: for each item its slot g * slots + j
// (the j-th item group g received), or -1 when every slot was taken before
// its turn. Preconditions: k >= 1, slots >= 1, k * slots < 2^31.
std::vector<int32_t> AssignLptSlots(absl::Span<const double> costs, int32_t k, int64_t slots);

// List scheduling of the items in `order` (distinct indices into costs);
// items not in order get -1. Every function above calls this.
absl::StatusOr<std::vector<int32_t>> ListSchedule(absl::Span<const double> costs,
                                                  absl::Span<const int32_t> order, int32_t k,
                                                  const GroupLimits& limits);

}  // namespace flopspack::pack

#endif  // FLOPSPACK_PACK_PRIMITIVES_LPT_H_
