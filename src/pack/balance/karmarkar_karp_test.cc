#include "pack/balance/karmarkar_karp.h"

#include <algorithm>
#include <queue>
#include <vector>

#include "gtest/gtest.h"
#include "pack/primitives/lpt.h"
#include "pack/primitives/pack_test_util.h"
#include "util/random.h"

namespace flopspack::pack {
namespace {

// Classic two-way largest differencing on numbers: replace the two largest
// by their difference until one number, the final difference, is left.
double TwoWayDifference(std::vector<double> values) {
  std::priority_queue<double> heap(values.begin(), values.end());
  while (heap.size() > 1) {
    const double a = heap.top();
    heap.pop();
    const double b = heap.top();
    heap.pop();
    heap.push(a - b);
  }
  return heap.empty() ? 0 : heap.top();
}

std::vector<double> GroupCosts(absl::Span<const double> costs, absl::Span<const int32_t> group,
                               int k) {
  std::vector<double> load(static_cast<size_t>(k), 0);
  for (size_t i = 0; i < costs.size(); ++i) {
    EXPECT_GE(group[i], 0);
    EXPECT_LT(group[i], k);
    load[group[i]] += costs[i];
  }
  return load;
}

TEST(KarmarkarKarpTest, TwoWayEqualsClassicDifferencing) {
  util::Rng rng(21);
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<double> costs(1 + rng.Below(40));
    for (double& c : costs) c = static_cast<double>(rng.Below(1000));
    const std::vector<int32_t> group = *AssignKarmarkarKarp(costs, 2);
    const std::vector<double> load = GroupCosts(costs, group, 2);
    EXPECT_EQ(load[0] - load[1], TwoWayDifference(costs)) << "trial " << trial;
  }
}

TEST(KarmarkarKarpTest, EveryItemOnceAndBalancedCountsDifferByAtMostOne) {
  util::Rng rng(22);
  for (int trial = 0; trial < 2000; ++trial) {
    const size_t n = rng.Below(80);
    const int k = 1 + static_cast<int>(rng.Below(12));
    std::vector<double> costs(n);
    for (double& c : costs) c = rng.Uniform() * 100;
    const std::vector<int32_t> plain = *AssignKarmarkarKarp(costs, k);
    GroupCosts(costs, plain, k);
    const std::vector<int32_t> balanced = *AssignBalancedKarmarkarKarp(costs, k);
    std::vector<size_t> count(static_cast<size_t>(k), 0);
    for (int32_t g : balanced) {
      ASSERT_GE(g, 0);
      ASSERT_LT(g, k);
      ++count[g];
    }
    const auto [lo, hi] = std::minmax_element(count.begin(), count.end());
    EXPECT_LE(*hi - *lo, 1u) << "trial " << trial;
    EXPECT_EQ(*lo, n / static_cast<size_t>(k));
  }
}

TEST(KarmarkarKarpTest, FewerItemsThanGroups) {
  const std::vector<double> costs = {5, 1, 3};
  const std::vector<int32_t> group = *AssignKarmarkarKarp(costs, 5);
  // Each item alone, costliest first.
  EXPECT_EQ(group, (std::vector<int32_t>{0, 2, 1}));
  EXPECT_TRUE(AssignKarmarkarKarp({}, 3)->empty());
  EXPECT_EQ(AssignKarmarkarKarp(costs, 0).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(KarmarkarKarpTest, ClassicInstancesWhereLptIsSuboptimal) {
  struct Case {
    std::vector<double> costs;
    int k;
    double optimum, lpt;
  };
  // Found by exhaustive search; OPT by brute force below.
  const std::vector<Case> cases = {
      {{10, 6, 5, 4, 3, 2}, 2, 15, 16},
      {{10, 9, 6, 5, 5}, 2, 19, 20},
      {{11, 9, 8, 6, 4, 4, 4}, 2, 23, 25},
      {{12, 11, 11, 8, 6, 4, 4}, 3, 19, 20},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(*test_util::OptimalMaxCost(c.costs, c.k, {}), c.optimum);
    EXPECT_EQ(test_util::MaxGroupCost(c.costs, *AssignLpt(c.costs, c.k), c.k), c.lpt);
    EXPECT_EQ(test_util::MaxGroupCost(c.costs, *AssignKarmarkarKarp(c.costs, c.k), c.k), c.optimum);
  }
}

TEST(KarmarkarKarpTest, ManyItemsPerGroupLeaveATinySpread) {
  const std::vector<int64_t> lengths = test_util::LognormalLengths(8192, 1500, 16384, 7);
  std::vector<double> costs(lengths.begin(), lengths.end());
  const std::vector<int32_t> kk = *AssignKarmarkarKarp(costs, 64);
  const std::vector<int32_t> lpt = *AssignLpt(costs, 64);
  const std::vector<double> load = GroupCosts(costs, kk, 64);
  double total = 0;
  for (double c : costs) total += c;
  const double bound = total / 64;
  const double kk_gap = *std::max_element(load.begin(), load.end()) / bound - 1;
  const double lpt_gap = test_util::MaxGroupCost(costs, lpt, 64) / bound - 1;
  EXPECT_LT(kk_gap, 1e-4);
  EXPECT_LE(kk_gap, lpt_gap);
}

}  // namespace
}  // namespace flopspack::pack
