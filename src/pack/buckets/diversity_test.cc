#include "pack/buckets/diversity.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "util/random.h"

namespace flopspack::pack {
namespace {

// sup over every real x of |G(x) - F(x)|, evaluated at every distinct length
// of the data and just below it (x - 0.5 suffices for integer lengths).
DiversityDistance BruteForce(const std::vector<int64_t>& lengths,
                             const std::vector<int64_t>& items) {
  double total_tokens = 0, sub_tokens = 0;
  for (int64_t l : lengths) total_tokens += static_cast<double>(l);
  for (int64_t i : items) sub_tokens += static_cast<double>(lengths[i]);
  DiversityDistance d{0, 0};
  for (int64_t l : lengths) {
    for (double x : {static_cast<double>(l), static_cast<double>(l) - 0.5}) {
      double ft = 0, fs = 0, gt = 0, gs = 0;
      for (int64_t v : lengths) {
        if (static_cast<double>(v) <= x) {
          ft += static_cast<double>(v);
          fs += 1;
        }
      }
      for (int64_t i : items) {
        if (static_cast<double>(lengths[i]) <= x) {
          gt += static_cast<double>(lengths[i]);
          gs += 1;
        }
      }
      d.tokens = std::max(d.tokens, std::fabs(gt / sub_tokens - ft / total_tokens));
      d.samples = std::max(d.samples, std::fabs(gs / static_cast<double>(items.size()) -
                                                fs / static_cast<double>(lengths.size())));
    }
  }
  return d;
}

TEST(LengthReferenceTest, MatchesBruteForceKs) {
  util::Rng rng(21);
  std::vector<uint32_t> scratch;
  for (int trial = 0; trial < 2000; ++trial) {
    const size_t n = 1 + rng.Below(40);
    std::vector<int64_t> lengths(n);
    const uint64_t range = 1 + rng.Below(60);
    for (int64_t& l : lengths) l = 1 + static_cast<int64_t>(rng.Below(range));
    const size_t k = 1 + rng.Below(n);
    std::vector<int64_t> items;
    for (size_t i = 0; i < k; ++i) items.push_back(static_cast<int64_t>(rng.Below(n)));
    absl::StatusOr<LengthReference> ref = LengthReference::Create(lengths);
    ASSERT_TRUE(ref.ok());
    const DiversityDistance got = ref->Distance(items, scratch);
    const DiversityDistance want = BruteForce(lengths, items);
    EXPECT_NEAR(got.tokens, want.tokens, 1e-12) << "trial " << trial;
    EXPECT_NEAR(got.samples, want.samples, 1e-12) << "trial " << trial;
  }
}

TEST(LengthReferenceTest, ClosedForms) {
  const std::vector<int64_t> lengths = {10, 20, 30, 40};
  absl::StatusOr<LengthReference> ref = LengthReference::Create(lengths);
  ASSERT_TRUE(ref.ok());
  std::vector<uint32_t> scratch;
  // The whole data set: distance 0.
  DiversityDistance all = ref->Distance(std::vector<int64_t>{3, 1, 0, 2}, scratch);
  EXPECT_DOUBLE_EQ(all.tokens, 0);
  EXPECT_DOUBLE_EQ(all.samples, 0);
  // Only the shortest: G jumps to 1 where F = 10/100 (tokens), 1/4 (samples).
  DiversityDistance shortest = ref->Distance(std::vector<int64_t>{0}, scratch);
  EXPECT_DOUBLE_EQ(shortest.tokens, 0.9);
  EXPECT_DOUBLE_EQ(shortest.samples, 0.75);
  // Only the longest: G = 0 until 40 where F(30) = 60/100, 3/4.
  DiversityDistance longest = ref->Distance(std::vector<int64_t>{3}, scratch);
  EXPECT_DOUBLE_EQ(longest.tokens, 0.6);
  EXPECT_DOUBLE_EQ(longest.samples, 0.75);
}

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
