#include "pack/buckets/diversity.h"

#include <algorithm>
#include <vector>

#include "gtest/gtest.h"

namespace flopspack::pack {
namespace {

TEST(StepDistancesTest, GroupsByStepAndChecksInput) {
  const std::vector<int64_t> lengths = {10, 20, 30, 40};
  absl::StatusOr<LengthReference> ref = LengthReference::Create(lengths);
  ASSERT_TRUE(ref.ok());
  Plan plan;
  plan.AddGroup(std::vector<int64_t>{0}, std::vector<int64_t>{10}, 10, 10);
  plan.AddGroup(std::vector<int64_t>{3}, std::vector<int64_t>{40}, 40, 40);
  plan.AddGroup(std::vector<int64_t>{1, 2}, std::vector<int64_t>{20, 30}, 60, 60);
  plan.SetSlots({0, 1, 0}, {0, 0, 1});  // step 0 = groups 0 and 1, step 1 = group 2
  absl::StatusOr<std::vector<DiversityDistance>> d = StepDistances(plan, *ref, 1);
  ASSERT_TRUE(d.ok());
  ASSERT_EQ(d->size(), 2u);
  std::vector<uint32_t> scratch;
  EXPECT_DOUBLE_EQ((*d)[0].tokens, ref->Distance(std::vector<int64_t>{0, 3}, scratch).tokens);
  EXPECT_DOUBLE_EQ((*d)[1].tokens, ref->Distance(std::vector<int64_t>{1, 2}, scratch).tokens);
  // Two slots per step: one step holding everything.
  absl::StatusOr<std::vector<DiversityDistance>> one = StepDistances(plan, *ref, 2);
  ASSERT_TRUE(one.ok());
  ASSERT_EQ(one->size(), 1u);
  EXPECT_DOUBLE_EQ((*one)[0].tokens, 0);
  EXPECT_DOUBLE_EQ(MeanDistance(*d).tokens, ((*d)[0].tokens + (*d)[1].tokens) / 2);

  Plan no_slots;
  no_slots.AddGroup(std::vector<int64_t>{0}, std::vector<int64_t>{10}, 10, 10);
  EXPECT_EQ(StepDistances(no_slots, *ref, 1).status().code(), absl::StatusCode::kInvalidArgument);
  Plan foreign;
  foreign.AddGroup(std::vector<int64_t>{9}, std::vector<int64_t>{10}, 10, 10);
  foreign.SetSlots({0}, {0});
  absl::StatusOr<std::vector<DiversityDistance>> bad = StepDistances(foreign, *ref, 1);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("item 9"), std::string::npos);
  EXPECT_EQ(StepDistances(plan, *ref, 0).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace flopspack::pack
