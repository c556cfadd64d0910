// extern "C" context-parallel sharding: validate, call
// pack::ShardContextParallel, hand out the shard.
#include "capi/capi_util.h"
#include "capi/handles.h"
#include "pack/context_parallel/context_parallel.h"

using flopspack::capi::FromStatus;
using flopspack::capi::Guard;
using flopspack::capi::ReadEnum;
using flopspack::capi::RequireNonNull;
using flopspack::capi::SetError;
using flopspack::capi::WriteOutput;

struct flopspack_cp_shard {
  flopspack::pack::CpShard shard;
};

namespace {

flopspack_status CheckGroup(const flopspack_cp_shard* shard, size_t group) {
  if (flopspack_status s = RequireNonNull(shard, "shard")) return s;
  if (group >= shard->shard.group_count()) {
    return SetError(FLOPSPACK_OUT_OF_RANGE,
                    absl::StrFormat("group %u is out of range: the shard has %u groups", group,
                                    shard->shard.group_count()));
  }
  return FLOPSPACK_OK;
}

flopspack_status CheckRank(const flopspack_cp_shard* shard, size_t group, size_t cp_rank) {
  if (flopspack_status s = CheckGroup(shard, group)) return s;
  const auto c = static_cast<size_t>(shard->shard.context_parallel_size);
  if (cp_rank >= c) {
    return SetError(
        FLOPSPACK_OUT_OF_RANGE,
        absl::StrFormat("cp_rank %u is out of range: the shard has %u CP ranks", cp_rank, c));
  }
  return FLOPSPACK_OK;
}

}  // namespace

extern "C" {

flopspack_status flopspack_plan_shard_context_parallel(const flopspack_plan* plan,
                                                       const flopspack_cost_model* model,
                                                       uint64_t context_parallel_size, int layout,
                                                       flopspack_cp_shard** out) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(plan, "plan")) return s;
    if (flopspack_status s = RequireNonNull(model, "model")) return s;
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    if (context_parallel_size < 1 ||
        context_parallel_size > static_cast<uint64_t>(flopspack::pack::kMaxContextParallelSize)) {
      return SetError(
          FLOPSPACK_INVALID_ARGUMENT,
          absl::StrFormat("context_parallel_size = %u must be in [1, %d]", context_parallel_size,
                          flopspack::pack::kMaxContextParallelSize));
    }
    flopspack::pack::CpLayout core_layout = flopspack::pack::CpLayout::kAdaptive;
    if (flopspack_status s =
            ReadEnum(layout,
                     {FLOPSPACK_CP_SEQUENCE_HEAD_TAIL, FLOPSPACK_CP_DOCUMENT_HEAD_TAIL,
                      FLOPSPACK_CP_ADAPTIVE},
                     absl::StrFormat("layout = %d is not a flopspack_cp_layout value", layout),
                     &core_layout)) {
      return s;
    }
    if (!model->model->IsAdditive()) {
      return SetError(FLOPSPACK_INVALID_ARGUMENT,
                      "model: context-parallel sharding needs an additive cost model (attention "
                      "within documents); a transformer with FLOPSPACK_ATTENTION_SEQUENCE or a "
                      "custom model gives no cost per document chunk");
    }
    absl::StatusOr<flopspack::pack::CpShard> shard = flopspack::pack::ShardContextParallel(
        plan->plan, *model->model, static_cast<int64_t>(context_parallel_size), core_layout);
    if (!shard.ok()) return FromStatus(shard.status());
    *out = new flopspack_cp_shard{std::move(*shard)};
    return FLOPSPACK_OK;
  });
}

size_t flopspack_cp_shard_group_count(const flopspack_cp_shard* shard) {
  return shard == nullptr ? 0 : shard->shard.group_count();
}

flopspack_status flopspack_cp_shard_chunks(const flopspack_cp_shard* shard, size_t group,
                                           size_t cp_rank, const int64_t** items,
                                           const int64_t** offsets, const int64_t** lengths,
                                           size_t* n) {
  return Guard([&] {
    if (flopspack_status s = CheckRank(shard, group, cp_rank)) return s;
    if (flopspack_status s = RequireNonNull(n, "n")) return s;
    const flopspack::pack::CpShard& c = shard->shard;
    const size_t i = c.Index(group, static_cast<int64_t>(cp_rank));
    const auto begin = static_cast<size_t>(c.offsets[i]);
    if (items != nullptr) *items = c.items.data() + begin;
    if (offsets != nullptr) *offsets = c.chunk_offsets.data() + begin;
    if (lengths != nullptr) *lengths = c.lengths.data() + begin;
    *n = static_cast<size_t>(c.offsets[i + 1]) - begin;
    return FLOPSPACK_OK;
  });
}

flopspack_status flopspack_cp_shard_rank_cost(const flopspack_cp_shard* shard, size_t group,
                                              size_t cp_rank, double* cost, int64_t* kv_tokens) {
  return Guard([&] {
    if (flopspack_status s = CheckRank(shard, group, cp_rank)) return s;
    const size_t i = shard->shard.Index(group, static_cast<int64_t>(cp_rank));
    if (cost != nullptr) *cost = shard->shard.costs[i];
    if (kv_tokens != nullptr) *kv_tokens = shard->shard.kv_tokens[i];
    return FLOPSPACK_OK;
  });
}

flopspack_status flopspack_cp_shard_group_layout(const flopspack_cp_shard* shard, size_t group,
                                                 int* layout, double* balance) {
  return Guard([&] {
    if (flopspack_status s = CheckGroup(shard, group)) return s;
    if (layout != nullptr) *layout = static_cast<int>(shard->shard.layouts[group]);
    if (balance != nullptr) *balance = shard->shard.balances[group];
    return FLOPSPACK_OK;
  });
}

flopspack_status flopspack_cp_shard_metrics(const flopspack_cp_shard* shard,
                                            flopspack_cp_metrics* out) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(shard, "shard")) return s;
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    const flopspack::pack::CpMetrics& m = shard->shard.metrics;
    flopspack_cp_metrics full{};
    full.struct_size = sizeof(full);
    full.context_parallel_size = static_cast<uint64_t>(m.context_parallel_size);
    full.num_groups = m.num_groups;
    full.num_chunks = m.num_chunks;
    full.balance_efficiency = m.balance_efficiency;
    full.worst_balance = m.worst_balance;
    full.max_cp_rank_cost = m.max_cp_rank_cost;
    full.mean_cp_rank_cost = m.mean_cp_rank_cost;
    full.kv_tokens = m.kv_tokens;
    full.sequence_layout_groups = m.sequence_layout_groups;
    full.document_layout_groups = m.document_layout_groups;
    return WriteOutput(full, out, "flopspack_cp_metrics");
  });
}

void flopspack_cp_shard_destroy(flopspack_cp_shard* shard) { delete shard; }

}  // extern "C"
