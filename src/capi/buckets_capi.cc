// extern "C" entry points for length buckets and the bucket sampler:
// validate pointers, convert, call the core in src/pack/, map the status.
#include <memory>
#include <vector>

#include "capi/capi_util.h"
#include "capi/handles.h"
#include "pack/buckets/bucket_sampler.h"
#include "pack/buckets/bucket_stream.h"
#include "pack/buckets/buckets.h"

using flopspack::capi::EmitPlan;
using flopspack::capi::FromStatus;
using flopspack::capi::Guard;
using flopspack::capi::ReadOptions;
using flopspack::capi::RequireArray;
using flopspack::capi::RequireNonNull;
using flopspack::capi::SetError;

struct flopspack_bucket_sampler {
  std::unique_ptr<flopspack::pack::BucketSampler> sampler;
};

struct flopspack_bucket_stream {
  std::unique_ptr<flopspack::pack::BucketStream> stream;
};

namespace {

// Validates the C options (pointers, enum values, ranges) into core options.
flopspack_status ReadSamplerOptions(const flopspack_bucket_sampler_options* options,
                                    flopspack::pack::BucketSamplerOptions* out) {
  flopspack_bucket_sampler_options o;
  flopspack_bucket_sampler_options_init(&o);
  if (flopspack_status s = ReadOptions(options, &o, "flopspack_bucket_sampler_options")) {
    return s;
  }
  if (o.budget_kind != FLOPSPACK_BUCKET_BUDGET_PADDED_TOKENS &&
      o.budget_kind != FLOPSPACK_BUCKET_BUDGET_COST) {
    return SetError(FLOPSPACK_INVALID_ARGUMENT,
                    absl::StrFormat("options->budget_kind = %d is not a flopspack_bucket_budget "
                                    "value",
                                    o.budget_kind));
  }
  if (o.drop_last != 0 && o.drop_last != 1) {
    return SetError(FLOPSPACK_INVALID_ARGUMENT,
                    absl::StrFormat("options->drop_last = %d must be 0 or 1", o.drop_last));
  }
  if (flopspack_status s = RequireArray(o.upper_bounds, o.num_upper_bounds, sizeof(int64_t),
                                        "options->upper_bounds")) {
    return s;
  }
  for (auto [name, value] : {std::pair<const char*, uint64_t>{"num_ranks", o.num_ranks},
                             {"accumulation_steps", o.accumulation_steps}}) {
    if (value > static_cast<uint64_t>(INT32_MAX)) {
      return SetError(FLOPSPACK_OUT_OF_RANGE,
                      absl::StrFormat("options->%s = %u is too large", name, value));
    }
  }
  flopspack::pack::BucketSamplerOptions& core = *out;
  core.num_buckets = o.num_buckets;
  if (o.num_upper_bounds > 0) {
    core.upper_bounds.assign(o.upper_bounds, o.upper_bounds + o.num_upper_bounds);
  }
  core.budget = o.budget_kind == FLOPSPACK_BUCKET_BUDGET_COST
                    ? flopspack::pack::BucketBudget::kCost
                    : flopspack::pack::BucketBudget::kPaddedTokens;
  core.max_padded_tokens = o.max_padded_tokens;
  core.max_batch_cost = o.max_batch_cost;
  core.num_ranks = static_cast<int64_t>(o.num_ranks);
  core.accumulation_steps = static_cast<int64_t>(o.accumulation_steps);
  core.drop_last = o.drop_last == 1;
  core.seed = o.seed;
  if (flopspack_status s = flopspack::capi::ReadEnum(
          o.overflow,
          {FLOPSPACK_OVERFLOW_ERROR, FLOPSPACK_OVERFLOW_TRUNCATE, FLOPSPACK_OVERFLOW_DEFER},
          absl::StrFormat("options->overflow = %d: the bucket sampler takes "
                          "FLOPSPACK_OVERFLOW_ERROR, _TRUNCATE or _DEFER (drop)",
                          o.overflow),
          &core.overflow)) {
    return s;
  }
  return FLOPSPACK_OK;
}

}  // namespace

extern "C" {

flopspack_status flopspack_buckets_optimize(const int64_t* lengths, size_t n, size_t num_buckets,
                                            int64_t* upper_bounds) {
  return Guard([&] {
    if (flopspack_status s = RequireArray(lengths, n, sizeof(int64_t), "lengths")) return s;
    if (num_buckets == 0) {
      return SetError(FLOPSPACK_INVALID_ARGUMENT, "num_buckets = 0: need at least one bucket");
    }
    if (flopspack_status s =
            RequireArray(upper_bounds, num_buckets, sizeof(int64_t), "upper_bounds")) {
      return s;
    }
    if (num_buckets > static_cast<size_t>(INT64_MAX)) {
      return SetError(FLOPSPACK_OUT_OF_RANGE, "num_buckets overflows int64");
    }
    absl::StatusOr<std::vector<int64_t>> bounds = flopspack::pack::OptimalUpperBounds(
        absl::MakeConstSpan(lengths, n), static_cast<int64_t>(num_buckets));
    if (!bounds.ok()) return FromStatus(bounds.status());
    std::copy(bounds->begin(), bounds->end(), upper_bounds);
    return FLOPSPACK_OK;
  });
}

flopspack_status flopspack_buckets_padding(const int64_t* lengths, size_t n,
                                           const int64_t* upper_bounds, size_t num_buckets,
                                           int64_t* out_padding) {
  return Guard([&] {
    if (flopspack_status s = RequireArray(lengths, n, sizeof(int64_t), "lengths")) return s;
    if (flopspack_status s =
            RequireArray(upper_bounds, num_buckets, sizeof(int64_t), "upper_bounds")) {
      return s;
    }
    if (flopspack_status s = RequireNonNull(out_padding, "out_padding")) return s;
    absl::StatusOr<int64_t> padding = flopspack::pack::PaddingToUpperBounds(
        absl::MakeConstSpan(lengths, n), absl::MakeConstSpan(upper_bounds, num_buckets));
    if (!padding.ok()) return FromStatus(padding.status());
    *out_padding = *padding;
    return FLOPSPACK_OK;
  });
}

void flopspack_bucket_sampler_options_init(flopspack_bucket_sampler_options* options) {
  if (options == nullptr) return;
  *options = flopspack_bucket_sampler_options{};
  options->struct_size = sizeof(flopspack_bucket_sampler_options);
  options->budget_kind = FLOPSPACK_BUCKET_BUDGET_PADDED_TOKENS;
  options->num_buckets = 64;
  options->num_ranks = 1;
  options->accumulation_steps = 1;
}

flopspack_status flopspack_bucket_sampler_create(const flopspack_bucket_sampler_options* options,
                                                 const flopspack_cost_model* model,
                                                 const int64_t* lengths, size_t n,
                                                 flopspack_bucket_sampler** out) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(options, "options")) return s;
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    if (flopspack_status s = RequireArray(lengths, n, sizeof(int64_t), "lengths")) return s;
    flopspack::pack::BucketSamplerOptions core;
    if (flopspack_status s = ReadSamplerOptions(options, &core)) return s;
    std::shared_ptr<const flopspack::cost::CostModel> cost_model =
        model != nullptr ? model->model : nullptr;
    auto sampler = flopspack::pack::BucketSampler::Create(core, std::move(cost_model),
                                                          absl::MakeConstSpan(lengths, n));
    if (!sampler.ok()) return FromStatus(sampler.status());
    *out = new flopspack_bucket_sampler{std::move(*sampler)};
    return FLOPSPACK_OK;
  });
}

flopspack_status flopspack_bucket_sampler_epoch(const flopspack_bucket_sampler* sampler,
                                                uint64_t epoch, flopspack_plan** out) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(sampler, "sampler")) return s;
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    return EmitPlan(sampler->sampler->Epoch(epoch), out);
  });
}

flopspack_status flopspack_bucket_sampler_step(const flopspack_bucket_sampler* sampler,
                                               uint64_t epoch, uint64_t step,
                                               flopspack_plan** out) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(sampler, "sampler")) return s;
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    return EmitPlan(sampler->sampler->Step(epoch, step), out);
  });
}

flopspack_status flopspack_bucket_sampler_steps_per_epoch(const flopspack_bucket_sampler* sampler,
                                                          uint64_t* out) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(sampler, "sampler")) return s;
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    *out = static_cast<uint64_t>(sampler->sampler->steps_per_epoch());
    return FLOPSPACK_OK;
  });
}

flopspack_status flopspack_bucket_sampler_upper_bounds(const flopspack_bucket_sampler* sampler,
                                                       const int64_t** upper_bounds, size_t* n) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(sampler, "sampler")) return s;
    if (flopspack_status s = RequireNonNull(upper_bounds, "upper_bounds")) return s;
    if (flopspack_status s = RequireNonNull(n, "n")) return s;
    *upper_bounds = sampler->sampler->upper_bounds().data();
    *n = sampler->sampler->upper_bounds().size();
    return FLOPSPACK_OK;
  });
}

flopspack_status flopspack_bucket_sampler_step_diversity(const flopspack_bucket_sampler* sampler,
                                                         const flopspack_plan* plan,
                                                         double* token_distances,
                                                         double* sample_distances, size_t capacity,
                                                         size_t* num_steps) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(sampler, "sampler")) return s;
    if (flopspack_status s = RequireNonNull(plan, "plan")) return s;
    if (flopspack_status s = RequireNonNull(num_steps, "num_steps")) return s;
    auto distances = flopspack::pack::StepDistances(plan->plan, sampler->sampler->reference(),
                                                    sampler->sampler->accumulation_steps());
    if (!distances.ok()) return FromStatus(distances.status());
    const size_t steps = distances->size();
    if (token_distances != nullptr || sample_distances != nullptr) {
      if (capacity < steps) {
        return SetError(
            FLOPSPACK_BUFFER_TOO_SMALL,
            absl::StrFormat("capacity = %u but the plan has %u steps", capacity, steps));
      }
      for (size_t k = 0; k < steps; ++k) {
        if (token_distances != nullptr) token_distances[k] = (*distances)[k].tokens;
        if (sample_distances != nullptr) sample_distances[k] = (*distances)[k].samples;
      }
    }
    *num_steps = steps;
    return FLOPSPACK_OK;
  });
}

void flopspack_bucket_sampler_destroy(flopspack_bucket_sampler* sampler) { delete sampler; }

flopspack_status flopspack_bucket_sampler_diagnose(const flopspack_bucket_sampler* sampler,
                                                   uint64_t epoch, double balance_target,
                                                   double padding_target, double diversity_target,
                                                   flopspack_bucket_sampler_diagnostics* out) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(sampler, "sampler")) return s;
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    flopspack::pack::BucketTargets targets;
    targets.balance = balance_target;
    targets.padding = padding_target;
    targets.diversity = diversity_target;
    absl::StatusOr<flopspack::pack::BucketDiagnostics> d =
        sampler->sampler->Diagnose(epoch, targets);
    if (!d.ok()) return FromStatus(d.status());
    flopspack_bucket_sampler_diagnostics full{};
    full.struct_size = sizeof(full);
    full.unmet = d->unmet;
    full.balance_efficiency = d->balance;
    full.balance_shortfall = d->balance_shortfall;
    full.balance_bound = d->balance_bound;
    full.padding_efficiency = d->padding;
    full.padding_shortfall = d->padding_shortfall;
    full.padding_bound = d->padding_bound;
    full.diversity_distance = d->diversity;
    full.diversity_excess = d->diversity_excess;
    full.diversity_floor = d->diversity_floor;
    full.batch_cost_cap = d->batch_cost_cap;
    full.implied_cost_budget = d->implied_cost_budget;
    full.truncated_items = d->truncated_items;
    full.deferred_items = d->deferred_items;
    full.truncated_tokens = d->truncated_tokens;
    full.deferred_tokens = d->deferred_tokens;
    return flopspack::capi::WriteOutput(full, out, "flopspack_bucket_sampler_diagnostics");
  });
}

flopspack_status flopspack_bucket_stream_create(const flopspack_bucket_sampler_options* options,
                                                const flopspack_cost_model* model,
                                                uint64_t buffer_size,
                                                flopspack_bucket_stream** out) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(options, "options")) return s;
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    flopspack::pack::BucketSamplerOptions core;
    if (flopspack_status s = ReadSamplerOptions(options, &core)) return s;
    if (buffer_size == 0 || buffer_size > (uint64_t{1} << 40)) {
      return SetError(FLOPSPACK_INVALID_ARGUMENT,
                      absl::StrFormat("buffer_size = %u: must be in [1, 2^40]", buffer_size));
    }
    std::shared_ptr<const flopspack::cost::CostModel> cost_model =
        model != nullptr ? model->model : nullptr;
    auto stream = flopspack::pack::BucketStream::Create(core, std::move(cost_model),
                                                        static_cast<int64_t>(buffer_size));
    if (!stream.ok()) return FromStatus(stream.status());
    *out = new flopspack_bucket_stream{std::move(*stream)};
    return FLOPSPACK_OK;
  });
}

flopspack_status flopspack_bucket_stream_push(flopspack_bucket_stream* stream,
                                              const int64_t* lengths, size_t n, size_t* accepted) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(stream, "stream")) return s;
    if (flopspack_status s = RequireArray(lengths, n, sizeof(int64_t), "lengths")) return s;
    if (flopspack_status s = RequireNonNull(accepted, "accepted")) return s;
    absl::StatusOr<size_t> taken = stream->stream->Push(absl::MakeConstSpan(lengths, n));
    if (!taken.ok()) return FromStatus(taken.status());
    *accepted = *taken;
    return FLOPSPACK_OK;
  });
}

flopspack_status flopspack_bucket_stream_flush(flopspack_bucket_stream* stream) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(stream, "stream")) return s;
    return FromStatus(stream->stream->Flush());
  });
}

flopspack_status flopspack_bucket_stream_ready(flopspack_bucket_stream* stream, uint64_t* steps) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(stream, "stream")) return s;
    if (flopspack_status s = RequireNonNull(steps, "steps")) return s;
    absl::StatusOr<int64_t> ready = stream->stream->Ready();
    if (!ready.ok()) return FromStatus(ready.status());
    *steps = static_cast<uint64_t>(*ready);
    return FLOPSPACK_OK;
  });
}

flopspack_status flopspack_bucket_stream_take(flopspack_bucket_stream* stream,
                                              flopspack_plan** out) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(stream, "stream")) return s;
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    return EmitPlan(stream->stream->Take(), out);
  });
}

flopspack_status flopspack_bucket_stream_deferred(const flopspack_bucket_stream* stream,
                                                  const int64_t** items, size_t* n) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(stream, "stream")) return s;
    if (flopspack_status s = RequireNonNull(items, "items")) return s;
    if (flopspack_status s = RequireNonNull(n, "n")) return s;
    *items = stream->stream->deferred().data();
    *n = stream->stream->deferred().size();
    return FLOPSPACK_OK;
  });
}

flopspack_status flopspack_bucket_stream_leftover(const flopspack_bucket_stream* stream,
                                                  const int64_t** items, size_t* n) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(stream, "stream")) return s;
    if (flopspack_status s = RequireNonNull(items, "items")) return s;
    if (flopspack_status s = RequireNonNull(n, "n")) return s;
    *items = stream->stream->leftover().data();
    *n = stream->stream->leftover().size();
    return FLOPSPACK_OK;
  });
}

void flopspack_bucket_stream_destroy(flopspack_bucket_stream* stream) { delete stream; }

}  // extern "C"
