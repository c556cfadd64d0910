#include "stats/length_reference.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "stats/compare.h"
#include "stats/length_stats.h"
#include "util/random.h"

namespace flopspack::stats {
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

// One definition of the KS distance: a subset's token- and count-weighted
// distances equal stats::KsDistance between the subset's and the dataset's
// statistics, on data shaped like users' (a heavy tail, many duplicates).
TEST(LengthReferenceTest, AgreesWithKsDistance) {
  util::Rng rng(22);
  std::vector<uint32_t> scratch;
  for (int trial = 0; trial < 200; ++trial) {
    const size_t n = 50 + rng.Below(2000);
    std::vector<int64_t> lengths(n);
    for (int64_t& l : lengths) {
      l = rng.Below(4) == 0 ? 512 : 1 + static_cast<int64_t>(std::pow(rng.Uniform(), 4) * 50000);
    }
    std::vector<int64_t> items(1 + rng.Below(n));
    for (int64_t& i : items) i = static_cast<int64_t>(rng.Below(n));
    std::vector<int64_t> subset;
    for (int64_t i : items) subset.push_back(lengths[i]);
    absl::StatusOr<LengthReference> ref = LengthReference::Create(lengths);
    absl::StatusOr<LengthStats> all = LengthStats::Create(lengths, nullptr);
    absl::StatusOr<LengthStats> part = LengthStats::Create(subset, nullptr);
    ASSERT_TRUE(ref.ok() && all.ok() && part.ok());
    const DiversityDistance d = ref->Distance(items, scratch);
    EXPECT_NEAR(d.tokens, KsDistance(*part, *all, Weighting::kTokens)->distance, 1e-12);
    EXPECT_NEAR(d.samples, KsDistance(*part, *all, Weighting::kCount)->distance, 1e-12);
  }
}

}  // namespace
}  // namespace flopspack::stats
