#include "pack/planner/planner_order.h"

#include <algorithm>
#include <numeric>

namespace flopspack::pack {

std::vector<int32_t> OrderSlots(absl::Span<const double> costs, SlotOrder order) {
  const int32_t m = static_cast<int32_t>(costs.size());
  std::vector<int32_t> by_cost(m);
  std::iota(by_cost.begin(), by_cost.end(), 0);
  if (order == SlotOrder::kAsPlanned) return by_cost;
  // Heaviest first, ties by index.
  std::sort(by_cost.begin(), by_cost.end(), [&](int32_t a, int32_t b) {
    return costs[a] != costs[b] ? costs[a] > costs[b] : a < b;
  });
  if (order == SlotOrder::kDescending) return by_cost;
  // Light ends: walking from the lightest up, fill slots 0, m-1, 1, m-2, ...
  std::vector<int32_t> perm(m);
  int32_t front = 0, back = m - 1;
  for (int32_t k = 0; k < m; ++k) {
    const int32_t mb = by_cost[m - 1 - k];
    if (k % 2 == 0) {
      perm[front++] = mb;
    } else {
      perm[back--] = mb;
    }
  }
  return perm;
}

}  // namespace flopspack::pack
