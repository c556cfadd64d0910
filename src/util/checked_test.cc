#include "util/checked.h"

#include <cfloat>
#include <cstdint>
#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace flopspack::util {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TEST(CheckedTest, AddAtTheEdges) {
  int64_t r = -7;
  EXPECT_TRUE(AddInt64(kMax - 1, 1, &r));
  EXPECT_EQ(r, kMax);
  r = -7;
  EXPECT_FALSE(AddInt64(kMax, 1, &r));
  EXPECT_EQ(r, -7);  // untouched on overflow
  EXPECT_FALSE(AddInt64(kMin, -1, &r));
  EXPECT_TRUE(AddInt64(kMax, kMin, &r));
  EXPECT_EQ(r, -1);
  absl::StatusOr<int64_t> s = CheckedAdd("tokens", kMax, 2);
  EXPECT_EQ(s.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(s.status().message(), "tokens: 9223372036854775807 + 2 overflows int64");
}

TEST(CheckedTest, MulAtTheEdges) {
  int64_t r = 0;
  EXPECT_TRUE(MulInt64(int64_t{1} << 31, int64_t{1} << 31, &r));
  EXPECT_EQ(r, int64_t{1} << 62);
  EXPECT_FALSE(MulInt64(int64_t{1} << 32, int64_t{1} << 31, &r));
  EXPECT_EQ(r, int64_t{1} << 62);
  EXPECT_FALSE(MulInt64(kMax, 2, &r));
  EXPECT_TRUE(MulInt64(kMax, 1, &r));
  EXPECT_EQ(*CheckedMul("r x m", 3, 5), 15);
  EXPECT_EQ(CheckedMul("r x m", kMax, 3).status().message(),
            "r x m: 9223372036854775807 x 3 overflows int64");
}

TEST(CheckedTest, CeilDivNeverFormsTheOverflowingSum) {
  EXPECT_EQ(CeilDivInt64(kMax, 1), kMax);
  EXPECT_EQ(CeilDivInt64(kMax, 2), int64_t{1} << 62);
  EXPECT_EQ(CeilDivInt64(0, 5), 0);
  EXPECT_EQ(CeilDivInt64(10, 5), 2);
  EXPECT_EQ(CeilDivInt64(11, 5), 3);
}

TEST(CheckedTest, CostSumRejectsOverflowToInfinity) {
  std::vector<double> fine = {1e308, 7e307};
  EXPECT_DOUBLE_EQ(*CheckedCostSum("costs", fine), 1.7e308);
  std::vector<double> huge = {1e308, 1e308, 1e308};
  absl::Status s = CheckedCostSum("costs", huge).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kOutOfRange);
  EXPECT_NE(s.message().find("costs: the sum of costs overflows a double at index 1"),
            absl::string_view::npos)
      << s.message();
  std::vector<double> max = {DBL_MAX, 0, 0};
  EXPECT_EQ(*CheckedCostSum("costs", max), DBL_MAX);
  EXPECT_EQ(*CheckedCostSum("costs", {}), 0.0);
}

}  // namespace
}  // namespace flopspack::util
