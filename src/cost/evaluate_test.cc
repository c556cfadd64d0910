#include "cost/evaluate.h"

#include <cmath>
#include <vector>

#include "cost/custom.h"
#include "cost/fit.h"
#include "cost/polynomial.h"
#include "gtest/gtest.h"
#include "util/random.h"

namespace flopspack::cost {
namespace {

struct Samples {
  std::vector<int64_t> lengths;
  std::vector<size_t> offsets{0};
  std::vector<double> seconds;
  void Add(std::vector<int64_t> docs, double time) {
    lengths.insert(lengths.end(), docs.begin(), docs.end());
    offsets.push_back(lengths.size());
    seconds.push_back(time);
  }
};

absl::StatusOr<PredictionQuality> Evaluate(const CostModel& model, const Samples& s,
                                           EvaluateOptions options = {}) {
  return EvaluateModel(model, s.lengths, s.offsets, s.seconds, options);
}

TEST(EvaluateTest, ExactModelHasNoError) {
  auto model = PolynomialModel::Create({0.5, 0.25, 1e-3, 1e-6});
  ASSERT_TRUE(model.ok());
  Samples s;
  util::Rng rng(3);
  for (int i = 0; i < 50; ++i) {
    std::vector<int64_t> docs(1 + rng.Below(5));
    for (int64_t& l : docs) l = 1 + static_cast<int64_t>(rng.Below(4000));
    s.Add(docs, *(*model)->SequenceCost(docs));
  }
  auto q = Evaluate(**model, s);
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->scale, 1);
  EXPECT_EQ(q->offset, 0);
  EXPECT_NEAR(q->r_squared, 1, 1e-15);
  EXPECT_NEAR(q->rms_residual, 0, 1e-12);
  EXPECT_NEAR(q->max_relative_error, 0, 1e-15);
  EXPECT_EQ(q->num_samples, 50u);
}

TEST(EvaluateTest, FiguresMatchHandComputation) {
  // Tokens model, predictions scale·tokens + offset = 2·t + 1 for t = 1, 2, 3, 4.
  auto tokens = PolynomialModel::Tokens();
  Samples s;
  s.Add({1}, 4);      // predicted 3: residual 1, relative 1/4
  s.Add({2}, 5);      // predicted 5: 0
  s.Add({1, 2}, 6);   // predicted 7: -1, relative 1/6
  s.Add({2, 2}, 10);  // predicted 9: 1, relative 1/10
  EvaluateOptions options;
  options.scale = 2;
  options.offset = 1;
  auto q = Evaluate(*tokens, s, options);
  ASSERT_TRUE(q.ok()) << q.status();
  const double mean = (4 + 5 + 6 + 10) / 4.0;
  const double ss_tot = std::pow(4 - mean, 2) + std::pow(5 - mean, 2) + std::pow(6 - mean, 2) +
                        std::pow(10 - mean, 2);
  EXPECT_DOUBLE_EQ(q->r_squared, 1 - 3 / ss_tot);
  EXPECT_DOUBLE_EQ(q->rms_residual, std::sqrt(3 / 4.0));
  EXPECT_DOUBLE_EQ(q->mean_relative_error, (0.25 + 0 + 1 / 6.0 + 0.1) / 4);
  EXPECT_DOUBLE_EQ(q->median_relative_error, (0.1 + 1 / 6.0) / 2);  // even count: mid mean
  EXPECT_DOUBLE_EQ(q->max_relative_error, 0.25);
  s.Add({5}, 11);  // predicted 11: an odd count of 0, 0, 1/10, 1/6, 1/4
  q = Evaluate(*tokens, s, options);
  ASSERT_TRUE(q.ok());
  EXPECT_DOUBLE_EQ(q->median_relative_error, 0.1);
}

TEST(EvaluateTest, FittedScaleIsOrdinaryLeastSquaresWhenNonNegative) {
  auto tokens = PolynomialModel::Tokens();
  Samples s;
  util::Rng rng(11);
  for (int i = 0; i < 40; ++i) {
    const int64_t l = 1 + static_cast<int64_t>(rng.Below(1000));
    s.Add({l}, 3e-3 * static_cast<double>(l) + 0.5 + 0.1 * rng.Uniform());
  }
  EvaluateOptions options;
  options.fit_scale = true;
  auto q = Evaluate(*tokens, s, options);
  ASSERT_TRUE(q.ok()) << q.status();
  // Closed form: a = cov(x, y) / var(x), b = mean(y) − a·mean(x).
  double mx = 0, my = 0;
  for (size_t i = 0; i < s.seconds.size(); ++i) {
    mx += static_cast<double>(s.lengths[i]);
    my += s.seconds[i];
  }
  mx /= 40;
  my /= 40;
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < s.seconds.size(); ++i) {
    const double dx = static_cast<double>(s.lengths[i]) - mx;
    sxy += dx * (s.seconds[i] - my);
    sxx += dx * dx;
  }
  const double a = sxy / sxx;
  EXPECT_NEAR(q->scale / a, 1, 1e-12);
  EXPECT_NEAR(q->offset / (my - a * mx), 1, 1e-10);
  EXPECT_GT(q->r_squared, 0.99);
  // Held out: the same map given explicitly gives the same figures.
  EvaluateOptions given;
  given.scale = q->scale;
  given.offset = q->offset;
  auto again = Evaluate(*tokens, s, given);
  ASSERT_TRUE(again.ok());
  EXPECT_DOUBLE_EQ(again->r_squared, q->r_squared);
  EXPECT_DOUBLE_EQ(again->mean_relative_error, q->mean_relative_error);
}

TEST(EvaluateTest, FittedScaleStaysNonNegative) {
  // Times that fall as tokens grow: the best non-negative map is the mean.
  auto tokens = PolynomialModel::Tokens();
  Samples s;
  s.Add({10}, 5);
  s.Add({20}, 4);
  s.Add({30}, 3);
  EvaluateOptions options;
  options.fit_scale = true;
  auto q = Evaluate(*tokens, s, options);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->scale, 0);
  EXPECT_NEAR(q->offset, 4, 1e-12);
  EXPECT_NEAR(q->r_squared, 0, 1e-12);
}

TEST(EvaluateTest, HeldOutRSquaredCanBeNegative) {
  auto tokens = PolynomialModel::Tokens();
  Samples s;
  s.Add({1}, 10);
  s.Add({2}, 11);
  EvaluateOptions options;
  options.scale = 100;  // wildly wrong
  auto q = Evaluate(*tokens, s, options);
  ASSERT_TRUE(q.ok());
  EXPECT_LT(q->r_squared, -100);
}

TEST(EvaluateTest, FitAndEvaluateAgreeOnTrainingSamples) {
  const PolynomialCoefficients truth{0.01, 2e-3, 1e-6, 1e-10};
  Samples s;
  util::Rng rng(5);
  for (int i = 0; i < 100; ++i) {
    std::vector<int64_t> docs(1 + rng.Below(6));
    double time = truth.per_sequence;
    for (int64_t& l : docs) {
      l = 1 + static_cast<int64_t>(rng.Below(8000));
      const double x = static_cast<double>(l);
      time += truth.per_document + truth.linear * x + truth.quadratic * x * x;
    }
    s.Add(docs, time * (1 + 0.05 * (2 * rng.Uniform() - 1)));
  }
  auto fit = FitPolynomial(s.lengths, s.offsets, s.seconds, kFitAll);
  ASSERT_TRUE(fit.ok());
  auto model = PolynomialModel::Create(fit->coefficients);
  ASSERT_TRUE(model.ok());
  auto q = Evaluate(**model, s);
  ASSERT_TRUE(q.ok());
  EXPECT_NEAR(q->r_squared, fit->r_squared, 1e-12);
  EXPECT_NEAR(q->rms_residual / fit->rms_residual, 1, 1e-9);
  EXPECT_LT(q->max_relative_error, 0.06);
}

TEST(EvaluateTest, RejectsBadInput) {
  auto tokens = PolynomialModel::Tokens();
  Samples s;
  s.Add({10}, 1);
  s.Add({20}, 2);
  EXPECT_TRUE(Evaluate(*tokens, s).ok());
  Samples zero = s;
  zero.seconds[1] = 0;
  auto q = Evaluate(*tokens, zero);
  EXPECT_EQ(q.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(q.status().message().find("seconds[1] = 0"), absl::string_view::npos);
  Samples nan = s;
  nan.seconds[0] = std::nan("");
  EXPECT_EQ(Evaluate(*tokens, nan).status().code(), absl::StatusCode::kInvalidArgument);
  Samples negative = s;
  negative.seconds[0] = -1;
  EXPECT_EQ(Evaluate(*tokens, negative).status().code(), absl::StatusCode::kInvalidArgument);
  Samples none;
  q = Evaluate(*tokens, none);
  EXPECT_NE(q.status().message().find("0 samples are too few"), absl::string_view::npos);
  Samples one;
  one.Add({3}, 1);
  EvaluateOptions fit;
  fit.fit_scale = true;
  EXPECT_FALSE(Evaluate(*tokens, one, fit).ok());
  EXPECT_TRUE(Evaluate(*tokens, one).ok());
  EvaluateOptions bad_scale;
  bad_scale.scale = -1;
  EXPECT_FALSE(Evaluate(*tokens, s, bad_scale).ok());
  bad_scale.scale = 1;
  bad_scale.offset = std::nan("");
  EXPECT_FALSE(Evaluate(*tokens, s, bad_scale).ok());
  // An offset in the middle past the end is rejected before any length is read.
  Samples past = s;
  past.offsets = {0, 100, 2};
  q = Evaluate(*tokens, past);
  EXPECT_NE(q.status().message().find("sample 1 is empty"), absl::string_view::npos);
}

TEST(EvaluateTest, HugeValuesGiveFiguresOrAnErrorNeverNaN) {
  // Times and costs near the top of the double range: the sums of squares
  // are taken in units of the largest value, so nothing overflows to NaN.
  auto tokens = PolynomialModel::Tokens();
  Samples s;
  s.Add({1}, 1e308);
  s.Add({2}, 1.5e308);
  s.Add({3}, 1.7e308);
  EvaluateOptions options;
  options.scale = 5e307;
  auto q = Evaluate(*tokens, s, options);
  ASSERT_TRUE(q.ok()) << q.status();
  // Predictions 5e307, 1e308, 1.5e308: residuals 5e307, 5e307, 2e307.
  EXPECT_NEAR(q->rms_residual / std::sqrt((25 + 25 + 4) / 3.0) / 1e307, 1, 1e-12);
  EXPECT_TRUE(std::isfinite(q->r_squared));
  EXPECT_NEAR(q->max_relative_error, 0.5, 1e-12);
  options.scale = 1e308;  // 2e308 overflows
  q = Evaluate(*tokens, s, options);
  EXPECT_NE(q.status().message().find("the prediction of sample 1 overflows"),
            absl::string_view::npos);
  // A relative error that overflows is infinite, not NaN.
  Samples tiny;
  tiny.Add({1}, 1e-300);
  tiny.Add({2}, 1e-300);
  options.scale = 1e10;
  q = Evaluate(*tokens, tiny, options);
  ASSERT_TRUE(q.ok());
  EXPECT_TRUE(std::isinf(q->max_relative_error) && std::isinf(q->median_relative_error) &&
              std::isinf(q->mean_relative_error));
}

TEST(EvaluateTest, FailingModelFailsTheCall) {
  CustomModel failing([](absl::Span<const int64_t>) -> absl::StatusOr<double> {
    return absl::AbortedError("callback failed");
  });
  Samples s;
  s.Add({10}, 1);
  EXPECT_EQ(Evaluate(failing, s).status().code(), absl::StatusCode::kAborted);
  CustomModel nan_cost(
      [](absl::Span<const int64_t>) -> absl::StatusOr<double> { return std::nan(""); });
  EXPECT_FALSE(Evaluate(nan_cost, s).ok());
}

}  // namespace
}  // namespace flopspack::cost
