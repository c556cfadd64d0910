// extern "C" entry points for the straggler emulator: validate pointers,
// read the options, call the core in src/sim/, map the status.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "capi/capi_util.h"
#include "capi/handles.h"
#include "capi/stats_handle.h"
#include "pack/planner/pipeline_schedule.h"
#include "sim/simulator.h"

using flopspack::capi::FromStatus;
using flopspack::capi::Guard;
using flopspack::capi::ReadEnum;
using flopspack::capi::ReadOptions;
using flopspack::capi::RequireArray;
using flopspack::capi::RequireNonNull;
using flopspack::capi::SetError;
using flopspack::capi::WriteOutput;

struct flopspack_simulate_result {
  flopspack::sim::SimResult result;
};

namespace {

flopspack_status Convert(const flopspack_simulate_options* options,
                         flopspack::sim::SimOptions* out) {
  flopspack_simulate_options o;
  flopspack_simulate_options_init(&o);
  if (flopspack_status s = ReadOptions(options, &o, "flopspack_simulate_options")) return s;
  // context_parallel_size lies where a struct of the library before it had
  // 4 bytes of padding, which such a caller may leave as anything: the CP
  // fields are read only from a struct that holds both.
  if (options != nullptr &&
      options->struct_size < offsetof(flopspack_simulate_options, context_parallel_layout) +
                                 sizeof(o.context_parallel_layout)) {
    o.context_parallel_size = 0;
    o.context_parallel_layout = FLOPSPACK_CP_DOCUMENT_HEAD_TAIL;
  }
  if (flopspack_status s = ReadEnum(
          o.context_parallel_layout,
          {FLOPSPACK_CP_SEQUENCE_HEAD_TAIL, FLOPSPACK_CP_DOCUMENT_HEAD_TAIL, FLOPSPACK_CP_ADAPTIVE},
          absl::StrFormat("flopspack_simulate_options.context_parallel_layout = %d: not a "
                          "flopspack_cp_layout value",
                          o.context_parallel_layout),
          &out->context_parallel_layout)) {
    return s;
  }
  out->context_parallel_size = o.context_parallel_size;
  if (o.record_steps != 0 && o.record_steps != 1) {
    return SetError(FLOPSPACK_INVALID_ARGUMENT,
                    absl::StrFormat("flopspack_simulate_options.record_steps = %d must be 0 or 1",
                                    o.record_steps));
  }
  if (flopspack_status s = ReadEnum(
          o.policy,
          {FLOPSPACK_SIM_RANDOM, FLOPSPACK_SIM_TOKEN_BALANCED, FLOPSPACK_SIM_BUCKETS,
           FLOPSPACK_SIM_PLANNER_DOCUMENTS, FLOPSPACK_SIM_PLANNER_RANDOM,
           FLOPSPACK_SIM_PLANNER_TOKENS, FLOPSPACK_SIM_PLANNER_SEQUENCES},
          absl::StrFormat("policy = %d is not a flopspack_sim_policy value (0 .. 6)", o.policy),
          &out->policy)) {
    return s;
  }
  if (flopspack_status s =
          ReadEnum(o.sync, {FLOPSPACK_SYNC_STEP, FLOPSPACK_SYNC_MICROBATCH},
                   absl::StrFormat("flopspack_simulate_options.sync = %d: not a flopspack_sync "
                                   "value (FLOPSPACK_SYNC_STEP or FLOPSPACK_SYNC_MICROBATCH)",
                                   o.sync),
                   &out->sync)) {
    return s;
  }
  if (flopspack_status s =
          ReadEnum(o.pipeline_schedule, {FLOPSPACK_PIPELINE_1F1B},
                   absl::StrFormat("flopspack_simulate_options.pipeline_schedule = %d: not a "
                                   "flopspack_pipeline_schedule value (FLOPSPACK_PIPELINE_1F1B)",
                                   o.pipeline_schedule),
                   &out->pipeline_schedule)) {
    return s;
  }
  if (o.pipeline_stages > flopspack::pack::kMaxPipelineStages) {
    return SetError(FLOPSPACK_INVALID_ARGUMENT,
                    absl::StrFormat("flopspack_simulate_options.pipeline_stages = %u: at most %d",
                                    o.pipeline_stages, flopspack::pack::kMaxPipelineStages));
  }
  out->pipeline_stages = o.pipeline_stages;
  out->num_ranks = o.num_ranks;
  out->microbatches_per_rank = o.microbatches_per_rank;
  out->tokens_per_microbatch = o.tokens_per_microbatch;
  out->max_tokens_per_microbatch = o.max_tokens_per_microbatch;
  out->num_steps = o.num_steps;
  out->seed = o.seed;
  out->record_steps = o.record_steps == 1;
  if (o.progress != nullptr) {
    const flopspack_progress_fn fn = o.progress;
    void* user_data = o.progress_user_data;
    out->progress = [fn, user_data](uint64_t done, uint64_t total) {
      return fn(user_data, done, total) == 0;
    };
  }
  return FLOPSPACK_OK;
}

flopspack_status CheckInputs(const int64_t* lengths, size_t n, const flopspack_cost_model* model) {
  if (flopspack_status s = RequireArray(lengths, n, sizeof(int64_t), "lengths")) return s;
  return RequireNonNull(model, "model");
}

// extra_costs may be NULL (none); otherwise n readable doubles (the core
// checks their values).
flopspack_status CheckExtraCostsArray(const double* extra_costs, size_t n) {
  if (extra_costs == nullptr) return FLOPSPACK_OK;
  return RequireArray(extra_costs, n, sizeof(double), "extra_costs");
}

absl::Span<const double> ExtraSpan(const double* extra_costs, size_t n) {
  return extra_costs == nullptr ? absl::Span<const double>() : absl::MakeConstSpan(extra_costs, n);
}

}  // namespace

extern "C" {

void flopspack_simulate_options_init(flopspack_simulate_options* options) {
  if (options == nullptr) return;
  *options = flopspack_simulate_options{};
  options->struct_size = sizeof(flopspack_simulate_options);
  options->policy = FLOPSPACK_SIM_RANDOM;
  options->num_ranks = 1024;
  options->microbatches_per_rank = 1;
  options->tokens_per_microbatch = 8192;
  options->num_steps = 100;
  options->context_parallel_layout = FLOPSPACK_CP_DOCUMENT_HEAD_TAIL;
}

flopspack_status flopspack_simulate(const int64_t* lengths, size_t n,
                                    const flopspack_cost_model* model,
                                    const flopspack_simulate_options* options,
                                    flopspack_simulate_result** out) {
  return flopspack_simulate_with_extra_costs(lengths, nullptr, n, model, options, out);
}

flopspack_status flopspack_simulate_with_extra_costs(const int64_t* lengths,
                                                     const double* extra_costs, size_t n,
                                                     const flopspack_cost_model* model,
                                                     const flopspack_simulate_options* options,
                                                     flopspack_simulate_result** out) {
  return Guard([&] {
    if (flopspack_status s = CheckInputs(lengths, n, model)) return s;
    if (flopspack_status s = CheckExtraCostsArray(extra_costs, n)) return s;
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    flopspack::sim::SimOptions o;
    if (flopspack_status s = Convert(options, &o)) return s;
    auto r = flopspack::sim::Simulate(absl::MakeConstSpan(lengths, n), *model->model, o,
                                      ExtraSpan(extra_costs, n));
    if (!r.ok()) return FromStatus(r.status());
    *out = new flopspack_simulate_result{std::move(*r)};
    return FLOPSPACK_OK;
  });
}

flopspack_status flopspack_simulate_result_summary(const flopspack_simulate_result* result,
                                                   flopspack_simulate_summary* out) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(result, "result")) return s;
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    const flopspack::sim::SimResult& r = result->result;
    flopspack_simulate_summary full{};
    full.struct_size = sizeof(full);
    full.num_steps = r.num_steps;
    full.num_ranks = r.num_ranks;
    full.microbatches_per_rank = r.microbatches_per_rank;
    full.documents_drawn = r.documents_drawn;
    full.epochs = r.epochs;
    full.mean_balance_efficiency = r.mean_balance_efficiency;
    full.p5_balance_efficiency = r.p5_balance_efficiency;
    full.p50_balance_efficiency = r.p50_balance_efficiency;
    full.p95_balance_efficiency = r.p95_balance_efficiency;
    full.mean_fill = r.mean_fill;
    full.mean_padding_efficiency = r.mean_padding_efficiency;
    full.relative_throughput = r.relative_throughput;
    full.mean_step_time = r.mean_step_time;
    full.predicted_efficiency = r.predicted_balance_efficiency;
    full.real_tokens = r.real_tokens;
    full.computed_tokens = r.computed_tokens;
    full.sync = static_cast<int32_t>(r.sync);
    full.pipeline_stages = static_cast<uint32_t>(r.pipeline_stages);
    full.pipeline_schedule = static_cast<int32_t>(r.pipeline_schedule);
    full.mean_sync_efficiency = r.mean_sync_efficiency;
    return WriteOutput(full, out, "flopspack_simulate_summary");
  });
}

flopspack_status flopspack_simulate_result_series(const flopspack_simulate_result* result,
                                                  int series, double* out, size_t capacity,
                                                  size_t* n) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(result, "result")) return s;
    if (flopspack_status s = RequireNonNull(n, "n")) return s;
    if (series < FLOPSPACK_SIM_SERIES_STEP_TIME || series > FLOPSPACK_SIM_SERIES_REAL_TOKENS) {
      return SetError(FLOPSPACK_INVALID_ARGUMENT,
                      absl::StrFormat("series = %d is not a flopspack_sim_series value", series));
    }
    const auto& steps = result->result.steps;
    if (steps.empty()) {
      return SetError(FLOPSPACK_INVALID_ARGUMENT,
                      "the per-step series was not recorded: set record_steps = 1 in "
                      "flopspack_simulate_options");
    }
    if (out == nullptr) {
      *n = steps.size();
      return FLOPSPACK_OK;
    }
    if (capacity < steps.size()) {
      return SetError(
          FLOPSPACK_BUFFER_TOO_SMALL,
          absl::StrFormat("capacity = %u but the series has %u steps", capacity, steps.size()));
    }
    for (size_t i = 0; i < steps.size(); ++i) {
      const flopspack::sim::StepRecord& s = steps[i];
      switch (series) {
        case FLOPSPACK_SIM_SERIES_STEP_TIME:
          out[i] = s.step_time;
          break;
        case FLOPSPACK_SIM_SERIES_MEAN_RANK_COST:
          out[i] = s.mean_rank_cost;
          break;
        case FLOPSPACK_SIM_SERIES_BALANCE_EFFICIENCY:
          out[i] = s.balance_efficiency;
          break;
        case FLOPSPACK_SIM_SERIES_FILL:
          out[i] = s.fill;
          break;
        case FLOPSPACK_SIM_SERIES_PADDING_EFFICIENCY:
          out[i] = s.padding_efficiency;
          break;
        case FLOPSPACK_SIM_SERIES_REAL_TOKENS:
          out[i] = static_cast<double>(s.real_tokens);
          break;
      }
    }
    *n = steps.size();
    return FLOPSPACK_OK;
  });
}

flopspack_status flopspack_simulate_result_pieces(const flopspack_simulate_result* result,
                                                  flopspack_stats** out) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(result, "result")) return s;
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    *out = new flopspack_stats{result->result.pieces};
    return FLOPSPACK_OK;
  });
}

void flopspack_simulate_result_destroy(flopspack_simulate_result* result) { delete result; }

flopspack_status flopspack_simulate_sweep(const int64_t* lengths, size_t n,
                                          const flopspack_cost_model* model,
                                          const flopspack_simulate_options* options,
                                          const uint64_t* rank_counts, size_t num_counts,
                                          double* sampled_efficiency, double* predicted_efficiency,
                                          double* relative_throughput) {
  return flopspack_simulate_sweep_with_extra_costs(lengths, nullptr, n, model, options, rank_counts,
                                                   num_counts, sampled_efficiency,
                                                   predicted_efficiency, relative_throughput);
}

flopspack_status flopspack_simulate_sweep_with_extra_costs(
    const int64_t* lengths, const double* extra_costs, size_t n, const flopspack_cost_model* model,
    const flopspack_simulate_options* options, const uint64_t* rank_counts, size_t num_counts,
    double* sampled_efficiency, double* predicted_efficiency, double* relative_throughput) {
  return Guard([&] {
    if (flopspack_status s = CheckInputs(lengths, n, model)) return s;
    if (flopspack_status s = CheckExtraCostsArray(extra_costs, n)) return s;
    if (flopspack_status s =
            RequireArray(rank_counts, num_counts, sizeof(uint64_t), "rank_counts")) {
      return s;
    }
    flopspack::sim::SimOptions o;
    if (flopspack_status s = Convert(options, &o)) return s;
    auto points = flopspack::sim::Sweep(absl::MakeConstSpan(lengths, n), *model->model, o,
                                        absl::MakeConstSpan(rank_counts, num_counts),
                                        ExtraSpan(extra_costs, n));
    if (!points.ok()) return FromStatus(points.status());
    for (size_t i = 0; i < points->size(); ++i) {
      if (sampled_efficiency != nullptr) sampled_efficiency[i] = (*points)[i].sampled_efficiency;
      if (predicted_efficiency != nullptr) {
        predicted_efficiency[i] = (*points)[i].predicted_efficiency;
      }
      if (relative_throughput != nullptr) {
        relative_throughput[i] = (*points)[i].relative_throughput;
      }
    }
    return FLOPSPACK_OK;
  });
}

}  // extern "C"
