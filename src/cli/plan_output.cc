#include "plan_output.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "status.h"

namespace flopspack::cli {

std::string PlannedByText(int32_t planned_by) {
  switch (planned_by) {
    case FLOPSPACK_PLANNED_BY_DOCUMENTS:
      return "documents planner";
    case FLOPSPACK_PLANNED_BY_CUT_TO_SHARE:
      return "documents planner (fell back to the cut to the share)";
    case FLOPSPACK_PLANNED_BY_TOKEN_BALANCED:
      return "documents planner (fell back to the token-balanced planner)";
    default:
      return "-";
  }
}

struct flopspack_plan_metrics PlanMetrics(const flopspack_plan* plan) {
  struct flopspack_plan_metrics m = {};
  m.struct_size = sizeof(m);
  Check(flopspack_plan_metrics(plan, &m), "plan metrics");
  return m;
}

Json PlanMetricsJson(const struct flopspack_plan_metrics& m) {
  Json out = Json::Object();
  out.Set("num_groups", m.num_groups);
  out.Set("num_items", m.num_items);
  out.Set("max_group_cost", m.max_group_cost);
  out.Set("mean_group_cost", m.mean_group_cost);
  out.Set("min_group_cost", m.min_group_cost);
  out.Set("total_cost", m.total_cost);
  out.Set("balance_efficiency", m.balance_efficiency);
  out.Set("lower_bound", m.lower_bound);
  out.Set("gap_to_lower_bound", m.gap_to_lower_bound);
  out.Set("real_tokens", m.real_tokens);
  out.Set("computed_tokens", m.computed_tokens);
  out.Set("capacity", m.capacity);
  out.Set("fill", m.fill);
  out.Set("padding_efficiency", m.padding_efficiency);
  if (m.num_ranks > 0) {
    out.Set("num_ranks", m.num_ranks);
    out.Set("microbatches_per_rank", m.microbatches_per_rank);
    out.Set("max_rank_cost", m.max_rank_cost);
    out.Set("mean_rank_cost", m.mean_rank_cost);
    out.Set("rank_balance_efficiency", m.rank_balance_efficiency);
    out.Set("rank_lower_bound", m.rank_lower_bound);
    out.Set("rank_gap_to_lower_bound", m.rank_gap_to_lower_bound);
    out.Set("worst_slot_balance", m.worst_slot_balance);
    out.Set("microbatch_sync_efficiency", m.microbatch_sync_efficiency);
    out.Set("mean_slot_balance", m.mean_slot_balance);
    out.Set("microbatch_sync_cost", m.microbatch_sync_cost);
    out.Set("microbatch_sync_lower_bound", m.microbatch_sync_lower_bound);
    out.Set("microbatch_sync_gap_to_lower_bound", m.microbatch_sync_gap_to_lower_bound);
    out.Set("pipeline_makespan", m.pipeline_makespan);
    out.Set("pipeline_efficiency", m.pipeline_efficiency);
    out.Set("pipeline_lower_bound", m.pipeline_lower_bound);
    out.Set("pipeline_gap_to_lower_bound", m.pipeline_gap_to_lower_bound);
  }
  out.Set("split_items", m.split_items);
  out.Set("truncated_items", m.truncated_items);
  out.Set("deferred_items", m.deferred_items);
  out.Set("dropped_items", m.dropped_items);
  out.Set("truncated_tokens", m.truncated_tokens);
  out.Set("deferred_tokens", m.deferred_tokens);
  out.Set("dropped_tokens", m.dropped_tokens);
  out.Set("num_steps", m.num_steps);
  out.Set("diversity_distance", m.diversity_distance);
  out.Set("diversity_distance_samples", m.diversity_distance_samples);
  out.Set("planned_by", static_cast<int64_t>(m.planned_by));
  return out;
}

Table PlanMetricsTable(const struct flopspack_plan_metrics& m, const std::string& unit) {
  Table t({"<metric", "value"});
  t.AddRow({"groups", Cell(static_cast<int64_t>(m.num_groups))});
  t.AddRow({"items", Cell(static_cast<int64_t>(m.num_items))});
  t.AddRow({"real tokens", Cell(m.real_tokens)});
  t.AddRow({"computed tokens", Cell(m.computed_tokens)});
  if (m.capacity > 0) {
    t.AddRow({"capacity (tokens per group)", Cell(m.capacity)});
    t.AddRow({"fill", Percent(m.fill, 2)});
  }
  t.AddRow({"padding efficiency", Percent(m.padding_efficiency, 2)});
  t.AddRow({absl::StrCat("total cost (", unit, ")"), Si(m.total_cost)});
  t.AddRow({absl::StrCat("max group cost (", unit, ")"), Si(m.max_group_cost)});
  t.AddRow({absl::StrCat("mean group cost (", unit, ")"), Si(m.mean_group_cost)});
  t.AddRow({"group balance efficiency (mean/max)", Percent(m.balance_efficiency, 2)});
  t.AddRow({"gap to lower bound", Percent(m.gap_to_lower_bound, 2)});
  if (m.num_ranks > 0) {
    t.AddRow({"ranks x microbatches", absl::StrCat(m.num_ranks, " x ", m.microbatches_per_rank)});
    t.AddRow({absl::StrCat("max rank cost (", unit, ")"), Si(m.max_rank_cost)});
    t.AddRow({"rank balance efficiency (mean/max)", Percent(m.rank_balance_efficiency, 2)});
    t.AddRow({"rank gap to lower bound", Percent(m.rank_gap_to_lower_bound, 2)});
    t.AddRow({"worst slot balance", Percent(m.worst_slot_balance, 2)});
    // Step plans carry the synchronization figures (bucket plans do not).
    if (m.microbatch_sync_cost > 0) {
      t.AddRow({"mean slot balance", Percent(m.mean_slot_balance, 2)});
      t.AddRow({"microbatch-sync efficiency (FSDP)", Percent(m.microbatch_sync_efficiency, 2)});
      t.AddRow(
          {"microbatch-sync gap to lower bound", Percent(m.microbatch_sync_gap_to_lower_bound, 2)});
    }
    if (m.pipeline_makespan > 0) {
      t.AddRow({absl::StrCat("1F1B pipeline makespan (", unit, ")"), Si(m.pipeline_makespan)});
      t.AddRow({"1F1B pipeline efficiency", Percent(m.pipeline_efficiency, 2)});
      t.AddRow({"1F1B gap to lower bound", Percent(m.pipeline_gap_to_lower_bound, 2)});
    }
  }
  if (m.planned_by != FLOPSPACK_PLANNED_BY_NONE) {
    t.AddRow({"planned by", PlannedByText(m.planned_by)});
  }
  if (m.split_items > 0) t.AddRow({"split documents", Cell(static_cast<int64_t>(m.split_items))});
  if (m.truncated_items > 0) {
    t.AddRow({"truncated documents (tokens cut)",
              absl::StrCat(m.truncated_items, " (", Cell(m.truncated_tokens), ")")});
  }
  if (m.deferred_items > 0) {
    t.AddRow({"deferred documents (tokens)",
              absl::StrCat(m.deferred_items, " (", Cell(m.deferred_tokens), ")")});
  }
  if (m.dropped_items > 0) {
    t.AddRow({"dropped documents (tokens)",
              absl::StrCat(m.dropped_items, " (", Cell(m.dropped_tokens), ")")});
  }
  if (m.num_steps > 0) {
    t.AddRow({"steps", Cell(static_cast<int64_t>(m.num_steps))});
    t.AddRow({"diversity distance (tokens / samples)",
              absl::StrFormat("%.4f / %.4f", m.diversity_distance, m.diversity_distance_samples)});
  }
  return t;
}

namespace {

struct Group {
  const int64_t* items = nullptr;
  const int64_t* tokens = nullptr;
  size_t n = 0;
  int64_t real = 0, computed = 0;
  double cost = 0;
  size_t rank = 0, slot = 0;
};

Group ReadGroup(const flopspack_plan* plan, size_t g, bool with_slots) {
  Group group;
  Check(flopspack_plan_group(plan, g, &group.items, &group.tokens, &group.n), "plan group");
  Check(flopspack_plan_group_info(plan, g, &group.real, &group.computed, &group.cost),
        "plan group info");
  if (with_slots) Check(flopspack_plan_group_slot(plan, g, &group.rank, &group.slot), "plan slot");
  return group;
}

}  // namespace

Json PlanGroupsJson(const flopspack_plan* plan, bool with_slots) {
  Json out = Json::Array();
  const size_t groups = flopspack_plan_group_count(plan);
  for (size_t g = 0; g < groups; ++g) {
    const Group group = ReadGroup(plan, g, with_slots);
    Json j = Json::Object();
    if (with_slots) {
      j.Set("rank", static_cast<uint64_t>(group.rank));
      j.Set("slot", static_cast<uint64_t>(group.slot));
    }
    j.Set("items", Json::ArrayOf(std::vector<int64_t>(group.items, group.items + group.n)));
    j.Set("tokens", Json::ArrayOf(std::vector<int64_t>(group.tokens, group.tokens + group.n)));
    j.Set("real_tokens", group.real);
    j.Set("computed_tokens", group.computed);
    j.Set("cost", group.cost);
    out.Push(std::move(j));
  }
  return out;
}

Table PlanGroupsTable(const flopspack_plan* plan, bool with_slots) {
  std::vector<std::string> columns = {"group"};
  if (with_slots) columns.insert(columns.end(), {"rank", "slot"});
  columns.insert(columns.end(), {"documents", "real_tokens", "computed_tokens", "cost", "<items"});
  Table t(columns);
  const size_t groups = flopspack_plan_group_count(plan);
  for (size_t g = 0; g < groups; ++g) {
    const Group group = ReadGroup(plan, g, with_slots);
    std::vector<std::string> row = {absl::StrCat(g)};
    if (with_slots) row.insert(row.end(), {absl::StrCat(group.rank), absl::StrCat(group.slot)});
    std::string items;
    for (size_t i = 0; i < group.n && i < 8; ++i) {
      absl::StrAppend(&items, i ? " " : "", group.items[i]);
    }
    if (group.n > 8) absl::StrAppend(&items, " ... (", group.n - 8, " more)");
    row.insert(row.end(), {Cell(static_cast<int64_t>(group.n)), Cell(group.real),
                           Cell(group.computed), Cell(group.cost, 6), items});
    t.AddRow(std::move(row));
  }
  return t;
}

Table PlanGroupsCsvTable(const flopspack_plan* plan, bool with_slots) {
  std::vector<std::string> columns = {"group"};
  if (with_slots) columns.insert(columns.end(), {"rank", "slot"});
  columns.insert(columns.end(), {"item", "tokens"});
  Table t(columns);
  const size_t groups = flopspack_plan_group_count(plan);
  for (size_t g = 0; g < groups; ++g) {
    const Group group = ReadGroup(plan, g, with_slots);
    for (size_t i = 0; i < group.n; ++i) {
      std::vector<std::string> row = {absl::StrCat(g)};
      if (with_slots) row.insert(row.end(), {absl::StrCat(group.rank), absl::StrCat(group.slot)});
      row.insert(row.end(), {absl::StrCat(group.items[i]), absl::StrCat(group.tokens[i])});
      t.AddRow(std::move(row));
    }
  }
  return t;
}

}  // namespace flopspack::cli
