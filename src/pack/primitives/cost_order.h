// The one cost order of src/pack: item indices by cost descending, ties by
// index ascending. Every LPT-style algorithm (list scheduling, the step
// planner, the bucket sampler's rank assignment, the planner's sequence
// baseline) visits items in this order, so they agree on it bit for bit.
//
// How: below kCostOrderRadixMin items a comparison sort; above, a stable LSD
// radix sort on the IEEE-754 bit patterns, which order like the values for
// finite doubles >= 0 (-0.0 is read as 0.0); complementing them sorts
// descending. Four passes of 16 bits (eight of 8 bits below 2^16 items),
// histograms built in one sweep, and a pass whose digit is the same for
// every item is skipped.
// Complexity: O(n log n) below the threshold, O(n) passes above.
// Guarantee: exact (all 64 bits), stable. Reference: Knuth, TAOCP vol. 3,
// §5.2.5 (radix sorting).
#ifndef FLOPSPACK_PACK_PRIMITIVES_COST_ORDER_H_
#define FLOPSPACK_PACK_PRIMITIVES_COST_ORDER_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/types/span.h"

namespace flopspack::pack {

inline constexpr size_t kCostOrderRadixMin = 512;

// Preconditions: costs finite and >= 0 (or -0.0), costs.size() < 2^31.
std::vector<int32_t> CostDescendingOrder(absl::Span<const double> costs);

// The same order, faster when the costs are a function of lengths bounded by
// max_length that grows with them (every built-in cost model on documents):
// a stable counting sort of the lengths, descending, in O(n + max_length),
// is kept when one sweep confirms it is the cost order (costs non-increasing
// along it, equal costs in index order); otherwise, or when max_length is
// large next to n, the radix sort above. Preconditions: as above, lengths
// of costs.size() in [1, max_length].
std::vector<int32_t> CostDescendingOrder(absl::Span<const double> costs,
                                         absl::Span<const int64_t> lengths, int64_t max_length);

// The order of the overload above with the items' lengths and costs copied
// into it (sorted_lengths[k] = lengths[order[k]], the same for costs), the
// step planner's working arrays. The counting sort writes them as it
// places each item, and checks the order on them sequentially, instead of
// a gather and a check that each read memory at random.
struct SortedItems {
  std::vector<int32_t> order;
  std::vector<int64_t> lengths;
  std::vector<double> costs;
};
SortedItems CostDescendingItems(absl::Span<const double> costs, absl::Span<const int64_t> lengths,
                                int64_t max_length);

}  // namespace flopspack::pack

#endif  // FLOPSPACK_PACK_PRIMITIVES_COST_ORDER_H_
