#include "simulate_data.h"

#include <memory>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "progress.h"
#include "status.h"

namespace flopspack::cli {

const std::vector<SimPolicy>& SimPolicies() {
  static const std::vector<SimPolicy> policies = {
      {"random", "random dealing", FLOPSPACK_SIM_RANDOM},
      {"token-balanced", "token-balanced", FLOPSPACK_SIM_TOKEN_BALANCED},
      {"buckets", "bucket sampler (padded)", FLOPSPACK_SIM_BUCKETS},
      {"planner", "flopspack planner (FLOPs)", FLOPSPACK_SIM_PLANNER_DOCUMENTS},
      {"planner-random", "planner: concatenate + deal", FLOPSPACK_SIM_PLANNER_RANDOM},
      {"planner-tokens", "planner: balance tokens", FLOPSPACK_SIM_PLANNER_TOKENS},
      {"planner-sequences", "planner: packed sequences", FLOPSPACK_SIM_PLANNER_SEQUENCES},
  };
  return policies;
}

std::vector<SimPolicy> ParsePolicies(const std::string& list) {
  if (list == "all") return SimPolicies();
  std::vector<SimPolicy> out;
  for (absl::string_view name : absl::StrSplit(list, ',', absl::SkipWhitespace())) {
    const SimPolicy* found = nullptr;
    for (const SimPolicy& policy : SimPolicies()) {
      if (name == policy.name) found = &policy;
    }
    if (found == nullptr) {
      std::vector<std::string> names;
      for (const SimPolicy& policy : SimPolicies()) names.push_back(policy.name);
      throw UsageError(absl::StrFormat("--policies: unknown policy '%s'; known: all, %s", name,
                                       absl::StrJoin(names, ", ")));
    }
    out.push_back(*found);
  }
  if (out.empty()) throw UsageError("--policies: no policy given");
  return out;
}

namespace {

flopspack_simulate_options Options(const SimPolicy& policy, uint64_t ranks,
                                   const SimSettings& settings) {
  flopspack_simulate_options options;
  flopspack_simulate_options_init(&options);
  options.policy = policy.value;
  options.num_ranks = ranks;
  options.microbatches_per_rank = settings.microbatches;
  options.tokens_per_microbatch = settings.tokens_per_microbatch;
  options.max_tokens_per_microbatch = settings.max_tokens_per_microbatch;
  options.num_steps = settings.steps;
  options.seed = settings.seed;
  return options;
}

struct ResultDeleter {
  void operator()(flopspack_simulate_result* r) const { flopspack_simulate_result_destroy(r); }
};

int OnProgress(void* user_data, uint64_t done, uint64_t total) {
  auto* progress = static_cast<std::unique_ptr<Progress>*>(user_data);
  if (*progress == nullptr) return 0;
  (*progress)->SetTotal(total);
  (*progress)->Set(done);
  return 0;
}

}  // namespace

flopspack_simulate_summary Simulate(const Context& context, const SimPolicy& policy, uint64_t ranks,
                                    const SimSettings& settings) {
  flopspack_simulate_options options = Options(policy, ranks, settings);
  std::unique_ptr<Progress> progress =
      std::make_unique<Progress>(absl::StrFormat("simulate %s", policy.name), settings.steps);
  options.progress = OnProgress;
  options.progress_user_data = &progress;
  flopspack_simulate_result* raw = nullptr;
  Check(flopspack_simulate(context.lengths.values.data(), context.lengths.values.size(),
                           context.model.get(), &options, &raw),
        absl::StrFormat("simulate %s at %d ranks", policy.name, ranks));
  std::unique_ptr<flopspack_simulate_result, ResultDeleter> result(raw);
  flopspack_simulate_summary summary = {};
  summary.struct_size = sizeof(summary);
  Check(flopspack_simulate_result_summary(result.get(), &summary), "simulation summary");
  return summary;
}

SweepResult Sweep(const Context& context, const SimPolicy& policy,
                  const std::vector<uint64_t>& ranks, const SimSettings& settings,
                  const std::string& progress_label) {
  flopspack_simulate_options options = Options(policy, 1, settings);
  std::unique_ptr<Progress> progress;
  if (!progress_label.empty()) progress = std::make_unique<Progress>(progress_label, 0);
  options.progress = OnProgress;
  options.progress_user_data = &progress;
  SweepResult out;
  out.sampled_efficiency.resize(ranks.size());
  out.predicted_efficiency.resize(ranks.size());
  out.relative_throughput.resize(ranks.size());
  Check(flopspack_simulate_sweep(context.lengths.values.data(), context.lengths.values.size(),
                                 context.model.get(), &options, ranks.data(), ranks.size(),
                                 out.sampled_efficiency.data(), out.predicted_efficiency.data(),
                                 out.relative_throughput.data()),
        absl::StrFormat("sweep of %s", policy.name));
  return out;
}

Json SettingsJson(const SimSettings& settings) {
  Json out = Json::Object();
  out.Set("microbatches_per_rank", settings.microbatches);
  out.Set("tokens_per_microbatch", settings.tokens_per_microbatch);
  out.Set("max_tokens_per_microbatch", settings.max_tokens_per_microbatch);
  out.Set("steps", settings.steps);
  out.Set("seed", settings.seed);
  return out;
}

Json SummaryJson(const flopspack_simulate_summary& s) {
  Json out = Json::Object();
  out.Set("num_steps", s.num_steps);
  out.Set("num_ranks", s.num_ranks);
  out.Set("microbatches_per_rank", s.microbatches_per_rank);
  out.Set("documents_drawn", s.documents_drawn);
  out.Set("epochs", s.epochs);
  out.Set("mean_balance_efficiency", s.mean_balance_efficiency);
  out.Set("p5_balance_efficiency", s.p5_balance_efficiency);
  out.Set("p50_balance_efficiency", s.p50_balance_efficiency);
  out.Set("p95_balance_efficiency", s.p95_balance_efficiency);
  out.Set("mean_fill", s.mean_fill);
  out.Set("mean_padding_efficiency", s.mean_padding_efficiency);
  out.Set("relative_throughput", s.relative_throughput);
  out.Set("mean_step_time", s.mean_step_time);
  out.Set("predicted_efficiency", s.predicted_efficiency);
  out.Set("real_tokens", s.real_tokens);
  out.Set("computed_tokens", s.computed_tokens);
  return out;
}

}  // namespace flopspack::cli
