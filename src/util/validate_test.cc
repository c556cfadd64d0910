#include "util/validate.h"

#include <cmath>
#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace flopspack::util {
namespace {

TEST(ValidateTest, LengthsSumOrNamedError) {
  std::vector<int64_t> good = {1, 2, 3};
  EXPECT_EQ(*CheckLengths("lengths", good), 6);
  std::vector<int64_t> zero = {1, 0};
  auto status = CheckLengths("lengths", zero).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "lengths[1] = 0: every length must be positive");
  std::vector<int64_t> huge = {std::numeric_limits<int64_t>::max(), 1};
  EXPECT_EQ(CheckLengths("lengths", huge).status().code(), absl::StatusCode::kOutOfRange);
}

TEST(ValidateTest, CostsAndProducts) {
  std::vector<double> costs = {1, std::nan("")};
  EXPECT_FALSE(CheckCosts("costs", costs).ok());
  EXPECT_FALSE(CheckNonNegativeFinite("x", -std::numeric_limits<double>::infinity()).ok());
  EXPECT_EQ(*CheckedMultiply("r*m", 8192, 4), 32768u);
  EXPECT_FALSE(CheckedMultiply("r*m", uint64_t{1} << 40, uint64_t{1} << 40).ok());
}

}  // namespace
}  // namespace flopspack::util
