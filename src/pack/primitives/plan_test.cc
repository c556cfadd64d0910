#include "pack/primitives/plan.h"

#include <vector>

#include "gtest/gtest.h"

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

}  // namespace
}  // namespace flopspack::pack
