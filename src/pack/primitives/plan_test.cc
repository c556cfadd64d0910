#include "pack/primitives/plan.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "util/random.h"

namespace flopspack::pack {
namespace {

TEST(PlanTest, GroupsAndMetrics) {
  Plan plan;
  const std::vector<int64_t> items_a = {0, 2}, tokens_a = {10, 5};
  const std::vector<int64_t> items_b = {1}, tokens_b = {20};
  plan.AddGroup(items_a, tokens_a, 15, 3.0);
  plan.AddGroup(items_b, tokens_b, 25, 6.0);
  ASSERT_EQ(plan.group_count(), 2u);
  EXPECT_EQ(plan.group_items(0)[1], 2);
  EXPECT_EQ(plan.group_tokens(1)[0], 20);
  EXPECT_EQ(plan.group_real_tokens(0), 15);
  ComputeGroupMetrics(plan, 3, 4.0, 32);
  const PlanMetrics& m = plan.metrics();
  EXPECT_DOUBLE_EQ(m.max_group_cost, 6);
  EXPECT_DOUBLE_EQ(m.min_group_cost, 3);
  EXPECT_DOUBLE_EQ(m.balance_efficiency, 4.5 / 6);
  EXPECT_DOUBLE_EQ(m.lower_bound, 4.5);
  EXPECT_DOUBLE_EQ(m.gap_to_lower_bound, 6 / 4.5 - 1);
  EXPECT_EQ(m.real_tokens, 35);
  EXPECT_EQ(m.computed_tokens, 40);
  EXPECT_DOUBLE_EQ(m.fill, 35.0 / 64);
  EXPECT_DOUBLE_EQ(m.padding_efficiency, 35.0 / 40);
}

TEST(PlanTest, SetGroupsEqualsAddGroup) {
  Plan added, set;
  const std::vector<int64_t> items_a = {0, 2}, tokens_a = {10, 5};
  const std::vector<int64_t> items_b = {1}, tokens_b = {20};
  added.AddGroup(items_a, tokens_a, 15, 3.0);
  added.AddGroup(items_b, tokens_b, 25, 6.0);
  set.SetGroups({0, 2, 3}, {0, 2, 1}, {10, 5, 20}, {15, 25}, {3.0, 6.0});
  ASSERT_EQ(set.group_count(), added.group_count());
  for (size_t g = 0; g < 2; ++g) {
    EXPECT_EQ(std::vector<int64_t>(set.group_items(g).begin(), set.group_items(g).end()),
              std::vector<int64_t>(added.group_items(g).begin(), added.group_items(g).end()));
    EXPECT_EQ(set.group_real_tokens(g), added.group_real_tokens(g));
    EXPECT_EQ(set.group_computed_tokens(g), added.group_computed_tokens(g));
    EXPECT_EQ(set.group_cost(g), added.group_cost(g));
  }
}

// Offsets by the plan-order convention, dense and sparse ids alike: item 7
// (30 tokens) split 10 + 15 + 5 over three groups, item 3 whole.
TEST(PlanTest, FillPieceOffsetsTilesInPlanOrder) {
  for (int64_t base : {int64_t{0}, int64_t{1} << 40}) {
    Plan plan;
    const std::vector<int64_t> a = {base + 7, base + 3}, ta = {10, 4};
    const std::vector<int64_t> b = {base + 7}, tb = {15};
    const std::vector<int64_t> c = {base + 0, base + 7}, tc = {2, 5};
    plan.AddGroup(a, ta, 14, 1);
    plan.AddGroup(b, tb, 15, 1);
    plan.AddGroup(c, tc, 7, 1);
    if (base != 0) {  // make the ids sparse: far apart
      const std::vector<int64_t> d = {0}, td = {1};
      plan.AddGroup(d, td, 1, 1);
    }
    EXPECT_FALSE(plan.has_piece_offsets());
    plan.FillPieceOffsets();
    ASSERT_TRUE(plan.has_piece_offsets());
    auto at = [&](size_t g) {
      return std::vector<int64_t>(plan.group_piece_offsets(g).begin(),
                                  plan.group_piece_offsets(g).end());
    };
    EXPECT_EQ(at(0), (std::vector<int64_t>{0, 0})) << base;
    EXPECT_EQ(at(1), (std::vector<int64_t>{10})) << base;
    EXPECT_EQ(at(2), (std::vector<int64_t>{0, 25})) << base;
  }
}

TEST(PlanTest, SetPieceOffsetsIsKept) {
  Plan plan;
  const std::vector<int64_t> items = {4, 4}, tokens = {3, 6};
  plan.AddGroup(items, tokens, 9, 1);
  plan.SetPieceOffsets({6, 0});
  plan.FillPieceOffsets();
  EXPECT_EQ(plan.group_piece_offsets(0)[0], 6);
  EXPECT_EQ(plan.group_piece_offsets(0)[1], 0);
}

TEST(PlanTest, RankMetrics) {
  Plan plan;
  const std::vector<int64_t> one = {0}, t = {1};
  // rank 0: slots cost 1, 3; rank 1: slots cost 2, 2.
  plan.AddGroup(one, t, 1, 1);
  plan.AddGroup(one, t, 1, 3);
  plan.AddGroup(one, t, 1, 2);
  plan.AddGroup(one, t, 1, 2);
  plan.SetSlots({0, 0, 1, 1}, {0, 1, 0, 1});
  ComputeRankMetrics(plan, 2, 2, 3);
  const PlanMetrics& m = plan.metrics();
  EXPECT_DOUBLE_EQ(m.max_rank_cost, 4);
  EXPECT_DOUBLE_EQ(m.rank_balance_efficiency, 1);
  EXPECT_DOUBLE_EQ(m.worst_slot_balance, 1.5 / 2);  // slot 0: {1, 2}
  EXPECT_DOUBLE_EQ(m.rank_lower_bound, 4);
}

// A step-shaped plan: R x M groups, group g of rank g / M, slot g % M,
// random costs (ties and zeros included) and 0-5 whole items per group;
// each group's tokens summed as they are drawn into *sums, if given.
Plan RandomStepPlan(int64_t ranks, int64_t slots, uint64_t seed,
                    std::vector<int64_t>* sums = nullptr) {
  util::Rng rng(seed);
  std::vector<int64_t> offsets{0}, items, tokens, real;
  std::vector<double> costs;
  int64_t next_item = 0;
  for (int64_t g = 0; g < ranks * slots; ++g) {
    const int64_t count = static_cast<int64_t>(rng.Uniform() * 6);
    int64_t sum = 0;
    for (int64_t k = 0; k < count; ++k) {
      items.push_back(next_item++);
      tokens.push_back(1 + static_cast<int64_t>(rng.Uniform() * 100));
      sum += tokens.back();
    }
    offsets.push_back(static_cast<int64_t>(items.size()));
    real.push_back(sum);
    const double u = rng.Uniform();
    costs.push_back(u < 0.1 ? 0.0 : u < 0.2 ? 1.0 : u * 1e6);
  }
  Plan plan;
  plan.SetUnpaddedGroups(offsets, items, tokens, costs);
  if (sums != nullptr) *sums = real;
  return plan;
}

TEST(PlanTest, SlotGridEqualsExplicitSlots) {
  for (const auto& [ranks, slots] :
       std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {3, 1}, {1, 4}, {7, 3}, {64, 8}}) {
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      Plan grid = RandomStepPlan(ranks, slots, seed);
      Plan listed = grid;
      grid.SetSlotGrid(slots);
      std::vector<int64_t> rank_of, slot_of;
      for (int64_t g = 0; g < ranks * slots; ++g) {
        rank_of.push_back(g / slots);
        slot_of.push_back(g % slots);
      }
      listed.SetSlots(rank_of, slot_of);
      ASSERT_TRUE(grid.has_slots());
      ASSERT_TRUE(grid.has_slot_grid());
      EXPECT_FALSE(listed.has_slot_grid());
      for (size_t g = 0; g < grid.group_count(); ++g) {
        EXPECT_EQ(grid.group_rank(g), listed.group_rank(g));
        EXPECT_EQ(grid.group_slot(g), listed.group_slot(g));
      }
      // The grid's metrics take another path (no per-rank or per-slot
      // arrays): the same sums in the same order, so the same bits.
      ComputeRankMetrics(grid, ranks, slots, 3.0);
      ComputeRankMetrics(listed, ranks, slots, 3.0);
      const PlanMetrics& a = grid.metrics();
      const PlanMetrics& b = listed.metrics();
      EXPECT_EQ(a.max_rank_cost, b.max_rank_cost);
      EXPECT_EQ(a.mean_rank_cost, b.mean_rank_cost);
      EXPECT_EQ(a.rank_balance_efficiency, b.rank_balance_efficiency);
      EXPECT_EQ(a.rank_lower_bound, b.rank_lower_bound);
      EXPECT_EQ(a.rank_gap_to_lower_bound, b.rank_gap_to_lower_bound);
      EXPECT_EQ(a.worst_slot_balance, b.worst_slot_balance);
      EXPECT_LE(a.worst_slot_balance, 1.0);
    }
  }
  // Explicit slots replace a grid.
  Plan plan = RandomStepPlan(2, 2, 9);
  plan.SetSlotGrid(2);
  plan.SetSlots({1, 1, 0, 0}, {0, 1, 0, 1});
  EXPECT_FALSE(plan.has_slot_grid());
  EXPECT_EQ(plan.group_rank(0), 1);
}

TEST(PlanTest, UnpaddedGroupsComputeTheirRealTokens) {
  std::vector<int64_t> sums;
  Plan plan = RandomStepPlan(5, 3, 4, &sums);
  EXPECT_FALSE(plan.has_computed_tokens());
  int64_t total = 0;
  for (size_t g = 0; g < plan.group_count(); ++g) {
    EXPECT_EQ(plan.group_real_tokens(g), sums[g]);
    EXPECT_EQ(plan.group_computed_tokens(g), sums[g]);
    total += sums[g];
  }
  ComputeGroupMetrics(plan, 100, 0.0, 1000);
  EXPECT_EQ(plan.metrics().real_tokens, total);
  EXPECT_EQ(plan.metrics().computed_tokens, total);
  EXPECT_EQ(plan.metrics().padding_efficiency, 1.0);
}

TEST(PlanTest, WholeItemOffsetsEqualTheFilledOnes) {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    Plan whole = RandomStepPlan(9, 4, seed);
    Plan filled = whole;
    whole.SetWholeItemOffsets();
    filled.FillPieceOffsets();
    ASSERT_TRUE(whole.has_piece_offsets());
    for (size_t g = 0; g < whole.group_count(); ++g) {
      const absl::Span<const int64_t> view = whole.group_piece_offsets(g);
      ASSERT_EQ(view.size(), whole.group_items(g).size());
      EXPECT_EQ(std::vector<int64_t>(view.begin(), view.end()),
                std::vector<int64_t>(filled.group_piece_offsets(g).begin(),
                                     filled.group_piece_offsets(g).end()));
    }
    // Offsets set afterwards replace the view.
    int64_t entries = 0;
    for (size_t g = 0; g < whole.group_count(); ++g) entries += whole.group_items(g).size();
    std::vector<int64_t> ones(static_cast<size_t>(entries), 1);
    whole.SetPieceOffsets(ones);
    for (size_t g = 0; g < whole.group_count(); ++g) {
      for (int64_t o : whole.group_piece_offsets(g)) EXPECT_EQ(o, 1);
    }
  }
}

}  // namespace
}  // namespace flopspack::pack
