// Fuzzes the cost-model entry points with arbitrary parameters and lengths
// (NaN, negative, huge, NULL-with-size-zero). Invariants on success: costs
// are finite and non-negative, additive models satisfy
// sequence = overhead + sum of document costs, padded >= sequence of the
// longest; a model's coefficients, when it has them, reproduce its costs;
// the prediction quality of fuzzed samples is within its bounds (R² <= 1,
// 0 <= median <= max relative error, the map given or non-negative); on
// failure, out-parameters are untouched.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "flopspack/flopspack.h"

namespace {

void Require(bool condition, const char* what) {
  if (!condition) {
    std::fprintf(stderr, "invariant violated: %s\n", what);
    std::abort();
  }
}

flopspack_cost_model* MakeModel(FuzzedDataProvider& in) {
  flopspack_cost_model* model = nullptr;
  switch (in.ConsumeIntegralInRange(0, 3)) {
    case 0:
      flopspack_cost_model_tokens(&model);
      break;
    case 1:
      flopspack_cost_model_polynomial(
          in.ConsumeFloatingPoint<double>(), in.ConsumeFloatingPoint<double>(),
          in.ConsumeFloatingPoint<double>(), in.ConsumeFloatingPoint<double>(), &model);
      break;
    case 2: {
      // The config sits at the start of a 256-byte buffer so that any
      // struct_size up to 256 describes memory the caller really owns (a
      // newer caller's larger struct), with a fuzzed tail.
      alignas(8) unsigned char buffer[256] = {};
      flopspack_transformer_config& c = *reinterpret_cast<flopspack_transformer_config*>(buffer);
      flopspack_transformer_config_init(&c);
      c.num_layers = in.ConsumeIntegralInRange<int64_t>(-2, 200);
      c.hidden_size = in.ConsumeIntegralInRange<int64_t>(-2, 1 << 16);
      c.num_attention_heads = in.ConsumeIntegralInRange<int64_t>(-1, 128);
      c.num_key_value_heads = in.ConsumeIntegralInRange<int64_t>(-1, 128);
      c.head_dim = in.ConsumeIntegralInRange<int64_t>(-1, 512);
      c.intermediate_size = in.ConsumeIntegralInRange<int64_t>(-1, 1 << 18);
      c.vocab_size = in.ConsumeIntegralInRange<int64_t>(-1, 1 << 18);
      c.gated_mlp = in.ConsumeIntegralInRange<int32_t>(-1, 2);
      c.causal = in.ConsumeIntegralInRange<int32_t>(-1, 2);
      c.recompute = in.ConsumeIntegralInRange<int32_t>(-1, 2);
      c.attention_span = in.ConsumeIntegralInRange<int32_t>(-1, 2);
      if (in.ConsumeBool()) {
        c.struct_size = in.ConsumeIntegralInRange<uint32_t>(0, sizeof(buffer));
        if (in.ConsumeBool())
          buffer[in.ConsumeIntegralInRange<size_t>(4, 255)] ^= 1;  // not struct_size
      }
      flopspack_cost_model_transformer(&c, &model);
      break;
    }
    default: {
      const size_t samples = in.ConsumeIntegralInRange<size_t>(0, 12);
      std::vector<size_t> offsets{0};
      std::vector<int64_t> lengths;
      std::vector<double> seconds;
      for (size_t s = 0; s < samples; ++s) {
        const size_t docs = in.ConsumeIntegralInRange<size_t>(0, 4);
        for (size_t d = 0; d < docs; ++d) {
          lengths.push_back(in.ConsumeIntegralInRange<int64_t>(-1, 1 << 20));
        }
        offsets.push_back(lengths.size());
        seconds.push_back(in.ConsumeFloatingPoint<double>());
      }
      flopspack_fit_options options;
      flopspack_fit_options_init(&options);
      options.terms = in.ConsumeIntegralInRange<uint32_t>(0, 16);
      flopspack_fit_report report;
      report.struct_size = sizeof(report);
      if (flopspack_cost_model_fit(&options, lengths.data(), offsets.data(), seconds.data(),
                                   samples, &report, &model) == FLOPSPACK_OK) {
        Require(report.per_sequence >= 0 && report.per_document >= 0 && report.linear >= 0 &&
                    report.quadratic >= 0,
                "fitted coefficients are non-negative");
        Require(!(report.r_squared > 1 + 1e-9), "R^2 <= 1");
      }
      break;
    }
  }
  return model;
}

// flopspack_cost_model_coefficients: exact for polynomial-form models (the
// polynomial of the coefficients gives the model's cost), untouched output
// for the others.
void CheckCoefficients(const flopspack_cost_model* model, const std::vector<int64_t>& lengths,
                       double sequence) {
  flopspack_polynomial_coefficients c;
  std::memset(&c, 0x5A, sizeof(c));
  c.struct_size = sizeof(c);
  const flopspack_polynomial_coefficients before = c;
  if (flopspack_cost_model_coefficients(model, &c) != FLOPSPACK_OK) {
    Require(std::memcmp(&c, &before, sizeof(c)) == 0, "coefficients untouched on failure");
    return;
  }
  Require(c.per_sequence >= 0 && c.per_document >= 0 && c.linear >= 0 && c.quadratic >= 0,
          "coefficients are non-negative");
  flopspack_cost_model* again = nullptr;
  Require(flopspack_cost_model_polynomial(c.per_sequence, c.per_document, c.linear, c.quadratic,
                                          &again) == FLOPSPACK_OK,
          "coefficients make a model");
  double cost = -1;
  if (sequence >= 0) {
    Require(flopspack_cost_model_sequence_cost(again, lengths.data(), lengths.size(), &cost) ==
                    FLOPSPACK_OK &&
                (cost == sequence || (std::isinf(cost) && std::isinf(sequence))),
            "the coefficients' model costs the same");
  }
  flopspack_cost_model_destroy(again);
}

// flopspack_cost_model_evaluate on fuzzed samples and options.
void CheckEvaluate(const flopspack_cost_model* model, FuzzedDataProvider& in) {
  const size_t samples = in.ConsumeIntegralInRange<size_t>(0, 10);
  std::vector<size_t> offsets{0};
  std::vector<int64_t> lengths;
  std::vector<double> seconds;
  for (size_t s = 0; s < samples; ++s) {
    const size_t docs = in.ConsumeIntegralInRange<size_t>(0, 4);
    for (size_t d = 0; d < docs; ++d) {
      lengths.push_back(in.ConsumeIntegralInRange<int64_t>(-1, 1 << 20));
    }
    offsets.push_back(lengths.size());
    seconds.push_back(in.ConsumeBool() ? in.ConsumeFloatingPointInRange<double>(1e-6, 10)
                                       : in.ConsumeFloatingPoint<double>());
  }
  flopspack_evaluate_options options;
  flopspack_evaluate_options_init(&options);
  options.fit_scale = in.ConsumeIntegralInRange<int32_t>(-1, 2);
  if (in.ConsumeBool()) options.scale = in.ConsumeFloatingPoint<double>();
  if (in.ConsumeBool()) options.offset = in.ConsumeFloatingPoint<double>();
  flopspack_prediction_quality q;
  std::memset(&q, 0x5A, sizeof(q));
  q.struct_size = sizeof(q);
  const flopspack_prediction_quality before = q;
  if (flopspack_cost_model_evaluate(model, &options, lengths.data(), offsets.data(), seconds.data(),
                                    samples, &q) != FLOPSPACK_OK) {
    Require(std::memcmp(&q, &before, sizeof(q)) == 0, "quality untouched on failure");
    Require(std::strlen(flopspack_last_error_message()) > 0, "a message on failure");
    return;
  }
  Require(q.num_samples == samples && samples >= 1, "one figure per sample");
  Require(!(q.r_squared > 1 + 1e-9), "R^2 <= 1");
  Require(!(q.rms_residual < 0), "RMS >= 0");
  Require(!(q.median_relative_error < 0) && !(q.median_relative_error > q.max_relative_error) &&
              !(q.mean_relative_error > q.max_relative_error * (1 + 1e-12)),
          "0 <= median, mean <= max relative error");
  if (options.fit_scale == 1) {
    Require(q.scale >= 0 && q.offset >= 0, "a fitted map is non-negative");
  } else {
    Require(q.scale == options.scale && q.offset == options.offset, "the given map is used");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  flopspack_cost_model* model = MakeModel(in);
  if (model == nullptr) return 0;
  std::vector<int64_t> lengths;
  const size_t n = in.ConsumeIntegralInRange<size_t>(0, 64);
  for (size_t i = 0; i < n; ++i) {
    lengths.push_back(in.ConsumeBool() ? in.ConsumeIntegralInRange<int64_t>(1, 1 << 17)
                                       : in.ConsumeIntegral<int64_t>());
  }
  double sequence = -7, padded = -7, overhead = 0;
  std::vector<double> documents(n, -7);
  const flopspack_status s1 =
      flopspack_cost_model_sequence_cost(model, lengths.data(), n, &sequence);
  const flopspack_status s2 =
      flopspack_cost_model_document_costs(model, lengths.data(), n, documents.data());
  const flopspack_status s3 =
      flopspack_cost_model_padded_batch_cost(model, lengths.data(), n, &padded);
  int additive = 0;
  Require(flopspack_cost_model_is_additive(model, &additive) == FLOPSPACK_OK, "is_additive");
  Require(flopspack_cost_model_sequence_overhead(model, &overhead) == FLOPSPACK_OK, "overhead");
  Require((s1 == FLOPSPACK_OK) == (s2 == FLOPSPACK_OK), "same validation for all queries");
  if (s1 != FLOPSPACK_OK) {
    Require(sequence == -7 && padded == -7, "out-parameters untouched on failure");
    for (double d : documents) Require(d == -7, "buffer untouched on failure");
    Require(std::strlen(flopspack_last_error_message()) > 0, "a message on failure");
  } else {
    Require(s3 == FLOPSPACK_OK, "padded cost succeeds when the lengths are valid");
    Require(std::isfinite(sequence) || std::isinf(sequence), "sequence cost is a number");
    Require(sequence >= 0 && padded >= 0, "costs are non-negative");
    double sum = n ? overhead : 0;
    for (double d : documents) {
      Require(d >= 0, "document costs are non-negative");
      sum += d;
    }
    if (additive && std::isfinite(sum) && std::isfinite(sequence)) {
      Require(std::fabs(sum - sequence) <= 1e-9 * std::max(1.0, sequence),
              "additive: sequence = overhead + sum of documents");
    }
  }
  CheckCoefficients(model, lengths, s1 == FLOPSPACK_OK ? sequence : -1);
  CheckEvaluate(model, in);
  flopspack_cost_model_destroy(model);
  return 0;
}
