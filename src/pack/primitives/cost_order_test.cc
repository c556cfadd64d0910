#include "pack/primitives/cost_order.h"

#include <algorithm>
#include <vector>

#include "gtest/gtest.h"
#include "util/random.h"

namespace flopspack::pack {
namespace {

TEST(CostOrderTest, RadixMatchesComparisonSort) {
  util::Rng rng(45);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> costs(rng.Below(3000));
    for (double& c : costs) {
      const uint64_t kind = rng.Below(4);
      c = kind == 0   ? 0.0
          : kind == 1 ? -0.0
          : kind == 2 ? static_cast<double>(rng.Below(5))
                      : rng.Uniform() * 1e12;
    }
    std::vector<int32_t> expected(costs.size());
    for (size_t i = 0; i < expected.size(); ++i) expected[i] = static_cast<int32_t>(i);
    std::sort(expected.begin(), expected.end(), [&](int32_t a, int32_t b) {
      return costs[a] != costs[b] ? costs[a] > costs[b] : a < b;
    });
    ASSERT_EQ(CostDescendingOrder(costs), expected) << "trial " << trial;
  }
}

// Above 2^16 items the sort switches to 16-bit digits: the same order.
TEST(CostOrderTest, LargeInputsMatchComparisonSort) {
  util::Rng rng(46);
  std::vector<double> costs(200000);
  for (double& c : costs) {
    c = rng.Below(3) == 0 ? static_cast<double>(rng.Below(100)) : rng.Uniform() * 1e9;
  }
  std::vector<int32_t> expected(costs.size());
  for (size_t i = 0; i < expected.size(); ++i) expected[i] = static_cast<int32_t>(i);
  std::sort(expected.begin(), expected.end(), [&](int32_t a, int32_t b) {
    return costs[a] != costs[b] ? costs[a] > costs[b] : a < b;
  });
  EXPECT_EQ(CostDescendingOrder(costs), expected);
}

// With lengths: the counting sort is kept only when it is the cost order,
// so the result always equals the radix sort's, whatever the costs do.
TEST(CostOrderTest, LengthShortcutGivesTheCostOrder) {
  util::Rng rng(47);
  for (int trial = 0; trial < 60; ++trial) {
    const int64_t max_length = 1 + static_cast<int64_t>(rng.Below(5000));
    std::vector<int64_t> lengths(kCostOrderRadixMin + rng.Below(5000));
    for (int64_t& l : lengths) l = 1 + static_cast<int64_t>(rng.Below(max_length));
    std::vector<double> costs(lengths.size());
    for (size_t i = 0; i < costs.size(); ++i) {
      const double l = static_cast<double>(lengths[i]);
      switch (trial % 4) {
        case 0:  // strictly increasing in length: the shortcut holds
          costs[i] = l * l + 3 * l;
          break;
        case 1:  // flat above 100: equal costs for different lengths
          costs[i] = std::min(l, 100.0);
          break;
        case 2:  // decreasing in length
          costs[i] = 1e6 - l;
          break;
        default:  // unrelated to length
          costs[i] = rng.Uniform();
      }
    }
    EXPECT_EQ(CostDescendingOrder(costs, lengths, max_length), CostDescendingOrder(costs))
        << "trial " << trial;
  }
}

// CostDescendingItems: the same order (whichever sort produced it), and the
// lengths and costs copied in it, small inputs included.
TEST(CostOrderTest, ItemsComeInTheCostOrder) {
  util::Rng rng(48);
  for (int trial = 0; trial < 60; ++trial) {
    const int64_t max_length = 1 + static_cast<int64_t>(rng.Below(3000));
    std::vector<int64_t> lengths(rng.Below(2 * kCostOrderRadixMin) + rng.Below(4000) * (trial % 2));
    for (int64_t& l : lengths) l = 1 + static_cast<int64_t>(rng.Below(max_length));
    std::vector<double> costs(lengths.size());
    for (size_t i = 0; i < costs.size(); ++i) {
      const double l = static_cast<double>(lengths[i]);
      costs[i] = trial % 3 == 0   ? l * l + 3 * l
                 : trial % 3 == 1 ? std::min(l, 50.0)
                                  : rng.Uniform();
    }
    const std::vector<int32_t> expected = CostDescendingOrder(costs);
    const SortedItems sorted = CostDescendingItems(costs, lengths, max_length);
    ASSERT_EQ(sorted.order, expected) << "trial " << trial;
    ASSERT_EQ(sorted.lengths.size(), expected.size());
    ASSERT_EQ(sorted.costs.size(), expected.size());
    for (size_t k = 0; k < expected.size(); ++k) {
      ASSERT_EQ(sorted.lengths[k], lengths[expected[k]]) << "trial " << trial << " at " << k;
      ASSERT_EQ(sorted.costs[k], costs[expected[k]]) << "trial " << trial << " at " << k;
    }
  }
}

// Costs that agree in their top 32 bits (a relative difference below 1e-6)
// still come out in exact order: the radix sort reads all 64 bits.
TEST(CostOrderTest, ExactOnNearlyEqualCosts) {
  std::vector<double> costs(2 * kCostOrderRadixMin);
  for (size_t i = 0; i < costs.size(); ++i) {
    costs[i] = 1000.0 + static_cast<double>(i % 7) * 1e-9;
  }
  const std::vector<int32_t> order = CostDescendingOrder(costs);
  for (size_t k = 1; k < order.size(); ++k) {
    const double a = costs[order[k - 1]], b = costs[order[k]];
    ASSERT_TRUE(a > b || (a == b && order[k - 1] < order[k])) << "at " << k;
  }
  EXPECT_EQ(costs[order.front()], 1000.0 + 6e-9);
}

}  // namespace
}  // namespace flopspack::pack
