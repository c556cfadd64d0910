// flopspack_cost_model_coefficients and flopspack_cost_model_evaluate
// through the shared library: exact coefficients back from every model that
// has them, prediction figures against closed forms, struct versioning, and
// nothing written on failure.
#include <cmath>
#include <cstring>
#include <vector>

#include "capi_test_util.h"

namespace {

flopspack_polynomial_coefficients Coefficients(const flopspack_cost_model* model,
                                               flopspack_status* status) {
  flopspack_polynomial_coefficients c;
  std::memset(&c, 0, sizeof(c));
  c.struct_size = sizeof(c);
  *status = flopspack_cost_model_coefficients(model, &c);
  return c;
}

TEST(CostCoefficientsTest, GivenAndFittedCoefficientsComeBackExactly) {
  flopspack_cost_model* model = nullptr;
  // Values with no short decimal form: the bits must survive.
  const double s = 0.1 / 3, d = std::nextafter(1e-3, 1.0), l = 2.718281828459045e-7, q = 1.0 / 7e9;
  ASSERT_EQ(flopspack_cost_model_polynomial(s, d, l, q, &model), FLOPSPACK_OK);
  flopspack_status status;
  flopspack_polynomial_coefficients c = Coefficients(model, &status);
  ASSERT_EQ(status, FLOPSPACK_OK) << flopspack_last_error_message();
  EXPECT_EQ(c.per_sequence, s);
  EXPECT_EQ(c.per_document, d);
  EXPECT_EQ(c.linear, l);
  EXPECT_EQ(c.quadratic, q);
  flopspack_cost_model_destroy(model);

  ASSERT_EQ(flopspack_cost_model_tokens(&model), FLOPSPACK_OK);
  c = Coefficients(model, &status);
  ASSERT_EQ(status, FLOPSPACK_OK);
  EXPECT_EQ(c.per_sequence, 0);
  EXPECT_EQ(c.per_document, 0);
  EXPECT_EQ(c.linear, 1);
  EXPECT_EQ(c.quadratic, 0);
  flopspack_cost_model_destroy(model);

  const std::vector<int64_t> lengths = {100, 200, 300, 100, 50, 400, 700};
  const std::vector<size_t> offsets = {0, 1, 2, 4, 5, 7};
  const std::vector<double> seconds = {1.1, 2.3, 4.2, 0.8, 9.9};
  flopspack_fit_report report;
  report.struct_size = sizeof(report);
  ASSERT_EQ(flopspack_cost_model_fit(nullptr, lengths.data(), offsets.data(), seconds.data(), 5,
                                     &report, &model),
            FLOPSPACK_OK);
  c = Coefficients(model, &status);
  ASSERT_EQ(status, FLOPSPACK_OK);
  EXPECT_EQ(c.per_sequence, report.per_sequence);
  EXPECT_EQ(c.per_document, report.per_document);
  EXPECT_EQ(c.linear, report.linear);
  EXPECT_EQ(c.quadratic, report.quadratic);

  // An older caller's smaller struct gets the fields it knows, no more.
  unsigned char bytes[sizeof(flopspack_polynomial_coefficients) + 8];
  std::memset(bytes, 0xAB, sizeof(bytes));
  auto* small = reinterpret_cast<flopspack_polynomial_coefficients*>(bytes);
  small->struct_size = offsetof(flopspack_polynomial_coefficients, linear);
  ASSERT_EQ(flopspack_cost_model_coefficients(model, small), FLOPSPACK_OK);
  EXPECT_EQ(small->per_document, report.per_document);
  for (size_t i = offsetof(flopspack_polynomial_coefficients, linear); i < sizeof(bytes); ++i) {
    ASSERT_EQ(bytes[i], 0xAB) << "byte " << i;
  }
  flopspack_cost_model_destroy(model);
}

int ConstantCost(void*, const int64_t*, size_t, double* out) {
  *out = 1;
  return 0;
}

TEST(CostCoefficientsTest, TransformerAndCustomModelsHaveNone) {
  flopspack_transformer_config config;
  flopspack_transformer_config_init(&config);
  config.num_layers = 2;
  config.hidden_size = 64;
  config.num_attention_heads = 4;
  config.num_key_value_heads = 4;
  config.intermediate_size = 256;
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_transformer(&config, &model), FLOPSPACK_OK);
  flopspack_status status;
  Coefficients(model, &status);
  EXPECT_EQ(status, FLOPSPACK_INVALID_ARGUMENT);
  flopspack_cost_model_destroy(model);
  ASSERT_EQ(flopspack_cost_model_custom(ConstantCost, nullptr, &model), FLOPSPACK_OK);
  Coefficients(model, &status);
  EXPECT_EQ(status, FLOPSPACK_INVALID_ARGUMENT);
  flopspack_cost_model_destroy(model);
  EXPECT_FLOPSPACK_ERROR(flopspack_cost_model_coefficients(nullptr, nullptr),
                         FLOPSPACK_INVALID_ARGUMENT, "model must not be NULL");
}

struct Samples {
  std::vector<int64_t> lengths;
  std::vector<size_t> offsets{0};
  std::vector<double> seconds;
  void Add(std::vector<int64_t> docs, double time) {
    lengths.insert(lengths.end(), docs.begin(), docs.end());
    offsets.push_back(lengths.size());
    seconds.push_back(time);
  }
  flopspack_status Evaluate(const flopspack_cost_model* model,
                            const flopspack_evaluate_options* options,
                            flopspack_prediction_quality* out) const {
    return flopspack_cost_model_evaluate(model, options, lengths.data(), offsets.data(),
                                         seconds.data(), seconds.size(), out);
  }
};

TEST(CostEvaluateTest, ScaledTokensRecoverAnAffineTruth) {
  // seconds = 0.002·tokens + 0.05 exactly: a tokens model with a fitted
  // scale predicts every sample; unscaled it is off by orders of magnitude.
  Samples s;
  for (int64_t t : {10, 200, 3000, 40, 777})
    s.Add({t, 1}, 0.002 * static_cast<double>(t + 1) + 0.05);
  flopspack_cost_model* tokens = nullptr;
  ASSERT_EQ(flopspack_cost_model_tokens(&tokens), FLOPSPACK_OK);
  flopspack_evaluate_options options;
  flopspack_evaluate_options_init(&options);
  EXPECT_EQ(options.struct_size, sizeof(options));
  EXPECT_EQ(options.fit_scale, 0);
  EXPECT_EQ(options.scale, 1);
  EXPECT_EQ(options.offset, 0);
  options.fit_scale = 1;
  flopspack_prediction_quality q;
  q.struct_size = sizeof(q);
  ASSERT_EQ(s.Evaluate(tokens, &options, &q), FLOPSPACK_OK) << flopspack_last_error_message();
  EXPECT_NEAR(q.scale, 0.002, 1e-15);
  EXPECT_NEAR(q.offset, 0.05, 1e-13);
  EXPECT_NEAR(q.r_squared, 1, 1e-12);
  EXPECT_NEAR(q.max_relative_error, 0, 1e-12);
  EXPECT_EQ(q.num_samples, 5u);
  ASSERT_EQ(s.Evaluate(tokens, nullptr, &q), FLOPSPACK_OK);  // NULL options: scale 1
  EXPECT_EQ(q.scale, 1);
  EXPECT_EQ(q.offset, 0);
  EXPECT_LT(q.r_squared, -1000);
  // Relative error of the first sample: |11 − 0.072| / 0.072.
  EXPECT_GT(q.max_relative_error, 100);
  flopspack_cost_model_destroy(tokens);
}

int FailingCost(void*, const int64_t*, size_t, double*) { return 7; }

TEST(CostEvaluateTest, BadInputLeavesTheOutputAlone) {
  Samples s;
  s.Add({10}, 1);
  s.Add({20}, 2);
  flopspack_cost_model* tokens = nullptr;
  ASSERT_EQ(flopspack_cost_model_tokens(&tokens), FLOPSPACK_OK);
  flopspack_prediction_quality q;
  std::memset(&q, 0x5A, sizeof(q));
  q.struct_size = sizeof(q);
  const flopspack_prediction_quality before = q;
  auto untouched = [&] { return std::memcmp(&q, &before, sizeof(q)) == 0; };

  flopspack_evaluate_options options;
  flopspack_evaluate_options_init(&options);
  options.fit_scale = 2;
  EXPECT_FLOPSPACK_ERROR(s.Evaluate(tokens, &options, &q), FLOPSPACK_INVALID_ARGUMENT,
                         "fit_scale = 2 must be 0 or 1");
  options.fit_scale = 0;
  options.scale = -1;
  EXPECT_FLOPSPACK_ERROR(s.Evaluate(tokens, &options, &q), FLOPSPACK_INVALID_ARGUMENT,
                         "scale = -1");
  options.scale = 1;
  options.offset = NAN;
  EXPECT_FLOPSPACK_ERROR(s.Evaluate(tokens, &options, &q), FLOPSPACK_INVALID_ARGUMENT,
                         "offset = nan");
  Samples negative = s;
  negative.seconds[1] = -2;
  EXPECT_FLOPSPACK_ERROR(negative.Evaluate(tokens, nullptr, &q), FLOPSPACK_INVALID_ARGUMENT,
                         "seconds[1] = -2");
  Samples nan = s;
  nan.seconds[0] = NAN;
  EXPECT_FLOPSPACK_ERROR(nan.Evaluate(tokens, nullptr, &q), FLOPSPACK_INVALID_ARGUMENT,
                         "seconds[0] = nan");
  Samples one;
  one.Add({5}, 1);
  options.offset = 0;
  options.fit_scale = 1;
  EXPECT_FLOPSPACK_ERROR(one.Evaluate(tokens, &options, &q), FLOPSPACK_INVALID_ARGUMENT,
                         "1 samples are too few (need at least 2 to fit a scale and an offset)");
  flopspack_cost_model* failing = nullptr;
  ASSERT_EQ(flopspack_cost_model_custom(FailingCost, nullptr, &failing), FLOPSPACK_OK);
  EXPECT_FLOPSPACK_ERROR(s.Evaluate(failing, nullptr, &q), FLOPSPACK_CALLBACK_FAILED, "returned 7");
  EXPECT_FLOPSPACK_ERROR(flopspack_cost_model_evaluate(tokens, nullptr, s.lengths.data(), nullptr,
                                                       s.seconds.data(), 2, &q),
                         FLOPSPACK_INVALID_ARGUMENT, "sample_offsets must not be NULL");
  EXPECT_TRUE(untouched());
  flopspack_cost_model_destroy(failing);

  // A newer caller's larger options with a non-zero unknown tail.
  struct Bigger {
    flopspack_evaluate_options known;
    double future;
  } bigger;
  std::memset(&bigger, 0, sizeof(bigger));
  flopspack_evaluate_options_init(&bigger.known);
  bigger.known.struct_size = sizeof(bigger);
  bigger.future = 1;
  EXPECT_FLOPSPACK_ERROR(s.Evaluate(tokens, &bigger.known, &q), FLOPSPACK_INVALID_ARGUMENT,
                         "flopspack_evaluate_options->struct_size");
  EXPECT_TRUE(untouched());
  bigger.future = 0;
  EXPECT_EQ(s.Evaluate(tokens, &bigger.known, &q), FLOPSPACK_OK);
  EXPECT_EQ(q.num_samples, 2u);
  flopspack_cost_model_destroy(tokens);
}

}  // namespace
