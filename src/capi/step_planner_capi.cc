// extern "C" entry points for step planning: validate pointers and option
// structs, convert, call the core in src/pack/step_planner*.h, map the status.
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "capi/capi_util.h"
#include "capi/handles.h"
#include "cost/multimodal.h"
#include "pack/planner/step_planner.h"
#include "pack/planner/step_planner_state.h"
#include "util/vector_pool.h"

using flopspack::capi::FromStatus;
using flopspack::capi::Guard;
using flopspack::capi::ReadEnum;
using flopspack::capi::ReadOptions;
using flopspack::capi::RequireArray;
using flopspack::capi::RequireNonNull;
using flopspack::capi::SetError;

struct flopspack_step_planner {
  std::unique_ptr<flopspack::pack::StreamingStepPlanner> planner;
};

// The storage a step context keeps: shared with the plans it made, which
// give their arrays back when destroyed (handles.h).
struct flopspack_step_context {
  std::shared_ptr<flopspack::util::VectorPool> pool =
      std::make_shared<flopspack::util::VectorPool>();
};

namespace {

// Plans the step with its working storage taken from `pool` (null: the
// allocator's) and hands the plan out holding the pool, so that destroying
// it gives its arrays back: the one body of the plain, extra-cost and
// in-context calls.
flopspack_status PlanStepInPool(std::shared_ptr<flopspack::util::VectorPool> pool,
                                const flopspack::pack::StepOptions& o,
                                const flopspack_cost_model* model,
                                absl::Span<const int64_t> lengths,
                                absl::Span<const double> extra_costs, flopspack_plan** out) {
  flopspack::util::UseVectorPool use(pool.get());
  return flopspack::capi::EmitPlan(
      flopspack::pack::PlanStepWithExtraCosts(o, *model->model, lengths, extra_costs), out,
      std::move(pool));
}

// Reads and converts the step options: enum values here, the other range
// checks are the core's.
flopspack_status ReadStepOptions(const flopspack_step_options* in,
                                 flopspack::pack::StepOptions* out) {
  if (flopspack_status s = RequireNonNull(in, "options")) return s;
  flopspack_step_options o;
  flopspack_step_options_init(&o);
  if (flopspack_status s = ReadOptions(in, &o, "flopspack_step_options")) return s;
  // context_parallel_size lies where a struct of the library before it (56
  // bytes) had 4 bytes of padding, which such a caller may leave as
  // anything: the CP fields are read only from a struct that holds both.
  if (in->struct_size < offsetof(flopspack_step_options, context_parallel_layout) +
                            sizeof(o.context_parallel_layout)) {
    o.context_parallel_size = 0;
    o.context_parallel_layout = FLOPSPACK_CP_DOCUMENT_HEAD_TAIL;
  }
  out->num_ranks = o.num_ranks;
  out->microbatches_per_rank = o.microbatches_per_rank;
  out->max_tokens_per_microbatch = o.max_tokens_per_microbatch;
  if (flopspack_status s = ReadEnum(
          o.algorithm,
          {FLOPSPACK_STEP_DOCUMENTS, FLOPSPACK_STEP_RANDOM, FLOPSPACK_STEP_TOKENS,
           FLOPSPACK_STEP_SEQUENCES},
          absl::StrFormat("algorithm = %d: not a flopspack_step_algorithm value", o.algorithm),
          &out->algorithm)) {
    return s;
  }
  out->seed = o.seed;
  if (flopspack_status s =
          ReadEnum(o.ordering,
                   {FLOPSPACK_SLOT_ORDER_DESCENDING, FLOPSPACK_SLOT_ORDER_LIGHT_ENDS,
                    FLOPSPACK_SLOT_ORDER_AS_PLANNED},
                   absl::StrFormat("ordering = %d: not a flopspack_slot_order value", o.ordering),
                   &out->ordering)) {
    return s;
  }
  if (flopspack_status s = ReadEnum(
          o.overflow,
          {FLOPSPACK_OVERFLOW_ERROR, FLOPSPACK_OVERFLOW_SPLIT, FLOPSPACK_OVERFLOW_DEFER},
          absl::StrFormat(
              "overflow = %d: the step planner takes FLOPSPACK_OVERFLOW_ERROR, _SPLIT or _DEFER",
              o.overflow),
          &out->overflow)) {
    return s;
  }
  if (flopspack_status s =
          ReadEnum(o.sync, {FLOPSPACK_SYNC_STEP, FLOPSPACK_SYNC_MICROBATCH},
                   absl::StrFormat("sync = %d: not a flopspack_sync value (FLOPSPACK_SYNC_STEP or "
                                   "FLOPSPACK_SYNC_MICROBATCH)",
                                   o.sync),
                   &out->sync)) {
    return s;
  }
  out->pipeline_stages = o.pipeline_stages;
  if (flopspack_status s = ReadEnum(
          o.pipeline_schedule, {FLOPSPACK_PIPELINE_1F1B},
          absl::StrFormat("pipeline_schedule = %d: not a flopspack_pipeline_schedule value "
                          "(FLOPSPACK_PIPELINE_1F1B)",
                          o.pipeline_schedule),
          &out->pipeline_schedule)) {
    return s;
  }
  out->context_parallel_size = o.context_parallel_size;
  if (flopspack_status s = ReadEnum(
          o.context_parallel_layout,
          {FLOPSPACK_CP_SEQUENCE_HEAD_TAIL, FLOPSPACK_CP_DOCUMENT_HEAD_TAIL, FLOPSPACK_CP_ADAPTIVE},
          absl::StrFormat("context_parallel_layout = %d: not a flopspack_cp_layout value "
                          "(FLOPSPACK_CP_SEQUENCE_HEAD_TAIL, _DOCUMENT_HEAD_TAIL or _ADAPTIVE)",
                          o.context_parallel_layout),
          &out->context_parallel_layout)) {
    return s;
  }
  return FromStatus(flopspack::pack::ValidateStepOptions(*out));
}

}  // namespace

static_assert(static_cast<int>(flopspack::pack::Overflow::kError) == FLOPSPACK_OVERFLOW_ERROR &&
                  static_cast<int>(flopspack::pack::Overflow::kSplit) == FLOPSPACK_OVERFLOW_SPLIT &&
                  static_cast<int>(flopspack::pack::Overflow::kDefer) == FLOPSPACK_OVERFLOW_DEFER,
              "core and C overflow values agree");
static_assert(static_cast<int>(flopspack::pack::StepSync::kStep) == FLOPSPACK_SYNC_STEP &&
                  static_cast<int>(flopspack::pack::StepSync::kMicrobatch) ==
                      FLOPSPACK_SYNC_MICROBATCH &&
                  static_cast<int>(flopspack::pack::PipelineSchedule::k1F1B) ==
                      FLOPSPACK_PIPELINE_1F1B,
              "core and C sync and pipeline schedule values agree");
static_assert(
    flopspack::pack::PublicPlannedBy(flopspack::pack::StepAlgorithm::kDocuments,
                                     flopspack::pack::StepStats::PlannedBy::kDocuments) ==
            FLOPSPACK_PLANNED_BY_DOCUMENTS &&
        flopspack::pack::PublicPlannedBy(flopspack::pack::StepAlgorithm::kDocuments,
                                         flopspack::pack::StepStats::PlannedBy::kCutToShare) ==
            FLOPSPACK_PLANNED_BY_CUT_TO_SHARE &&
        flopspack::pack::PublicPlannedBy(flopspack::pack::StepAlgorithm::kDocuments,
                                         flopspack::pack::StepStats::PlannedBy::kTokens) ==
            FLOPSPACK_PLANNED_BY_TOKEN_BALANCED &&
        flopspack::pack::PublicPlannedBy(flopspack::pack::StepAlgorithm::kTokens,
                                         flopspack::pack::StepStats::PlannedBy::kTokens) ==
            FLOPSPACK_PLANNED_BY_NONE,
    "core and C planned_by values agree");

extern "C" {

void flopspack_step_options_init(flopspack_step_options* options) {
  if (options == nullptr) return;
  *options = flopspack_step_options{};
  options->struct_size = sizeof(flopspack_step_options);
  options->algorithm = FLOPSPACK_STEP_DOCUMENTS;
  options->ordering = FLOPSPACK_SLOT_ORDER_DESCENDING;
  options->overflow = FLOPSPACK_OVERFLOW_SPLIT;
  // The layout the planner's objective is exact for (to the remainder
  // tokens); used only with context_parallel_size > 1.
  options->context_parallel_layout = FLOPSPACK_CP_DOCUMENT_HEAD_TAIL;
}

flopspack_status flopspack_plan_step(const flopspack_step_options* options,
                                     const flopspack_cost_model* model, const int64_t* lengths,
                                     size_t n, flopspack_plan** out) {
  // No extra costs: the same checks, storage and plan (NULL = none).
  return flopspack_plan_step_with_extra_costs(options, model, lengths, nullptr, n, out);
}

flopspack_status flopspack_step_context_create(flopspack_step_context** out) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    *out = new flopspack_step_context;
    return FLOPSPACK_OK;
  });
}

flopspack_status flopspack_step_context_reserve(flopspack_step_context* context,
                                                const flopspack_step_options* options,
                                                const flopspack_cost_model* model,
                                                size_t documents) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(context, "context")) return s;
    if (flopspack_status s = RequireNonNull(model, "model")) return s;
    flopspack::pack::StepOptions o;
    if (flopspack_status s = ReadStepOptions(options, &o)) return s;
    if (documents > static_cast<size_t>(flopspack::pack::kMaxStepItems)) {
      return SetError(FLOPSPACK_OUT_OF_RANGE,
                      absl::StrFormat("documents = %u: at most %d documents per step", documents,
                                      flopspack::pack::kMaxStepItems));
    }
    const std::vector<int64_t> lengths =
        flopspack::pack::RepresentativeStepLengths(o, static_cast<int64_t>(documents));
    // The step is planned as a call would plan it (the plan's own arrays
    // included), then its arrays join the pool.
    flopspack::util::UseVectorPool use(context->pool.get());
    auto plan = flopspack::pack::PlanStep(o, *model->model, lengths);
    if (!plan.ok()) return FromStatus(plan.status());
    flopspack_plan handle(std::move(*plan));
    handle.pool = context->pool;
    return FLOPSPACK_OK;
  });
}

flopspack_status flopspack_plan_step_in_context(flopspack_step_context* context,
                                                const flopspack_step_options* options,
                                                const flopspack_cost_model* model,
                                                const int64_t* lengths, size_t n,
                                                flopspack_plan** out) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(context, "context")) return s;
    if (flopspack_status s = RequireNonNull(model, "model")) return s;
    if (flopspack_status s = RequireArray(lengths, n, sizeof(int64_t), "lengths")) return s;
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    flopspack::pack::StepOptions o;
    if (flopspack_status s = ReadStepOptions(options, &o)) return s;
    return PlanStepInPool(context->pool, o, model, absl::MakeConstSpan(lengths, n), {}, out);
  });
}

size_t flopspack_step_context_kept_bytes(const flopspack_step_context* context) {
  return context == nullptr ? 0 : context->pool->bytes();
}

void flopspack_step_context_destroy(flopspack_step_context* context) { delete context; }

flopspack_status flopspack_plan_step_with_extra_costs(const flopspack_step_options* options,
                                                      const flopspack_cost_model* model,
                                                      const int64_t* lengths,
                                                      const double* extra_costs, size_t n,
                                                      flopspack_plan** out) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(model, "model")) return s;
    if (flopspack_status s = RequireArray(lengths, n, sizeof(int64_t), "lengths")) return s;
    if (extra_costs != nullptr) {
      if (flopspack_status s = RequireArray(extra_costs, n, sizeof(double), "extra_costs")) {
        return s;
      }
    }
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    flopspack::pack::StepOptions o;
    if (flopspack_status s = ReadStepOptions(options, &o)) return s;
    const absl::Span<const double> extra =
        extra_costs == nullptr ? absl::Span<const double>() : absl::MakeConstSpan(extra_costs, n);
    return PlanStepInPool(flopspack::capi::ThreadContextPool(n), o, model,
                          absl::MakeConstSpan(lengths, n), extra, out);
  });
}

flopspack_status flopspack_multimodal_costs(const flopspack_cost_model* encoder,
                                            const int64_t* text_tokens, const int64_t* images,
                                            const int64_t* patches_per_image, size_t n,
                                            int64_t* out_tokens, double* out_extra_costs) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(encoder, "encoder")) return s;
    if (flopspack_status s = RequireArray(text_tokens, n, sizeof(int64_t), "text_tokens")) return s;
    if (flopspack_status s = RequireArray(images, n, sizeof(int64_t), "images")) return s;
    if (flopspack_status s =
            RequireArray(patches_per_image, n, sizeof(int64_t), "patches_per_image")) {
      return s;
    }
    if (flopspack_status s = RequireArray(out_tokens, n, sizeof(int64_t), "out_tokens")) return s;
    if (flopspack_status s = RequireArray(out_extra_costs, n, sizeof(double), "out_extra_costs")) {
      return s;
    }
    return FromStatus(flopspack::cost::MultimodalTokensAndExtraCosts(
        *encoder->model, absl::MakeConstSpan(text_tokens, n), absl::MakeConstSpan(images, n),
        absl::MakeConstSpan(patches_per_image, n), absl::MakeSpan(out_tokens, n),
        absl::MakeSpan(out_extra_costs, n)));
  });
}

void flopspack_step_planner_options_init(flopspack_step_planner_options* options) {
  if (options == nullptr) return;
  *options = flopspack_step_planner_options{};
  options->struct_size = sizeof(flopspack_step_planner_options);
  options->max_defer_steps = 2;
}

flopspack_status flopspack_step_planner_create(
    const flopspack_step_options* options, const flopspack_step_planner_options* planner_options,
    const flopspack_cost_model* model, flopspack_step_planner** out) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(model, "model")) return s;
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    flopspack::pack::StepOptions o;
    if (flopspack_status s = ReadStepOptions(options, &o)) return s;
    flopspack_step_planner_options p;
    flopspack_step_planner_options_init(&p);
    if (flopspack_status s = ReadOptions(planner_options, &p, "flopspack_step_planner_options")) {
      return s;
    }
    flopspack::pack::StepPlannerOptions stream;
    stream.tokens_per_step = p.tokens_per_step;
    stream.outlier_min_tokens = p.outlier_min_tokens;
    stream.max_defer_steps = p.max_defer_steps;
    stream.max_outliers_per_step = p.max_outliers_per_step;
    auto planner = flopspack::pack::StreamingStepPlanner::Create(o, stream, model->model);
    if (!planner.ok()) return FromStatus(planner.status());
    *out = new flopspack_step_planner{std::move(*planner)};
    return FLOPSPACK_OK;
  });
}

flopspack_status flopspack_step_planner_push(flopspack_step_planner* planner,
                                             const int64_t* lengths, size_t n, int64_t* first_id) {
  return flopspack_step_planner_push_with_extra_costs(planner, lengths, nullptr, n, first_id);
}

flopspack_status flopspack_step_planner_push_with_extra_costs(flopspack_step_planner* planner,
                                                              const int64_t* lengths,
                                                              const double* extra_costs, size_t n,
                                                              int64_t* first_id) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(planner, "planner")) return s;
    if (flopspack_status s = RequireArray(lengths, n, sizeof(int64_t), "lengths")) return s;
    if (extra_costs != nullptr) {
      if (flopspack_status s = RequireArray(extra_costs, n, sizeof(double), "extra_costs")) {
        return s;
      }
    }
    const absl::Span<const double> extra =
        extra_costs == nullptr ? absl::Span<const double>() : absl::MakeConstSpan(extra_costs, n);
    auto first = planner->planner->Push(absl::MakeConstSpan(lengths, n), extra);
    if (!first.ok()) return FromStatus(first.status());
    if (first_id != nullptr) *first_id = *first;
    return FLOPSPACK_OK;
  });
}

flopspack_status flopspack_step_planner_next(flopspack_step_planner* planner,
                                             flopspack_plan** out) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(planner, "planner")) return s;
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    return flopspack::capi::EmitPlan(planner->planner->Next(), out);
  });
}

flopspack_status flopspack_step_planner_pending(const flopspack_step_planner* planner,
                                                uint64_t* documents, int64_t* tokens,
                                                uint64_t* steps) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(planner, "planner")) return s;
    if (documents != nullptr) {
      *documents = static_cast<uint64_t>(planner->planner->pending_documents());
    }
    if (tokens != nullptr) *tokens = planner->planner->pending_tokens();
    if (steps != nullptr) *steps = static_cast<uint64_t>(planner->planner->steps());
    return FLOPSPACK_OK;
  });
}

flopspack_status flopspack_step_planner_save_size(const flopspack_step_planner* planner,
                                                  size_t* size) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(planner, "planner")) return s;
    if (flopspack_status s = RequireNonNull(size, "size")) return s;
    *size = planner->planner->Save().size();
    return FLOPSPACK_OK;
  });
}

flopspack_status flopspack_step_planner_save(const flopspack_step_planner* planner, void* buffer,
                                             size_t capacity, size_t* written) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(planner, "planner")) return s;
    if (flopspack_status s = RequireNonNull(written, "written")) return s;
    if (flopspack_status s = RequireArray(buffer, capacity, 1, "buffer")) return s;
    const std::string bytes = planner->planner->Save();
    if (capacity < bytes.size()) {
      return SetError(FLOPSPACK_BUFFER_TOO_SMALL,
                      absl::StrFormat("buffer: capacity %u is below the %u bytes the state needs "
                                      "(see flopspack_step_planner_save_size)",
                                      capacity, bytes.size()));
    }
    std::memcpy(buffer, bytes.data(), bytes.size());
    *written = bytes.size();
    return FLOPSPACK_OK;
  });
}

flopspack_status flopspack_step_planner_restore(const void* bytes, size_t size,
                                                const flopspack_cost_model* model,
                                                flopspack_step_planner** out) {
  return Guard([&] {
    if (flopspack_status s = RequireArray(bytes, size, 1, "bytes")) return s;
    if (flopspack_status s = RequireNonNull(model, "model")) return s;
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    auto planner = flopspack::pack::StreamingStepPlanner::Restore(
        absl::string_view(static_cast<const char*>(bytes), size), model->model);
    if (!planner.ok()) return FromStatus(planner.status());
    *out = new flopspack_step_planner{std::move(*planner)};
    return FLOPSPACK_OK;
  });
}

void flopspack_step_planner_destroy(flopspack_step_planner* planner) { delete planner; }

}  // extern "C"
