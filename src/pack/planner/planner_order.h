// Order of the microbatches within one rank (which slot runs first).
//
// Pipeline-parallel and gradient-accumulation schedules run slot j of every
// rank at about the same time, so the cost of slot j should be even across
// ranks. kDescending puts each rank's heaviest microbatch in slot 0, its
// second heaviest in slot 1, ...: slot j then holds every rank's j-th
// heaviest, and since rank totals are balanced these are close. kLightEnds
// is verl's arrangement: the lightest microbatches at both ends, the
// heaviest in the middle, which shortens pipeline warm-up and cool-down.
// kAsPlanned keeps the planner's order. O(M log M) per rank; ties by
// microbatch index.
#ifndef FLOPSPACK_PACK_PLANNER_PLANNER_ORDER_H_
#define FLOPSPACK_PACK_PLANNER_PLANNER_ORDER_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"

namespace flopspack::pack {

enum class SlotOrder { kDescending = 0, kLightEnds = 1, kAsPlanned = 2 };

// For one rank's microbatch costs, returns perm with perm[slot] = the index
// of the microbatch that runs in that slot.
std::vector<int32_t> OrderSlots(absl::Span<const double> costs, SlotOrder order);

}  // namespace flopspack::pack

#endif  // FLOPSPACK_PACK_PLANNER_PLANNER_ORDER_H_
