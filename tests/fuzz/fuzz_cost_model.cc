// Fuzzes the cost-model entry points with arbitrary parameters and lengths
// (NaN, negative, huge, NULL-with-size-zero). Invariants on success: costs
// are finite and non-negative, additive models satisfy
// sequence = overhead + sum of document costs, padded >= sequence of the
// longest; on failure, out-parameters are untouched.
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
  flopspack_cost_model_destroy(model);
  return 0;
}
