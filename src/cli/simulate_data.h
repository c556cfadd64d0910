// The straggler emulator through the library (flopspack_simulate and
// flopspack_simulate_sweep), shared by `simulate` and `report`.
#ifndef FLOPSPACK_CLI_SIMULATE_DATA_H_
#define FLOPSPACK_CLI_SIMULATE_DATA_H_

#include <string>
#include <vector>

#include "context.h"
#include "flopspack/flopspack.h"
#include "json.h"

namespace flopspack::cli {

struct SimPolicy {
  const char* name;   // for --policies and JSON
  const char* label;  // for tables and plots
  int32_t value;      // flopspack_sim_policy
};

// Every policy the library's emulator knows, in flopspack_sim_policy order.
const std::vector<SimPolicy>& SimPolicies();
// "all" or a comma-separated list of names; a usage error names an unknown one.
std::vector<SimPolicy> ParsePolicies(const std::string& list);

struct SimSettings {
  uint64_t microbatches = 1;
  int64_t tokens_per_microbatch = 8192;
  int64_t max_tokens_per_microbatch = 0;  // planner policies' memory cap; 0 = no slack
  uint64_t steps = 100;
  uint64_t seed = 0;
};

flopspack_simulate_summary Simulate(const Context& context, const SimPolicy& policy, uint64_t ranks,
                                    const SimSettings& settings);

struct SweepResult {
  std::vector<double> sampled_efficiency, predicted_efficiency, relative_throughput;
};

// progress_label: the progress bar's label ("" = none).
SweepResult Sweep(const Context& context, const SimPolicy& policy,
                  const std::vector<uint64_t>& ranks, const SimSettings& settings,
                  const std::string& progress_label);

Json SettingsJson(const SimSettings& settings);
Json SummaryJson(const flopspack_simulate_summary& s);

}  // namespace flopspack::cli

#endif  // FLOPSPACK_CLI_SIMULATE_DATA_H_
