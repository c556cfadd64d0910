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

}  // namespace
}  // namespace flopspack::pack
