// extern "C" entry points for packing and balancing: validate pointers and
// options, call the core in src/pack/, map the status.
#include <memory>
#include <utility>

#include "capi/capi_util.h"
#include "capi/handles.h"
#include "pack/balance/balance.h"
#include "pack/binpack/packer.h"

using flopspack::capi::EmitPlan;
using flopspack::capi::Guard;
using flopspack::capi::ReadEnum;
using flopspack::capi::ReadOptions;
using flopspack::capi::RequireArray;
using flopspack::capi::RequireNonNull;
using flopspack::capi::SetError;

namespace {

flopspack_status CheckFlag(int32_t value, const char* name) {
  if (value == 0 || value == 1) return FLOPSPACK_OK;
  return SetError(
      FLOPSPACK_INVALID_ARGUMENT,
      absl::StrFormat("flopspack_balance_options->%s = %d must be 0 or 1", name, value));
}

}  // namespace

extern "C" {

void flopspack_pack_options_init(flopspack_pack_options* options) {
  if (options == nullptr) return;
  *options = flopspack_pack_options{};
  options->struct_size = sizeof(flopspack_pack_options);
  options->algorithm = FLOPSPACK_PACK_BEST_FIT_DECREASING;
  options->overflow = FLOPSPACK_OVERFLOW_ERROR;
}

flopspack_status flopspack_pack(const flopspack_pack_options* options, const int64_t* lengths,
                                size_t n, flopspack_plan** out) {
  return flopspack_pack_with_extra_costs(options, lengths, nullptr, n, out);
}

flopspack_status flopspack_pack_with_extra_costs(const flopspack_pack_options* options,
                                                 const int64_t* lengths, const double* extra_costs,
                                                 size_t n, flopspack_plan** out) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(options, "options")) return s;
    if (flopspack_status s = RequireArray(lengths, n, sizeof(int64_t), "lengths")) return s;
    if (extra_costs != nullptr) {
      if (flopspack_status s = RequireArray(extra_costs, n, sizeof(double), "extra_costs")) {
        return s;
      }
    }
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    flopspack_pack_options o;
    flopspack_pack_options_init(&o);
    if (flopspack_status s = ReadOptions(options, &o, "flopspack_pack_options")) return s;
    flopspack::pack::PackOptions core;
    if (flopspack_status s = ReadEnum(
            o.algorithm,
            {FLOPSPACK_PACK_BEST_FIT_DECREASING, FLOPSPACK_PACK_FIRST_FIT_DECREASING,
             FLOPSPACK_PACK_NEXT_FIT, FLOPSPACK_PACK_SHUFFLED_FIRST_FIT},
            absl::StrFormat("algorithm = %d is not a flopspack_pack_algorithm value", o.algorithm),
            &core.algorithm)) {
      return s;
    }
    if (flopspack_status s = ReadEnum(
            o.overflow,
            {FLOPSPACK_OVERFLOW_ERROR, FLOPSPACK_OVERFLOW_TRUNCATE, FLOPSPACK_OVERFLOW_SPLIT},
            absl::StrFormat(
                "overflow = %d: flopspack_pack takes FLOPSPACK_OVERFLOW_ERROR, _TRUNCATE or _SPLIT",
                o.overflow),
            &core.overflow)) {
      return s;
    }
    core.capacity = o.capacity;
    core.seed = o.seed;
    core.cost_model = o.cost_model != nullptr ? o.cost_model->model.get() : nullptr;
    const absl::Span<const double> extra =
        extra_costs != nullptr ? absl::MakeConstSpan(extra_costs, n) : absl::Span<const double>();
    // The plan's arrays come from the thread's vector pool (handles.h) and
    // go back to it when the plan is destroyed, so a thread's later calls
    // reuse memory already faulted in.
    std::shared_ptr<flopspack::util::VectorPool> pool = flopspack::capi::ThreadContextPool(n);
    flopspack::util::UseVectorPool use(pool.get());
    return EmitPlan(
        flopspack::pack::PackWithExtraCosts(absl::MakeConstSpan(lengths, n), extra, core), out,
        std::move(pool));
  });
}

void flopspack_balance_options_init(flopspack_balance_options* options) {
  if (options == nullptr) return;
  *options = flopspack_balance_options{};
  options->struct_size = sizeof(flopspack_balance_options);
  options->algorithm = FLOPSPACK_BALANCE_AUTO;
  options->refine = 1;
}

flopspack_status flopspack_balance(const flopspack_balance_options* options, const double* costs,
                                   const int64_t* tokens, size_t n, flopspack_plan** out) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(options, "options")) return s;
    if (flopspack_status s = RequireArray(costs, n, sizeof(double), "costs")) return s;
    if (tokens != nullptr) {
      if (flopspack_status s = RequireArray(tokens, n, sizeof(int64_t), "tokens")) return s;
    }
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    flopspack_balance_options o;
    flopspack_balance_options_init(&o);
    if (flopspack_status s = ReadOptions(options, &o, "flopspack_balance_options")) return s;
    if (flopspack_status s = CheckFlag(o.equal_count, "equal_count")) return s;
    if (flopspack_status s = CheckFlag(o.refine, "refine")) return s;
    flopspack::pack::BalanceOptions core;
    if (flopspack_status s =
            ReadEnum(o.algorithm,
                     {FLOPSPACK_BALANCE_AUTO, FLOPSPACK_BALANCE_GREEDY, FLOPSPACK_BALANCE_LPT,
                      FLOPSPACK_BALANCE_KARMARKAR_KARP},
                     absl::StrFormat("algorithm = %d is not a flopspack_balance_algorithm value",
                                     o.algorithm),
                     &core.algorithm)) {
      return s;
    }
    core.num_groups = o.num_groups;
    core.equal_count = o.equal_count == 1;
    core.max_tokens_per_group = o.max_tokens_per_group;
    core.refine = o.refine == 1;
    core.max_refine_steps = o.max_refine_steps;
    core.seed = o.seed;
    const absl::Span<const int64_t> token_span =
        tokens != nullptr ? absl::MakeConstSpan(tokens, n) : absl::Span<const int64_t>();
    return EmitPlan(flopspack::pack::Balance(absl::MakeConstSpan(costs, n), token_span, core), out);
  });
}

}  // extern "C"
