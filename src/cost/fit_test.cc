#include "cost/fit.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "util/random.h"

namespace flopspack::cost {
namespace {

struct FitSamples {
  std::vector<int64_t> lengths;
  std::vector<size_t> offsets{0};
  std::vector<double> seconds;
};

// Packed sequences of 1..8 documents with lengths 100..8000, timed by the
// true polynomial times (1 + noise·N(0,1)-ish uniform noise).
FitSamples Generate(const PolynomialCoefficients& truth, double noise, int count, uint64_t seed) {
  util::Rng rng(seed);
  FitSamples s;
  for (int i = 0; i < count; ++i) {
    const int docs = 1 + static_cast<int>(rng.Below(8));
    double time = truth.per_sequence;
    for (int j = 0; j < docs; ++j) {
      const int64_t l = 100 + static_cast<int64_t>(rng.Below(7900));
      s.lengths.push_back(l);
      const double x = static_cast<double>(l);
      time += truth.per_document + truth.linear * x + truth.quadratic * x * x;
    }
    time *= 1 + noise * (2 * rng.Uniform() - 1);
    s.offsets.push_back(s.lengths.size());
    s.seconds.push_back(time);
  }
  return s;
}

TEST(FitTest, RecoversExactCoefficients) {
  const PolynomialCoefficients truth{0.01, 1e-4, 2e-6, 3e-10};
  FitSamples s = Generate(truth, 0, 200, 1);
  auto fit = FitPolynomial(s.lengths, s.offsets, s.seconds, kFitAll);
  ASSERT_TRUE(fit.ok()) << fit.status();
  EXPECT_NEAR(fit->coefficients.per_sequence, truth.per_sequence, 1e-9);
  EXPECT_NEAR(fit->coefficients.per_document / truth.per_document, 1, 1e-6);
  EXPECT_NEAR(fit->coefficients.linear / truth.linear, 1, 1e-6);
  EXPECT_NEAR(fit->coefficients.quadratic / truth.quadratic, 1, 1e-6);
  EXPECT_NEAR(fit->r_squared, 1.0, 1e-12);
}

TEST(FitTest, RecoversCoefficientsFromNoisySamples) {
  const PolynomialCoefficients truth{0.02, 0, 4e-6, 5e-10};
  FitSamples s = Generate(truth, 0.02, 2000, 7);
  auto fit = FitPolynomial(s.lengths, s.offsets, s.seconds, kFitAll);
  ASSERT_TRUE(fit.ok()) << fit.status();
  EXPECT_NEAR(fit->coefficients.linear / truth.linear, 1, 0.05);
  EXPECT_NEAR(fit->coefficients.quadratic / truth.quadratic, 1, 0.05);
  EXPECT_GT(fit->r_squared, 0.99);
  EXPECT_GE(fit->coefficients.per_document, 0);
  EXPECT_EQ(fit->num_samples, 2000u);
}

TEST(FitTest, CoefficientsStayNonNegative) {
  // Times that fall with length would need a negative linear term.
  std::vector<int64_t> lengths = {100, 200, 300, 400, 500};
  std::vector<size_t> offsets = {0, 1, 2, 3, 4, 5};
  std::vector<double> seconds = {5, 4, 3, 2, 1};
  auto fit = FitPolynomial(lengths, offsets, seconds, kFitAll);
  ASSERT_TRUE(fit.ok());
  EXPECT_GE(fit->coefficients.per_sequence, 0);
  EXPECT_GE(fit->coefficients.per_document, 0);
  EXPECT_GE(fit->coefficients.linear, 0);
  EXPECT_GE(fit->coefficients.quadratic, 0);
  // The best non-negative fit is then a constant: the mean, 3.
  EXPECT_NEAR(fit->coefficients.per_sequence + fit->coefficients.per_document, 3.0, 1e-9);
}

TEST(FitTest, MatchesBruteForceOnSmallProblem) {
  // For a single term the NNLS optimum is max(0, <x,y>/<x,x>).
  std::vector<int64_t> lengths = {10, 20, 30};
  std::vector<size_t> offsets = {0, 1, 2, 3};
  std::vector<double> seconds = {12, 19, 33};
  auto fit = FitPolynomial(lengths, offsets, seconds, kFitLinear);
  ASSERT_TRUE(fit.ok());
  const double expected = (10 * 12 + 20 * 19 + 30 * 33) / (100.0 + 400 + 900);
  EXPECT_NEAR(fit->coefficients.linear, expected, 1e-12);
  EXPECT_EQ(fit->coefficients.quadratic, 0);
}

TEST(FitTest, RejectsBadInput) {
  std::vector<int64_t> lengths = {10, 20};
  std::vector<size_t> offsets = {0, 1, 2};
  std::vector<double> seconds = {1, 2};
  EXPECT_EQ(FitPolynomial(lengths, offsets, seconds, kFitAll).status().code(),
            absl::StatusCode::kInvalidArgument);  // 2 samples, 4 terms
  EXPECT_TRUE(FitPolynomial(lengths, offsets, seconds, kFitLinear).ok());
  EXPECT_FALSE(FitPolynomial(lengths, offsets, seconds, 0).ok());
  EXPECT_FALSE(FitPolynomial(lengths, offsets, seconds, 16).ok());
  std::vector<double> bad_seconds = {1, std::nan("")};
  EXPECT_FALSE(FitPolynomial(lengths, offsets, bad_seconds, kFitLinear).ok());
  std::vector<int64_t> bad_lengths = {10, -3};
  EXPECT_FALSE(FitPolynomial(bad_lengths, offsets, seconds, kFitLinear).ok());
  std::vector<size_t> empty_sample = {0, 0, 2};
  EXPECT_FALSE(FitPolynomial(lengths, empty_sample, seconds, kFitLinear).ok());
  // An offset in the middle beyond the end: rejected before any length is
  // read (this used to read past the lengths).
  std::vector<size_t> past_end = {0, 1000, 2};
  auto fit = FitPolynomial(lengths, past_end, seconds, kFitLinear);
  EXPECT_NE(fit.status().message().find("sample 1 is empty"), absl::string_view::npos);
}

}  // namespace
}  // namespace flopspack::cost
