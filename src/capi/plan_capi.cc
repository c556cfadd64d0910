// extern "C" accessors of flopspack_plan.
#include "capi/capi_util.h"
#include "capi/handles.h"

using flopspack::capi::Guard;
using flopspack::capi::RequireNonNull;
using flopspack::capi::SetError;
using flopspack::capi::WriteOutput;

namespace {

flopspack_status CheckGroup(const flopspack_plan* plan, size_t group) {
  if (flopspack_status s = RequireNonNull(plan, "plan")) return s;
  if (group >= plan->plan.group_count()) {
    return SetError(FLOPSPACK_OUT_OF_RANGE, absl::StrFormat("group %u is out of range: the plan "
                                                            "has %u groups",
                                                            group, plan->plan.group_count()));
  }
  return FLOPSPACK_OK;
}

flopspack_status ViewList(const std::vector<int64_t>& list, const int64_t** items, size_t* n) {
  if (flopspack_status s = RequireNonNull(n, "n")) return s;
  if (items != nullptr) *items = list.data();
  *n = list.size();
  return FLOPSPACK_OK;
}

}  // namespace

extern "C" {

size_t flopspack_plan_group_count(const flopspack_plan* plan) {
  return plan == nullptr ? 0 : plan->plan.group_count();
}

flopspack_status flopspack_plan_group(const flopspack_plan* plan, size_t group,
                                      const int64_t** items, const int64_t** tokens, size_t* n) {
  return Guard([&] {
    if (flopspack_status s = CheckGroup(plan, group)) return s;
    if (flopspack_status s = RequireNonNull(n, "n")) return s;
    if (items != nullptr) *items = plan->plan.group_items(group).data();
    if (tokens != nullptr) *tokens = plan->plan.group_tokens(group).data();
    *n = plan->plan.group_items(group).size();
    return FLOPSPACK_OK;
  });
}

flopspack_status flopspack_plan_group_info(const flopspack_plan* plan, size_t group,
                                           int64_t* real_tokens, int64_t* computed_tokens,
                                           double* cost) {
  return Guard([&] {
    if (flopspack_status s = CheckGroup(plan, group)) return s;
    if (real_tokens != nullptr) *real_tokens = plan->plan.group_real_tokens(group);
    if (computed_tokens != nullptr) *computed_tokens = plan->plan.group_computed_tokens(group);
    if (cost != nullptr) *cost = plan->plan.group_cost(group);
    return FLOPSPACK_OK;
  });
}

flopspack_status flopspack_plan_group_slot(const flopspack_plan* plan, size_t group, size_t* rank,
                                           size_t* microbatch) {
  return Guard([&] {
    if (flopspack_status s = CheckGroup(plan, group)) return s;
    if (flopspack_status s = RequireNonNull(rank, "rank")) return s;
    if (flopspack_status s = RequireNonNull(microbatch, "microbatch")) return s;
    if (!plan->plan.has_slots()) {
      return SetError(FLOPSPACK_INVALID_ARGUMENT,
                      "this plan has no ranks: only step plans and bucket sampler plans do");
    }
    *rank = static_cast<size_t>(plan->plan.group_rank(group));
    *microbatch = static_cast<size_t>(plan->plan.group_slot(group));
    return FLOPSPACK_OK;
  });
}

flopspack_status flopspack_plan_deferred(const flopspack_plan* plan, const int64_t** items,
                                         size_t* n) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(plan, "plan")) return s;
    return ViewList(plan->plan.deferred(), items, n);
  });
}

flopspack_status flopspack_plan_dropped(const flopspack_plan* plan, const int64_t** items,
                                        size_t* n) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(plan, "plan")) return s;
    return ViewList(plan->plan.dropped(), items, n);
  });
}

flopspack_status flopspack_plan_metrics(const flopspack_plan* plan,
                                        struct flopspack_plan_metrics* out) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(plan, "plan")) return s;
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    const flopspack::pack::PlanMetrics& m = plan->plan.metrics();
    struct flopspack_plan_metrics full {};
    full.struct_size = sizeof(full);
    full.num_groups = m.num_groups;
    full.num_items = m.num_items;
    full.max_group_cost = m.max_group_cost;
    full.mean_group_cost = m.mean_group_cost;
    full.min_group_cost = m.min_group_cost;
    full.total_cost = m.total_cost;
    full.balance_efficiency = m.balance_efficiency;
    full.lower_bound = m.lower_bound;
    full.gap_to_lower_bound = m.gap_to_lower_bound;
    full.real_tokens = m.real_tokens;
    full.computed_tokens = m.computed_tokens;
    full.capacity = m.capacity;
    full.fill = m.fill;
    full.padding_efficiency = m.padding_efficiency;
    full.num_ranks = m.num_ranks;
    full.microbatches_per_rank = m.microbatches_per_rank;
    full.max_rank_cost = m.max_rank_cost;
    full.mean_rank_cost = m.mean_rank_cost;
    full.rank_balance_efficiency = m.rank_balance_efficiency;
    full.rank_lower_bound = m.rank_lower_bound;
    full.rank_gap_to_lower_bound = m.rank_gap_to_lower_bound;
    full.worst_slot_balance = m.worst_slot_balance;
    full.split_items = m.split_items;
    full.truncated_items = m.truncated_items;
    full.deferred_items = m.deferred_items;
    full.dropped_items = m.dropped_items;
    full.truncated_tokens = m.truncated_tokens;
    full.deferred_tokens = m.deferred_tokens;
    full.dropped_tokens = m.dropped_tokens;
    full.num_steps = m.num_steps;
    full.diversity_distance = m.diversity_distance;
    full.diversity_distance_samples = m.diversity_distance_samples;
    full.planned_by = m.planned_by;
    full.microbatch_sync_efficiency = m.microbatch_sync_efficiency;
    full.mean_slot_balance = m.mean_slot_balance;
    full.microbatch_sync_cost = m.microbatch_sync_cost;
    full.microbatch_sync_lower_bound = m.microbatch_sync_lower_bound;
    full.microbatch_sync_gap_to_lower_bound = m.microbatch_sync_gap_to_lower_bound;
    full.pipeline_makespan = m.pipeline_makespan;
    full.pipeline_efficiency = m.pipeline_efficiency;
    full.pipeline_lower_bound = m.pipeline_lower_bound;
    full.pipeline_gap_to_lower_bound = m.pipeline_gap_to_lower_bound;
    return WriteOutput(full, out, "flopspack_plan_metrics");
  });
}

void flopspack_plan_destroy(flopspack_plan* plan) { delete plan; }

flopspack_status flopspack_plan_group_offsets(const flopspack_plan* plan, size_t group,
                                              const int64_t** offsets, size_t* n) {
  return Guard([&] {
    if (flopspack_status s = CheckGroup(plan, group)) return s;
    if (flopspack_status s = RequireNonNull(n, "n")) return s;
    const absl::Span<const int64_t> view = plan->plan.group_piece_offsets(group);
    if (offsets != nullptr) *offsets = view.data();
    *n = view.size();
    return FLOPSPACK_OK;
  });
}

}  // extern "C"
