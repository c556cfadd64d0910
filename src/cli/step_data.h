// The step planner through the library (flopspack_plan_step), shared by
// `plan` and `report`.
#ifndef FLOPSPACK_CLI_STEP_DATA_H_
#define FLOPSPACK_CLI_STEP_DATA_H_

#include <string>
#include <vector>

#include "flopspack/flopspack.h"
#include "handles.h"
#include "json.h"

namespace flopspack::cli {

struct StepAlgorithm {
  const char* name;   // --algorithm value and JSON
  const char* label;  // tables and plots
  int32_t value;      // flopspack_step_algorithm
};
const std::vector<StepAlgorithm>& StepAlgorithms();
const StepAlgorithm& FindStepAlgorithm(const std::string& name);  // usage error if unknown

struct StepSettings {
  uint32_t num_ranks = 8;
  uint32_t microbatches = 0;  // 0 = the fewest that hold the batch
  int64_t capacity = 8192;
  uint64_t seed = 0;
  int32_t ordering = FLOPSPACK_SLOT_ORDER_DESCENDING;
  int32_t overflow = FLOPSPACK_OVERFLOW_SPLIT;
  int32_t sync = FLOPSPACK_SYNC_STEP;
  uint32_t pipeline_stages = 0;
  // Context parallelism: 0 = none; capacity stays per GPU (a microbatch
  // holds context_parallel_size x capacity tokens).
  uint32_t context_parallel_size = 0;
  int32_t context_parallel_layout = FLOPSPACK_CP_DOCUMENT_HEAD_TAIL;
};
Json StepSettingsJson(const StepSettings& settings);
const char* OrderName(int32_t ordering);

PlanPtr PlanStep(const std::vector<int64_t>& lengths, const flopspack_cost_model* model,
                 const StepAlgorithm& algorithm, const StepSettings& settings);

// Each rank's total tokens and cost in a step plan, from its groups.
struct RankLoad {
  int64_t tokens = 0;
  double cost = 0;
};
std::vector<RankLoad> RankLoads(const flopspack_plan* plan, uint64_t num_ranks);

}  // namespace flopspack::cli

#endif  // FLOPSPACK_CLI_STEP_DATA_H_
