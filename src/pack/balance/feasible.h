// Finding any assignment of items to k groups that respects a hard token cap
// per group (and equal counts when asked): the fallback when a balancer's
// own construction cannot place an item. Cost is ignored here; Refine then
// lowers the costliest group within the caps.
//
// Steps: the necessary conditions (no item above the cap, total tokens
// within k·cap), then best-fit decreasing by tokens (O(n log n + n log k)),
// then a depth-first search over items by tokens descending with symmetric
// groups skipped and capacity pruning, bounded by a node budget. Within the
// budget the search is exact, so "infeasible" is then a proof; beyond it the
// error says the search gave up. Bin packing is NP-hard (Garey & Johnson,
// "Computers and Intractability", 1979), hence the budget.
#ifndef FLOPSPACK_PACK_BALANCE_FEASIBLE_H_
#define FLOPSPACK_PACK_BALANCE_FEASIBLE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "pack/primitives/group_limits.h"

namespace flopspack::pack {

inline constexpr int64_t kFeasibilitySearchNodes = 2'000'000;

// Group of each item, or FailedPrecondition with a message saying why no
// assignment was found. Precondition: limits.has_token_cap(), k >= 1.
absl::StatusOr<std::vector<int32_t>> FindCapFeasibleAssignment(
    size_t n, int32_t k, const GroupLimits& limits, int64_t node_budget = kFeasibilitySearchNodes);

}  // namespace flopspack::pack

#endif  // FLOPSPACK_PACK_BALANCE_FEASIBLE_H_
