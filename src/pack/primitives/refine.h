// Bounded local search that lowers the costliest group of an assignment:
// each step takes the costliest group H and, among the lightest groups G
// (up to kRefineCandidates of them, fewer for large groups), the single move of an item from H to G
// or swap of an item of H with a cheaper one of G that leaves
// max(cost H, cost G) lowest; it is applied if that is below the old cost
// of H, and the search stops when no step helps or after max_steps steps.
// Moves and swaps respect the limits: token caps, and with equal counts
// only swaps or moves from a larger to a smaller group.
//
// Complexity per step: O(T·m·log m + log k) for T candidate groups of m
// items (member lists stay sorted by cost, so the best swap partner of each
// item is a binary search), with T·m kept near kRefineWork.
// Guarantee: the costliest group never gets costlier, every step lowers it
// or reduces the number of groups at the top cost, so the result is never
// worse than the input. This is the "move/exchange" neighbourhood of
// scheduling local search (e.g. G. Finn and E. Horowitz, "A linear time
// approximation algorithm for multiprocessor scheduling", BIT 19, 1979).
#ifndef FLOPSPACK_PACK_PRIMITIVES_REFINE_H_
#define FLOPSPACK_PACK_PRIMITIVES_REFINE_H_

#include <cstddef>
#include <cstdint>

#include "absl/types/span.h"
#include "pack/primitives/group_limits.h"

namespace flopspack::pack {

inline constexpr size_t kRefineCandidates = 16;
// Item visits a step aims at: fewer candidate groups when groups are large.
inline constexpr size_t kRefineWork = 4096;

struct RefineStats {
  int64_t steps = 0;  // moves + swaps applied
  int64_t moves = 0;
  int64_t swaps = 0;
};

// Improves group (the group of each item, in [0, k)) in place. Precondition:
// the input assignment already respects limits.
RefineStats Refine(absl::Span<const double> costs, int32_t k, const GroupLimits& limits,
                   absl::Span<int32_t> group, int64_t max_steps);

}  // namespace flopspack::pack

#endif  // FLOPSPACK_PACK_PRIMITIVES_REFINE_H_
