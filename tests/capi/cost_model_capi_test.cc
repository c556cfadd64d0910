// The cost-model entry points through the shared library: results, and the
// bad-input rows of docs/errors.md that concern cost models.
#include <cmath>
#include <cstring>
#include <limits>
#include <thread>
#include <vector>

#include "capi_test_util.h"

namespace {

flopspack_transformer_config Llama3_8B() {
  flopspack_transformer_config c;
  flopspack_transformer_config_init(&c);
  c.num_layers = 32;
  c.hidden_size = 4096;
  c.num_attention_heads = 32;
  c.num_key_value_heads = 8;
  c.intermediate_size = 14336;
  c.vocab_size = 128256;
  c.gated_mlp = 1;
  return c;
}

TEST(VersionTest, HeaderAndLibraryAgree) {
  EXPECT_EQ(flopspack_version_number(), static_cast<uint32_t>(FLOPSPACK_VERSION_NUMBER));
  EXPECT_STREQ(flopspack_version_string(), FLOPSPACK_VERSION_STRING);
  EXPECT_STREQ(flopspack_status_string(FLOPSPACK_INFEASIBLE), "FLOPSPACK_INFEASIBLE");
  EXPECT_STREQ(flopspack_status_string(static_cast<flopspack_status>(999)),
               "FLOPSPACK_UNKNOWN_STATUS");
}

TEST(SeedTest, DeriveSeedIsSplitMix64OfTheMixedParent) {
  // Two SplitMix64 steps from seed ^ (0xD1B54A32D192ED03 * (stream + 1)),
  // computed independently here.
  auto splitmix = [](uint64_t& state) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  for (uint64_t seed : {0ull, 1ull, 42ull, ~0ull}) {
    for (uint64_t stream : {0ull, 1ull, 7ull, 1ull << 40}) {
      uint64_t state = seed ^ (0xD1B54A32D192ED03ull * (stream + 1));
      splitmix(state);
      EXPECT_EQ(flopspack_derive_seed(seed, stream), splitmix(state));
    }
  }
  EXPECT_NE(flopspack_derive_seed(1, 0), flopspack_derive_seed(1, 1));
}

TEST(CostModelCapiTest, TransformerMatchesHandComputedValue) {
  flopspack_transformer_config c = Llama3_8B();
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_transformer(&c, &model), FLOPSPACK_OK);
  const int64_t doc = 8192;
  double cost = 0;
  ASSERT_EQ(flopspack_cost_model_sequence_cost(model, &doc, 1, &cost), FLOPSPACK_OK);
  EXPECT_DOUBLE_EQ(cost, 421651971833856.0);
  int additive = -1;
  ASSERT_EQ(flopspack_cost_model_is_additive(model, &additive), FLOPSPACK_OK);
  EXPECT_EQ(additive, 1);
  flopspack_cost_model_destroy(model);
}

TEST(CostModelCapiTest, QueriesAgree) {
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_polynomial(7, 1, 2, 0.25, &model), FLOPSPACK_OK);
  const std::vector<int64_t> docs = {4, 8, 2};
  std::vector<double> per_doc(3);
  ASSERT_EQ(flopspack_cost_model_document_costs(model, docs.data(), 3, per_doc.data()),
            FLOPSPACK_OK);
  EXPECT_DOUBLE_EQ(per_doc[0], 1 + 8 + 4);
  double sequence = 0, overhead = 0, padded = 0;
  ASSERT_EQ(flopspack_cost_model_sequence_cost(model, docs.data(), 3, &sequence), FLOPSPACK_OK);
  ASSERT_EQ(flopspack_cost_model_sequence_overhead(model, &overhead), FLOPSPACK_OK);
  EXPECT_DOUBLE_EQ(sequence, overhead + per_doc[0] + per_doc[1] + per_doc[2]);
  ASSERT_EQ(flopspack_cost_model_padded_batch_cost(model, docs.data(), 3, &padded), FLOPSPACK_OK);
  EXPECT_DOUBLE_EQ(padded, 3 * (7 + 1 + 16 + 16));
  double empty = -1;
  ASSERT_EQ(flopspack_cost_model_sequence_cost(model, nullptr, 0, &empty), FLOPSPACK_OK);
  EXPECT_EQ(empty, 0);
  flopspack_cost_model_destroy(model);
}

TEST(CostModelCapiTest, FitReportsCoefficientsAndRSquared) {
  // Exact samples of 2 + 0.5 l: one document each.
  std::vector<int64_t> lengths = {10, 20, 30, 40, 50};
  std::vector<size_t> offsets = {0, 1, 2, 3, 4, 5};
  std::vector<double> seconds;
  for (int64_t l : lengths) seconds.push_back(2 + 0.5 * static_cast<double>(l));
  flopspack_fit_options options;
  flopspack_fit_options_init(&options);
  options.terms = FLOPSPACK_FIT_PER_SEQUENCE | FLOPSPACK_FIT_LINEAR;
  flopspack_fit_report report;
  report.struct_size = sizeof(report);
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_fit(&options, lengths.data(), offsets.data(), seconds.data(), 5,
                                     &report, &model),
            FLOPSPACK_OK)
      << flopspack_last_error_message();
  EXPECT_NEAR(report.per_sequence, 2, 1e-9);
  EXPECT_NEAR(report.linear, 0.5, 1e-12);
  EXPECT_NEAR(report.r_squared, 1, 1e-12);
  EXPECT_EQ(report.num_samples, 5u);
  const int64_t doc = 100;
  double cost = 0;
  ASSERT_EQ(flopspack_cost_model_sequence_cost(model, &doc, 1, &cost), FLOPSPACK_OK);
  EXPECT_NEAR(cost, 52, 1e-8);
  flopspack_cost_model_destroy(model);
}

struct CallbackState {
  int calls = 0;
  bool fail = false;
};

int QuadraticCallback(void* user_data, const int64_t* lengths, size_t n, double* out) {
  auto* state = static_cast<CallbackState*>(user_data);
  ++state->calls;
  if (state->fail) return 42;
  double total = 0;
  for (size_t i = 0; i < n; ++i) total += static_cast<double>(lengths[i]);
  *out = total * total;
  return 0;
}

TEST(CostModelCapiTest, CustomCallbackAndItsFailure) {
  CallbackState state;
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_custom(QuadraticCallback, &state, &model), FLOPSPACK_OK);
  const int64_t docs[2] = {3, 4};
  double cost = 0;
  ASSERT_EQ(flopspack_cost_model_sequence_cost(model, docs, 2, &cost), FLOPSPACK_OK);
  EXPECT_EQ(cost, 49);
  state.fail = true;
  double untouched[2] = {-1, -1};
  EXPECT_FLOPSPACK_ERROR(flopspack_cost_model_document_costs(model, docs, 2, untouched),
                         FLOPSPACK_CALLBACK_FAILED, "returned 42");
  EXPECT_EQ(untouched[0], -1);  // nothing written on failure
  EXPECT_EQ(untouched[1], -1);
  flopspack_cost_model_destroy(model);
}

// ---- Bad input (docs/errors.md) ----

TEST(CostModelBadInputTest, NullPointers) {
  flopspack_cost_model* model = nullptr;
  EXPECT_FLOPSPACK_ERROR(flopspack_cost_model_tokens(nullptr), FLOPSPACK_INVALID_ARGUMENT,
                         "out must not be NULL");
  EXPECT_FLOPSPACK_ERROR(flopspack_cost_model_transformer(nullptr, &model),
                         FLOPSPACK_INVALID_ARGUMENT, "config must not be NULL");
  EXPECT_FLOPSPACK_ERROR(flopspack_cost_model_custom(nullptr, nullptr, &model),
                         FLOPSPACK_INVALID_ARGUMENT, "fn must not be NULL");
  double cost = 0;
  EXPECT_FLOPSPACK_ERROR(flopspack_cost_model_sequence_cost(nullptr, nullptr, 0, &cost),
                         FLOPSPACK_INVALID_ARGUMENT, "model must not be NULL");
  ASSERT_EQ(flopspack_cost_model_tokens(&model), FLOPSPACK_OK);
  EXPECT_FLOPSPACK_ERROR(flopspack_cost_model_sequence_cost(model, nullptr, 3, &cost),
                         FLOPSPACK_INVALID_ARGUMENT,
                         "document_lengths is NULL but its length is 3");
  const int64_t doc = 5;
  EXPECT_FLOPSPACK_ERROR(flopspack_cost_model_sequence_cost(model, &doc, 1, nullptr),
                         FLOPSPACK_INVALID_ARGUMENT, "out_cost must not be NULL");
  EXPECT_EQ(model != nullptr, true);
  flopspack_cost_model_destroy(model);
}

TEST(CostModelBadInputTest, NonPositiveLengths) {
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_tokens(&model), FLOPSPACK_OK);
  double cost = 123;
  const int64_t zero[2] = {5, 0};
  EXPECT_FLOPSPACK_ERROR(flopspack_cost_model_sequence_cost(model, zero, 2, &cost),
                         FLOPSPACK_INVALID_ARGUMENT, "document_lengths[1] = 0");
  const int64_t negative[1] = {-7};
  EXPECT_FLOPSPACK_ERROR(flopspack_cost_model_padded_batch_cost(model, negative, 1, &cost),
                         FLOPSPACK_INVALID_ARGUMENT, "document_lengths[0] = -7");
  EXPECT_EQ(cost, 123);  // untouched
  flopspack_cost_model_destroy(model);
}

TEST(CostModelBadInputTest, OverflowingSize) {
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_tokens(&model), FLOPSPACK_OK);
  const int64_t doc = 1;
  double cost = 0;
  EXPECT_FLOPSPACK_ERROR(flopspack_cost_model_sequence_cost(model, &doc, SIZE_MAX / 2, &cost),
                         FLOPSPACK_OUT_OF_RANGE, "overflows");
  flopspack_cost_model_destroy(model);
}

TEST(CostModelBadInputTest, NonFiniteCoefficients) {
  flopspack_cost_model* model = nullptr;
  EXPECT_FLOPSPACK_ERROR(
      flopspack_cost_model_polynomial(0, 0, std::numeric_limits<double>::quiet_NaN(), 0, &model),
      FLOPSPACK_INVALID_ARGUMENT, "linear = nan");
  EXPECT_FLOPSPACK_ERROR(
      flopspack_cost_model_polynomial(std::numeric_limits<double>::infinity(), 0, 1, 0, &model),
      FLOPSPACK_INVALID_ARGUMENT, "per_sequence = inf");
  EXPECT_FLOPSPACK_ERROR(flopspack_cost_model_polynomial(0, 0, 1, -1, &model),
                         FLOPSPACK_INVALID_ARGUMENT, "quadratic = -1");
  EXPECT_EQ(model, nullptr);
}

TEST(CostModelBadInputTest, BadTransformerConfigs) {
  flopspack_cost_model* model = nullptr;
  flopspack_transformer_config c = Llama3_8B();
  c.hidden_size = 0;
  EXPECT_FLOPSPACK_ERROR(flopspack_cost_model_transformer(&c, &model), FLOPSPACK_INVALID_ARGUMENT,
                         "hidden_size = 0 must be positive");
  c = Llama3_8B();
  c.num_attention_heads = 24;
  c.num_key_value_heads = 8;
  EXPECT_FLOPSPACK_ERROR(flopspack_cost_model_transformer(&c, &model), FLOPSPACK_INVALID_ARGUMENT,
                         "does not divide hidden_size");
  c = Llama3_8B();
  c.causal = 2;
  EXPECT_FLOPSPACK_ERROR(flopspack_cost_model_transformer(&c, &model), FLOPSPACK_INVALID_ARGUMENT,
                         "causal = 2 must be 0 or 1");
  c = Llama3_8B();
  c.attention_span = 7;
  EXPECT_FLOPSPACK_ERROR(flopspack_cost_model_transformer(&c, &model), FLOPSPACK_INVALID_ARGUMENT,
                         "attention_span = 7");
  EXPECT_EQ(model, nullptr);
}

TEST(CostModelBadInputTest, StructSizeVersioning) {
  flopspack_cost_model* model = nullptr;
  flopspack_transformer_config c = Llama3_8B();
  c.struct_size = 0;
  EXPECT_FLOPSPACK_ERROR(flopspack_cost_model_transformer(&c, &model), FLOPSPACK_INVALID_ARGUMENT,
                         "struct_size = 0");

  // A newer caller's larger struct: accepted with a zero tail, rejected
  // with a non-zero one.
  struct Newer {
    flopspack_transformer_config base;
    int64_t future_field;
  } newer;
  std::memset(&newer, 0, sizeof(newer));
  newer.base = Llama3_8B();
  newer.base.struct_size = sizeof(newer);
  EXPECT_EQ(flopspack_cost_model_transformer(&newer.base, &model), FLOPSPACK_OK);
  flopspack_cost_model_destroy(model);
  model = nullptr;
  newer.future_field = 1;
  EXPECT_FLOPSPACK_ERROR(flopspack_cost_model_transformer(&newer.base, &model),
                         FLOPSPACK_INVALID_ARGUMENT, "unknown tail is non-zero");
  EXPECT_EQ(model, nullptr);

  // An older caller's smaller struct (without attention_span) gets the
  // default for the missing field.
  flopspack_transformer_config older = Llama3_8B();
  older.attention_span = 99;  // beyond the old size: must be ignored
  older.struct_size = offsetof(flopspack_transformer_config, attention_span);
  ASSERT_EQ(flopspack_cost_model_transformer(&older, &model), FLOPSPACK_OK)
      << flopspack_last_error_message();
  int additive = 0;
  ASSERT_EQ(flopspack_cost_model_is_additive(model, &additive), FLOPSPACK_OK);
  EXPECT_EQ(additive, 1);  // the DOCUMENT default
  flopspack_cost_model_destroy(model);
}

TEST(CostModelBadInputTest, FitWithTooFewSamples) {
  std::vector<int64_t> lengths = {10, 20};
  std::vector<size_t> offsets = {0, 1, 2};
  std::vector<double> seconds = {1, 2};
  flopspack_cost_model* model = nullptr;
  EXPECT_FLOPSPACK_ERROR(flopspack_cost_model_fit(nullptr, lengths.data(), offsets.data(),
                                                  seconds.data(), 2, nullptr, &model),
                         FLOPSPACK_INVALID_ARGUMENT, "too few");
  EXPECT_EQ(model, nullptr);
}

TEST(CostModelThreadTest, OneModelSharedByManyThreads) {
  flopspack_transformer_config c = Llama3_8B();
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_transformer(&c, &model), FLOPSPACK_OK);
  const int64_t doc = 4096;
  double expected = 0;
  ASSERT_EQ(flopspack_cost_model_sequence_cost(model, &doc, 1, &expected), FLOPSPACK_OK);
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 1000; ++i) {
        double cost = 0;
        if (flopspack_cost_model_sequence_cost(model, &doc, 1, &cost) != FLOPSPACK_OK ||
            cost != expected) {
          ++mismatches[t];
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int m : mismatches) EXPECT_EQ(m, 0);
  flopspack_cost_model_destroy(model);
}

TEST(ErrorMessageTest, IsPerThread) {
  flopspack_cost_model_tokens(nullptr);
  std::string other;
  std::thread([&] { other = flopspack_last_error_message(); }).join();
  EXPECT_EQ(other, "");
  EXPECT_NE(std::string(flopspack_last_error_message()), "");
}

}  // namespace
