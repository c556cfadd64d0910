// extern "C" entry points for cost models: validate pointers, convert, call
// the core in src/cost/, map the status.
#include <memory>
#include <vector>

#include "capi/capi_util.h"
#include "capi/handles.h"
#include "cost/custom.h"
#include "cost/evaluate.h"
#include "cost/fit.h"
#include "cost/polynomial.h"
#include "cost/transformer.h"
#include "util/validate.h"

using flopspack::capi::FromStatus;
using flopspack::capi::Guard;
using flopspack::capi::ReadOptions;
using flopspack::capi::RequireArray;
using flopspack::capi::RequireNonNull;
using flopspack::capi::SetError;
using flopspack::capi::WriteOutput;

namespace {

flopspack_status Emit(std::shared_ptr<const flopspack::cost::CostModel> model,
                      flopspack_cost_model** out) {
  *out = new flopspack_cost_model{std::move(model)};
  return FLOPSPACK_OK;
}

flopspack_status CheckModelAndLengths(const flopspack_cost_model* model, const int64_t* lengths,
                                      size_t n) {
  if (flopspack_status s = RequireNonNull(model, "model")) return s;
  if (flopspack_status s = RequireArray(lengths, n, sizeof(int64_t), "document_lengths")) return s;
  absl::StatusOr<int64_t> total =
      flopspack::util::CheckLengths("document_lengths", absl::MakeConstSpan(lengths, n));
  return FromStatus(total.status());
}

}  // namespace

extern "C" {

flopspack_status flopspack_cost_model_tokens(flopspack_cost_model** out) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    return Emit(flopspack::cost::PolynomialModel::Tokens(), out);
  });
}

flopspack_status flopspack_cost_model_polynomial(double per_sequence, double per_document,
                                                 double linear, double quadratic,
                                                 flopspack_cost_model** out) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    auto model =
        flopspack::cost::PolynomialModel::Create({per_sequence, per_document, linear, quadratic});
    if (!model.ok()) return FromStatus(model.status());
    return Emit(std::move(*model), out);
  });
}

void flopspack_transformer_config_init(flopspack_transformer_config* config) {
  if (config == nullptr) return;
  *config = flopspack_transformer_config{};
  config->struct_size = sizeof(flopspack_transformer_config);
  config->causal = 1;
  config->attention_span = FLOPSPACK_ATTENTION_DOCUMENT;
}

flopspack_status flopspack_cost_model_transformer(const flopspack_transformer_config* config,
                                                  flopspack_cost_model** out) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(config, "config")) return s;
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    flopspack_transformer_config c;
    flopspack_transformer_config_init(&c);
    if (flopspack_status s = ReadOptions(config, &c, "flopspack_transformer_config")) return s;
    for (auto [name, value] : {std::pair<const char*, int32_t>{"gated_mlp", c.gated_mlp},
                               {"causal", c.causal},
                               {"recompute", c.recompute}}) {
      if (value != 0 && value != 1) {
        return SetError(FLOPSPACK_INVALID_ARGUMENT,
                        absl::StrFormat("transformer config: %s = %d must be 0 or 1", name, value));
      }
    }
    if (c.attention_span != FLOPSPACK_ATTENTION_DOCUMENT &&
        c.attention_span != FLOPSPACK_ATTENTION_SEQUENCE) {
      return SetError(FLOPSPACK_INVALID_ARGUMENT,
                      absl::StrFormat("transformer config: attention_span = %d is not a "
                                      "flopspack_attention_span value",
                                      c.attention_span));
    }
    flopspack::cost::TransformerShape shape;
    shape.num_layers = c.num_layers;
    shape.hidden_size = c.hidden_size;
    shape.num_attention_heads = c.num_attention_heads;
    shape.num_key_value_heads = c.num_key_value_heads;
    shape.head_dim = c.head_dim;
    shape.intermediate_size = c.intermediate_size;
    shape.vocab_size = c.vocab_size;
    shape.gated_mlp = c.gated_mlp == 1;
    shape.causal = c.causal == 1;
    shape.recompute = c.recompute == 1;
    shape.attention_span = static_cast<flopspack::cost::AttentionSpan>(c.attention_span);
    auto model = flopspack::cost::TransformerModel::Create(shape);
    if (!model.ok()) return FromStatus(model.status());
    return Emit(std::move(*model), out);
  });
}

void flopspack_fit_options_init(flopspack_fit_options* options) {
  if (options == nullptr) return;
  *options = flopspack_fit_options{};
  options->struct_size = sizeof(flopspack_fit_options);
  options->terms = FLOPSPACK_FIT_ALL;
}

flopspack_status flopspack_cost_model_fit(const flopspack_fit_options* options,
                                          const int64_t* document_lengths,
                                          const size_t* sample_offsets, const double* seconds,
                                          size_t num_samples, flopspack_fit_report* report,
                                          flopspack_cost_model** out) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    if (flopspack_status s = RequireNonNull(sample_offsets, "sample_offsets")) return s;
    if (flopspack_status s = RequireArray(seconds, num_samples, sizeof(double), "seconds")) {
      return s;
    }
    if (num_samples == SIZE_MAX) {
      return SetError(FLOPSPACK_OUT_OF_RANGE, "num_samples overflows");
    }
    flopspack_fit_options o;
    flopspack_fit_options_init(&o);
    if (flopspack_status s = ReadOptions(options, &o, "flopspack_fit_options")) return s;
    const size_t num_lengths = sample_offsets[num_samples];
    if (flopspack_status s =
            RequireArray(document_lengths, num_lengths, sizeof(int64_t), "document_lengths")) {
      return s;
    }
    if (o.terms == 0 || o.terms > FLOPSPACK_FIT_ALL) {
      return SetError(FLOPSPACK_INVALID_ARGUMENT,
                      absl::StrFormat("fit: terms = %u must be a non-empty combination of "
                                      "FLOPSPACK_FIT_* flags (1..15)",
                                      o.terms));
    }
    auto fit = flopspack::cost::FitPolynomial(absl::MakeConstSpan(document_lengths, num_lengths),
                                              absl::MakeConstSpan(sample_offsets, num_samples + 1),
                                              absl::MakeConstSpan(seconds, num_samples), o.terms);
    if (!fit.ok()) return FromStatus(fit.status());
    auto model = flopspack::cost::PolynomialModel::Create(fit->coefficients);
    if (!model.ok()) return FromStatus(model.status());
    if (report != nullptr) {
      flopspack_fit_report full{};
      full.struct_size = sizeof(full);
      full.per_sequence = fit->coefficients.per_sequence;
      full.per_document = fit->coefficients.per_document;
      full.linear = fit->coefficients.linear;
      full.quadratic = fit->coefficients.quadratic;
      full.r_squared = fit->r_squared;
      full.rms_residual = fit->rms_residual;
      full.num_samples = fit->num_samples;
      if (flopspack_status s = WriteOutput(full, report, "flopspack_fit_report")) return s;
    }
    return Emit(std::move(*model), out);
  });
}

flopspack_status flopspack_cost_model_custom(flopspack_sequence_cost_fn fn, void* user_data,
                                             flopspack_cost_model** out) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(reinterpret_cast<const void*>(fn), "fn")) return s;
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    auto call = [fn, user_data](absl::Span<const int64_t> lengths) -> absl::StatusOr<double> {
      double cost = 0;
      const int rc = fn(user_data, lengths.data(), lengths.size(), &cost);
      if (rc != 0) {
        return absl::AbortedError(absl::StrFormat(
            "custom cost callback returned %d for a sequence of %u documents", rc, lengths.size()));
      }
      return cost;
    };
    return Emit(std::make_shared<flopspack::cost::CustomModel>(call), out);
  });
}

flopspack_status flopspack_cost_model_sequence_cost(const flopspack_cost_model* model,
                                                    const int64_t* document_lengths, size_t n,
                                                    double* out_cost) {
  return Guard([&] {
    if (flopspack_status s = CheckModelAndLengths(model, document_lengths, n)) return s;
    if (flopspack_status s = RequireNonNull(out_cost, "out_cost")) return s;
    auto cost = model->model->SequenceCost(absl::MakeConstSpan(document_lengths, n));
    if (!cost.ok()) return FromStatus(cost.status());
    *out_cost = *cost;
    return FLOPSPACK_OK;
  });
}

flopspack_status flopspack_cost_model_document_costs(const flopspack_cost_model* model,
                                                     const int64_t* document_lengths, size_t n,
                                                     double* out_costs) {
  return Guard([&] {
    if (flopspack_status s = CheckModelAndLengths(model, document_lengths, n)) return s;
    if (flopspack_status s = RequireArray(out_costs, n, sizeof(double), "out_costs")) return s;
    // Compute into a scratch buffer so a failing callback leaves out_costs alone.
    std::vector<double> costs(n);
    absl::Status status = model->model->DocumentCosts(absl::MakeConstSpan(document_lengths, n),
                                                      absl::MakeSpan(costs));
    if (!status.ok()) return FromStatus(status);
    std::copy(costs.begin(), costs.end(), out_costs);
    return FLOPSPACK_OK;
  });
}

flopspack_status flopspack_cost_model_padded_batch_cost(const flopspack_cost_model* model,
                                                        const int64_t* lengths, size_t n,
                                                        double* out_cost) {
  return Guard([&] {
    if (flopspack_status s = CheckModelAndLengths(model, lengths, n)) return s;
    if (flopspack_status s = RequireNonNull(out_cost, "out_cost")) return s;
    auto cost = model->model->PaddedBatchCost(absl::MakeConstSpan(lengths, n));
    if (!cost.ok()) return FromStatus(cost.status());
    *out_cost = *cost;
    return FLOPSPACK_OK;
  });
}

flopspack_status flopspack_cost_model_sequence_overhead(const flopspack_cost_model* model,
                                                        double* out_overhead) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(model, "model")) return s;
    if (flopspack_status s = RequireNonNull(out_overhead, "out_overhead")) return s;
    *out_overhead = model->model->SequenceOverhead();
    return FLOPSPACK_OK;
  });
}

flopspack_status flopspack_cost_model_is_additive(const flopspack_cost_model* model,
                                                  int* out_additive) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(model, "model")) return s;
    if (flopspack_status s = RequireNonNull(out_additive, "out_additive")) return s;
    *out_additive = model->model->IsAdditive() ? 1 : 0;
    return FLOPSPACK_OK;
  });
}

void flopspack_cost_model_destroy(flopspack_cost_model* model) { delete model; }

flopspack_status flopspack_cost_model_coefficients(const flopspack_cost_model* model,
                                                   flopspack_polynomial_coefficients* out) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(model, "model")) return s;
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    const auto* polynomial =
        dynamic_cast<const flopspack::cost::PolynomialModel*>(model->model.get());
    if (polynomial == nullptr) {
      return SetError(FLOPSPACK_INVALID_ARGUMENT,
                      "model: only a tokens, polynomial or fitted model has polynomial "
                      "coefficients (a transformer or custom model has none)");
    }
    const flopspack::cost::PolynomialCoefficients& c = polynomial->coefficients();
    flopspack_polynomial_coefficients full{};
    full.struct_size = sizeof(full);
    full.per_sequence = c.per_sequence;
    full.per_document = c.per_document;
    full.linear = c.linear;
    full.quadratic = c.quadratic;
    return WriteOutput(full, out, "flopspack_polynomial_coefficients");
  });
}

void flopspack_evaluate_options_init(flopspack_evaluate_options* options) {
  if (options == nullptr) return;
  *options = flopspack_evaluate_options{};
  options->struct_size = sizeof(flopspack_evaluate_options);
  options->fit_scale = 0;
  options->scale = 1;
  options->offset = 0;
}

flopspack_status flopspack_cost_model_evaluate(const flopspack_cost_model* model,
                                               const flopspack_evaluate_options* options,
                                               const int64_t* document_lengths,
                                               const size_t* sample_offsets, const double* seconds,
                                               size_t num_samples,
                                               flopspack_prediction_quality* out) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(model, "model")) return s;
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    if (flopspack_status s = RequireNonNull(sample_offsets, "sample_offsets")) return s;
    if (flopspack_status s = RequireArray(seconds, num_samples, sizeof(double), "seconds")) {
      return s;
    }
    if (num_samples == SIZE_MAX) {
      return SetError(FLOPSPACK_OUT_OF_RANGE, "num_samples overflows");
    }
    flopspack_evaluate_options o;
    flopspack_evaluate_options_init(&o);
    if (flopspack_status s = ReadOptions(options, &o, "flopspack_evaluate_options")) return s;
    if (o.fit_scale != 0 && o.fit_scale != 1) {
      return SetError(
          FLOPSPACK_INVALID_ARGUMENT,
          absl::StrFormat("evaluate options: fit_scale = %d must be 0 or 1", o.fit_scale));
    }
    const size_t num_lengths = sample_offsets[num_samples];
    if (flopspack_status s =
            RequireArray(document_lengths, num_lengths, sizeof(int64_t), "document_lengths")) {
      return s;
    }
    flopspack::cost::EvaluateOptions core;
    core.fit_scale = o.fit_scale == 1;
    core.scale = o.scale;
    core.offset = o.offset;
    auto quality = flopspack::cost::EvaluateModel(
        *model->model, absl::MakeConstSpan(document_lengths, num_lengths),
        absl::MakeConstSpan(sample_offsets, num_samples + 1),
        absl::MakeConstSpan(seconds, num_samples), core);
    if (!quality.ok()) return FromStatus(quality.status());
    flopspack_prediction_quality full{};
    full.struct_size = sizeof(full);
    full.scale = quality->scale;
    full.offset = quality->offset;
    full.r_squared = quality->r_squared;
    full.rms_residual = quality->rms_residual;
    full.mean_relative_error = quality->mean_relative_error;
    full.median_relative_error = quality->median_relative_error;
    full.max_relative_error = quality->max_relative_error;
    full.num_samples = quality->num_samples;
    return WriteOutput(full, out, "flopspack_prediction_quality");
  });
}

}  // extern "C"
