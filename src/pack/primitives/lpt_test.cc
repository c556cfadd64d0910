#include "pack/primitives/lpt.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include "gtest/gtest.h"
#include "util/random.h"

namespace flopspack::pack {
namespace {

// LPT onto k groups of `slots` slots, written the plain way: sort, then
// each item to the least loaded group (ties to the lowest index) that still
// has a slot.
std::vector<int32_t> ReferenceSlots(const std::vector<double>& costs, int32_t k, int64_t slots) {
  std::vector<int32_t> order(costs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return costs[a] > costs[b]; });
  std::vector<double> load(k, 0.0);
  std::vector<int64_t> taken(k, 0);
  std::vector<int32_t> slot(costs.size(), -1);
  for (int32_t item : order) {
    int32_t best = -1;
    for (int32_t g = 0; g < k; ++g) {
      if (taken[g] < slots && (best < 0 || load[g] < load[best])) best = g;
    }
    if (best < 0) break;
    slot[item] = static_cast<int32_t>(best * slots + taken[best]++);
    load[best] += costs[item];
  }
  return slot;
}

TEST(LptSlotsTest, MatchesThePlainAlgorithm) {
  util::Rng rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    const int32_t k = 1 + static_cast<int32_t>(rng.Below(9));
    const int64_t slots = 1 + static_cast<int64_t>(rng.Below(5));
    // Fewer, exactly as many, and more items than slots; many ties.
    std::vector<double> costs(rng.Below(static_cast<uint64_t>(k * slots) * 2 + 2));
    for (double& c : costs) c = static_cast<double>(rng.Below(6)) * (rng.Below(2) ? 1.5 : 1.0);
    ASSERT_EQ(AssignLptSlots(costs, k, slots), ReferenceSlots(costs, k, slots))
        << "trial " << trial << " k " << k << " slots " << slots;
  }
}

TEST(LptSlotsTest, EverySlotUsedOnceAndTheCostliestPlaced) {
  util::Rng rng(8);
  std::vector<double> costs(1000);
  for (double& c : costs) c = rng.Uniform() * 100;
  const int32_t k = 16;
  const int64_t slots = 40;  // 640 slots for 1000 items
  const std::vector<int32_t> slot = AssignLptSlots(costs, k, slots);
  std::vector<int> used(k * slots, 0);
  double cheapest_placed = 1e300, costliest_unplaced = -1;
  for (size_t i = 0; i < costs.size(); ++i) {
    if (slot[i] < 0) {
      costliest_unplaced = std::max(costliest_unplaced, costs[i]);
      continue;
    }
    ASSERT_LT(slot[i], k * slots);
    ++used[slot[i]];
    cheapest_placed = std::min(cheapest_placed, costs[i]);
  }
  for (int u : used) EXPECT_EQ(u, 1);
  EXPECT_GE(cheapest_placed, costliest_unplaced);
}

// With a token cap and allow_unplaced, an item no group can take stays at
// -1 and later items are still placed.
TEST(ListScheduleTest, UnplacedItemsUnderATokenCap) {
  const std::vector<double> costs = {5, 4, 3, 2};
  const std::vector<int64_t> tokens = {6, 6, 5, 1};
  GroupLimits limits;
  limits.max_tokens = 7;
  limits.tokens = tokens;
  EXPECT_FALSE(AssignLpt(costs, 1, limits).ok());
  limits.allow_unplaced = true;
  const std::vector<int32_t> group = *AssignLpt(costs, 1, limits);
  EXPECT_EQ(group, (std::vector<int32_t>{0, -1, -1, 0}));
}

}  // namespace
}  // namespace flopspack::pack
