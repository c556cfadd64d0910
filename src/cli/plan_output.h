// Output of a flopspack_plan (from pack, balance, plan, buckets): its
// metrics as JSON or a metric/value table, and its groups (the plan itself)
// as JSON, a per-group table, or a long CSV of (group, rank, slot, item,
// tokens) rows that loads straight into pandas or a database.
#ifndef FLOPSPACK_CLI_PLAN_OUTPUT_H_
#define FLOPSPACK_CLI_PLAN_OUTPUT_H_

#include <cstdint>
#include <string>

#include "flopspack/flopspack.h"
#include "json.h"
#include "output.h"

namespace flopspack::cli {

// Reads the metrics (throws on a library error).
struct flopspack_plan_metrics PlanMetrics(const flopspack_plan* plan);
// flopspack_planned_by as table text ("documents planner (fell back to
// ...)"); JSON carries the number, as the C field does.
std::string PlannedByText(int32_t planned_by);

// Every metric field; step fields (ranks, slots) only when the plan has ranks.
Json PlanMetricsJson(const struct flopspack_plan_metrics& m);
// The fields that apply, one per row, formatted for reading.
Table PlanMetricsTable(const struct flopspack_plan_metrics& m, const std::string& unit);

// The groups. with_slots adds rank and slot (step and bucket plans).
Json PlanGroupsJson(const flopspack_plan* plan, bool with_slots);
Table PlanGroupsTable(const flopspack_plan* plan, bool with_slots);
Table PlanGroupsCsvTable(const flopspack_plan* plan, bool with_slots);

}  // namespace flopspack::cli

#endif  // FLOPSPACK_CLI_PLAN_OUTPUT_H_
