#include "cost/polynomial.h"

#include <cmath>
#include <limits>

#include "cost/custom.h"
#include "gtest/gtest.h"

namespace flopspack::cost {
namespace {

TEST(PolynomialTest, SequenceIsOverheadPlusDocuments) {
  auto model = PolynomialModel::Create({5, 2, 3, 0.5});
  ASSERT_TRUE(model.ok());
  const std::vector<int64_t> docs = {4, 10};
  // 5 + (2 + 12 + 8) + (2 + 30 + 50)
  EXPECT_DOUBLE_EQ(*(*model)->SequenceCost(docs), 109.0);
  EXPECT_DOUBLE_EQ(*(*model)->DocumentCost(10), 82.0);
  EXPECT_DOUBLE_EQ(*(*model)->SequenceCost({}), 0.0);
  EXPECT_DOUBLE_EQ((*model)->SequenceOverhead(), 5.0);
}

TEST(PolynomialTest, PaddedBatchPadsToLongest) {
  auto model = PolynomialModel::Create({1, 0, 1, 0});
  ASSERT_TRUE(model.ok());
  const std::vector<int64_t> batch = {3, 9, 5};
  EXPECT_DOUBLE_EQ(*(*model)->PaddedBatchCost(batch), 3 * (1 + 9.0));
  EXPECT_DOUBLE_EQ(*(*model)->PaddedBatchCost({}), 0.0);
}

TEST(PolynomialTest, TokensCountsTokens) {
  auto model = PolynomialModel::Tokens();
  const std::vector<int64_t> docs = {7, 11, 13};
  EXPECT_DOUBLE_EQ(*model->SequenceCost(docs), 31.0);
}

TEST(PolynomialTest, RejectsNonFiniteOrNegativeCoefficients) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (PolynomialCoefficients c :
       {PolynomialCoefficients{nan, 0, 1, 0}, PolynomialCoefficients{0, inf, 1, 0},
        PolynomialCoefficients{0, 0, -1, 0}, PolynomialCoefficients{0, 0, 1, -inf}}) {
    auto model = PolynomialModel::Create(c);
    ASSERT_FALSE(model.ok());
    EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
  }
}

TEST(CustomModelTest, CallsFunctionAndRejectsBadResults) {
  CustomModel square([](absl::Span<const int64_t> docs) -> absl::StatusOr<double> {
    double total = 0;
    for (int64_t l : docs) total += static_cast<double>(l);
    return total * total;
  });
  const std::vector<int64_t> docs = {2, 3};
  EXPECT_DOUBLE_EQ(*square.SequenceCost(docs), 25.0);
  EXPECT_DOUBLE_EQ(*square.DocumentCost(4), 16.0);
  EXPECT_DOUBLE_EQ(*square.PaddedBatchCost(docs), 2 * 9.0);
  EXPECT_FALSE(square.IsAdditive());

  CustomModel negative([](absl::Span<const int64_t>) -> absl::StatusOr<double> { return -1.0; });
  EXPECT_EQ(negative.SequenceCost(docs).status().code(), absl::StatusCode::kAborted);
  CustomModel failing(
      [](absl::Span<const int64_t>) -> absl::StatusOr<double> { return absl::AbortedError("no"); });
  std::vector<double> out(2, 7.0);
  EXPECT_FALSE(failing.DocumentCosts(docs, absl::MakeSpan(out)).ok());
}

}  // namespace
}  // namespace flopspack::cost
