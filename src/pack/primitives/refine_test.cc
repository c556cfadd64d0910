#include "pack/primitives/refine.h"

#include <algorithm>
#include <vector>

#include "gtest/gtest.h"
#include "pack/primitives/lpt.h"
#include "pack/primitives/pack_test_util.h"
#include "util/random.h"

namespace flopspack::pack {
namespace {

TEST(RefineTest, FixesGrahamsWorstCaseForLpt) {
  // LPT: {3,2,2} = 7 and {3,2} = 5; one swap of a 3 for a 2 gives 6 / 6.
  const std::vector<double> costs = {3, 3, 2, 2, 2};
  std::vector<int32_t> group = *AssignLpt(costs, 2);
  EXPECT_EQ(test_util::MaxGroupCost(costs, group, 2), 7);
  const RefineStats stats = Refine(costs, 2, {}, absl::MakeSpan(group), 100);
  EXPECT_EQ(test_util::MaxGroupCost(costs, group, 2), 6);
  EXPECT_EQ(stats.steps, 1);
  EXPECT_EQ(stats.swaps, 1);
}

TEST(RefineTest, MovesOutOfTheHeaviestGroup) {
  const std::vector<double> costs = {4, 4, 4, 1};
  std::vector<int32_t> group = {0, 0, 0, 1};  // 12 vs 1
  const RefineStats stats = Refine(costs, 2, {}, absl::MakeSpan(group), 100);
  EXPECT_EQ(test_util::MaxGroupCost(costs, group, 2), 8);
  EXPECT_GE(stats.moves, 1);
}

TEST(RefineTest, NeverWorseAndRespectsLimitsAndBudget) {
  util::Rng rng(31);
  for (int trial = 0; trial < 3000; ++trial) {
    const size_t n = 1 + rng.Below(40);
    const int k = 1 + static_cast<int>(rng.Below(6));
    std::vector<double> costs(n);
    std::vector<int64_t> tokens(n);
    for (size_t i = 0; i < n; ++i) {
      costs[i] = static_cast<double>(rng.Below(50));
      tokens[i] = 1 + static_cast<int64_t>(rng.Below(20));
    }
    GroupLimits limits;
    limits.equal_count = rng.Below(2) == 1;
    limits.tokens = tokens;
    limits.max_tokens = rng.Below(2) == 1 ? 1000 : 0;  // loose enough for greedy to fit
    absl::StatusOr<std::vector<int32_t>> start = AssignGreedy(costs, k, limits);
    ASSERT_TRUE(start.ok()) << start.status();
    std::vector<int32_t> group = *start;
    const double before = test_util::MaxGroupCost(costs, group, k);
    const int64_t budget = static_cast<int64_t>(rng.Below(5));
    const RefineStats stats = Refine(costs, k, limits, absl::MakeSpan(group), budget);
    EXPECT_LE(stats.steps, budget);
    EXPECT_EQ(stats.steps, stats.moves + stats.swaps);
    EXPECT_LE(test_util::MaxGroupCost(costs, group, k), before);
    std::vector<size_t> count(static_cast<size_t>(k), 0);
    std::vector<int64_t> load(static_cast<size_t>(k), 0);
    for (size_t i = 0; i < n; ++i) {
      ++count[group[i]];
      load[group[i]] += tokens[i];
    }
    if (limits.equal_count) {
      const auto [lo, hi] = std::minmax_element(count.begin(), count.end());
      EXPECT_LE(*hi - *lo, 1u);
    }
    if (limits.max_tokens > 0) {
      for (int64_t l : load) EXPECT_LE(l, limits.max_tokens);
    }
  }
}

TEST(RefineTest, TokenCapDecidesWhichItemMoves) {
  // Moving either cost-5 item to group 1 balances costs; item 0 comes first
  // but its 9 tokens do not fit beside item 2's 2 under a cap of 10.
  const std::vector<double> costs = {5, 5, 1};
  const std::vector<int64_t> tokens = {9, 1, 2};
  GroupLimits limits;
  limits.tokens = tokens;
  limits.max_tokens = 10;
  std::vector<int32_t> group = {0, 0, 1};
  Refine(costs, 2, limits, absl::MakeSpan(group), 100);
  EXPECT_EQ(group, (std::vector<int32_t>{0, 1, 1}));
  EXPECT_EQ(test_util::MaxGroupCost(costs, group, 2), 6);
  // Without the cap the first candidate, item 0, moves.
  std::vector<int32_t> free_group = {0, 0, 1};
  Refine(costs, 2, {}, absl::MakeSpan(free_group), 100);
  EXPECT_EQ(free_group, (std::vector<int32_t>{1, 0, 1}));
}

// Costs of slot-structured groups: the largest group cost, and each group's
// cost recomputed from its items.
std::vector<double> SlotGroupCosts(const std::vector<double>& costs,
                                   const std::vector<int32_t>& slot, int32_t groups, int32_t m) {
  std::vector<double> cost(static_cast<size_t>(groups), 0.0);
  for (size_t i = 0; i < costs.size(); ++i) {
    if (slot[i] >= 0) cost[slot[i] / m] += costs[i];
  }
  return cost;
}

TEST(RefineSlotsTest, LevelZeroSwapUnderTheCap) {
  // One slot per rank, cap 10, cost = length^2. Rank 0 {6, 4} = 52 (10
  // tokens), rank 1 {3, 3, 3} = 27 (9 tokens). Moving 4 overflows rank 1;
  // swapping 4 for 3 fits: 45 / 34, the optimum ({6} beside {4, 3, 3, 3}
  // is 13 tokens).
  const std::vector<int64_t> lengths = {6, 4, 3, 3, 3};
  std::vector<double> costs;
  for (int64_t l : lengths) costs.push_back(static_cast<double>(l * l));
  std::vector<int32_t> slot = {0, 0, 1, 1, 1};
  std::vector<int64_t> tokens = {10, 9};
  std::vector<double> group_cost = {52, 27};
  SlotRefineOptions o;
  o.num_groups = 2;
  o.cap = 10;
  o.max_steps = 100;
  o.monotone = true;
  const RefineStats stats = RefineSlots(lengths, costs, o, absl::MakeSpan(group_cost),
                                        absl::MakeSpan(tokens), absl::MakeSpan(slot));
  EXPECT_EQ(stats.steps, 1);
  EXPECT_EQ(stats.swaps, 1);
  EXPECT_EQ(group_cost, (std::vector<double>{45, 34}));
  EXPECT_EQ(tokens, (std::vector<int64_t>{9, 10}));
  EXPECT_EQ(SlotGroupCosts(costs, slot, 2, 1), group_cost);
}

TEST(RefineSlotsTest, PairSwapWhenTheLightRankIsFull) {
  // Rank 0 {5, 4} = 41 (9 tokens), rank 1 {3, 3, 3, 1} = 28 (full at cap
  // 10): level 0 has nothing (rank 1 has no room), level 1 swaps one item
  // of rank 0 for two of rank 1: 34 / 35, the optimum (69 in all).
  const std::vector<int64_t> lengths = {5, 4, 3, 3, 3, 1};
  std::vector<double> costs;
  for (int64_t l : lengths) costs.push_back(static_cast<double>(l * l));
  std::vector<int32_t> slot = {0, 0, 1, 1, 1, 1};
  std::vector<int64_t> tokens = {9, 10};
  std::vector<double> group_cost = {41, 28};
  SlotRefineOptions o;
  o.num_groups = 2;
  o.cap = 10;
  o.max_steps = 100;
  o.monotone = true;
  const RefineStats stats = RefineSlots(lengths, costs, o, absl::MakeSpan(group_cost),
                                        absl::MakeSpan(tokens), absl::MakeSpan(slot));
  EXPECT_EQ(stats.steps, 1);
  EXPECT_EQ(stats.swaps, 1);
  EXPECT_EQ(std::max(group_cost[0], group_cost[1]), 35.0);
  EXPECT_EQ(SlotGroupCosts(costs, slot, 2, 1), group_cost);
}

TEST(RefineSlotsTest, NeverWorseRespectsCapsBudgetAndStopAt) {
  util::Rng rng(47);
  for (int trial = 0; trial < 2000; ++trial) {
    const int32_t groups = 1 + static_cast<int32_t>(rng.Below(5));
    const int32_t m = 1 + static_cast<int32_t>(rng.Below(3));
    const int64_t cap = 5 + static_cast<int64_t>(rng.Below(20));
    const size_t n = rng.Below(30);
    std::vector<int64_t> lengths(n);
    std::vector<double> costs(n);
    std::vector<int32_t> slot(n, -1);
    std::vector<int64_t> tokens(static_cast<size_t>(groups) * m, 0);
    const bool monotone = rng.Below(2) == 1;
    for (size_t i = 0; i < n; ++i) {
      lengths[i] = 1 + static_cast<int64_t>(rng.Below(static_cast<uint64_t>(cap)));
      costs[i] = monotone ? static_cast<double>(lengths[i] * lengths[i])
                          : static_cast<double>(rng.Below(100));
      // A random slot with room, else unplaced.
      const int32_t s = static_cast<int32_t>(rng.Below(tokens.size()));
      if (tokens[s] + lengths[i] <= cap) {
        slot[i] = s;
        tokens[s] += lengths[i];
      }
    }
    std::vector<double> group_cost = SlotGroupCosts(costs, slot, groups, m);
    const double before = *std::max_element(group_cost.begin(), group_cost.end());
    SlotRefineOptions o;
    o.num_groups = groups;
    o.slots_per_group = m;
    o.cap = cap;
    o.max_steps = static_cast<int64_t>(rng.Below(6));
    o.stop_at = rng.Below(4) == 0 ? before * 0.9 : -1;
    o.monotone = monotone;  // cost = length^2
    const std::vector<int32_t> start = slot;
    const RefineStats stats = RefineSlots(lengths, costs, o, absl::MakeSpan(group_cost),
                                          absl::MakeSpan(tokens), absl::MakeSpan(slot));
    EXPECT_LE(stats.steps, o.max_steps);
    EXPECT_EQ(stats.steps, stats.moves + stats.swaps);
    EXPECT_LE(*std::max_element(group_cost.begin(), group_cost.end()), before);
    std::vector<int64_t> recount(tokens.size(), 0);
    for (size_t i = 0; i < n; ++i) {
      EXPECT_EQ(slot[i] < 0, start[i] < 0);  // unplaced stay unplaced, placed stay placed
      if (slot[i] >= 0) recount[slot[i]] += lengths[i];
    }
    EXPECT_EQ(recount, tokens);
    for (int64_t t : tokens) EXPECT_LE(t, cap);
    const std::vector<double> recomputed = SlotGroupCosts(costs, slot, groups, m);
    for (int32_t g = 0; g < groups; ++g) EXPECT_NEAR(recomputed[g], group_cost[g], 1e-9);
  }
}

}  // namespace
}  // namespace flopspack::pack
