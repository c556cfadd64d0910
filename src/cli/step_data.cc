#include "step_data.h"

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "status.h"

namespace flopspack::cli {

const std::vector<StepAlgorithm>& StepAlgorithms() {
  static const std::vector<StepAlgorithm> algorithms = {
      {"documents", "flopspack planner (documents by cost)", FLOPSPACK_STEP_DOCUMENTS},
      {"random", "random dealing", FLOPSPACK_STEP_RANDOM},
      {"tokens", "token-balanced", FLOPSPACK_STEP_TOKENS},
      {"sequences", "packed sequences by cost", FLOPSPACK_STEP_SEQUENCES},
  };
  return algorithms;
}

const StepAlgorithm& FindStepAlgorithm(const std::string& name) {
  std::vector<std::string> names;
  for (const StepAlgorithm& a : StepAlgorithms()) {
    if (name == a.name) return a;
    names.push_back(a.name);
  }
  throw UsageError(
      absl::StrFormat("--algorithm=%s: expected %s", name, absl::StrJoin(names, ", ")));
}

const char* OrderName(int32_t ordering) {
  switch (ordering) {
    case FLOPSPACK_SLOT_ORDER_DESCENDING:
      return "descending";
    case FLOPSPACK_SLOT_ORDER_LIGHT_ENDS:
      return "light-ends";
    case FLOPSPACK_SLOT_ORDER_AS_PLANNED:
      return "as-planned";
  }
  return "unknown";
}

Json StepSettingsJson(const StepSettings& s) {
  Json out = Json::Object();
  out.Set("num_ranks", static_cast<uint64_t>(s.num_ranks));
  out.Set("microbatches_per_rank", static_cast<uint64_t>(s.microbatches));
  out.Set("max_tokens_per_microbatch", s.capacity);
  out.Set("seed", s.seed);
  out.Set("order", OrderName(s.ordering));
  return out;
}

PlanPtr PlanStep(const std::vector<int64_t>& lengths, const flopspack_cost_model* model,
                 const StepAlgorithm& algorithm, const StepSettings& s) {
  flopspack_step_options options;
  flopspack_step_options_init(&options);
  options.num_ranks = s.num_ranks;
  options.microbatches_per_rank = s.microbatches;
  options.algorithm = algorithm.value;
  options.max_tokens_per_microbatch = s.capacity;
  options.seed = s.seed;
  options.ordering = s.ordering;
  options.overflow = s.overflow;
  options.sync = s.sync;
  options.pipeline_stages = s.pipeline_stages;
  options.context_parallel_size = s.context_parallel_size;
  options.context_parallel_layout = s.context_parallel_layout;
  flopspack_plan* plan = nullptr;
  Check(flopspack_plan_step(&options, model, lengths.data(), lengths.size(), &plan),
        absl::StrFormat("plan step (%s, %d ranks)", algorithm.name, s.num_ranks));
  return PlanPtr(plan);
}

std::vector<RankLoad> RankLoads(const flopspack_plan* plan, uint64_t num_ranks) {
  std::vector<RankLoad> loads(num_ranks);
  const size_t groups = flopspack_plan_group_count(plan);
  for (size_t g = 0; g < groups; ++g) {
    size_t rank = 0, slot = 0;
    int64_t real = 0;
    double cost = 0;
    Check(flopspack_plan_group_slot(plan, g, &rank, &slot), "plan slot");
    Check(flopspack_plan_group_info(plan, g, &real, nullptr, &cost), "plan group info");
    if (rank >= loads.size()) loads.resize(rank + 1);
    loads[rank].tokens += real;
    loads[rank].cost += cost;
  }
  return loads;
}

}  // namespace flopspack::cli
