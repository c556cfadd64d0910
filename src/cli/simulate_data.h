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
  // A point the file cannot fill without repeating documents inside a step:
  // true = run it on documents drawn with replacement from the file
  // (resample.h), false = report it as n/a.
  bool resample = true;
  // The trainer's topology (--sync, --pipeline-stages): what a step waits for.
  std::string sync = "step";
  uint64_t pipeline_stages = 0;
  // Context parallelism (--cp, --cp-layout): every rank a CP group of this
  // many GPUs (0 or 1 = none), token counts per GPU.
  uint64_t cp = 0;
  std::string cp_layout = "document";
};

// One line on the topology the step times assume, e.g. "synchronization:
// once per optimizer step (each step waits for the slowest GPU)".
std::string TopologyText(const SimSettings& settings);

// How one (policy, rank count) point was run.
enum class PointState {
  kRun,             // on the file itself
  kResampled,       // on documents drawn with replacement from the file
  kNeedsDocuments,  // not run: --resample=false and the file is too small
  kInterrupted,     // not run or not finished: Ctrl-C
};
// "ok", "resampled", "n/a", "interrupted" (the JSON's status strings).
const char* PointStateName(PointState state);

// What one step at `ranks` ranks takes from the file: about `documents`
// documents (the step's tokens over the file's mean length; for the bucket
// sampler, the smallest pool that fills a step's batches), and whether the
// file has them.
struct PointNeed {
  bool fits = true;
  uint64_t documents = 0;
};
PointNeed Need(const Context& context, const SimPolicy& policy, uint64_t ranks,
               const SimSettings& settings);

struct SimPoint {
  PointState state = PointState::kRun;
  flopspack_simulate_summary summary = {};
  uint64_t documents_needed = 0;  // per step
  uint64_t pool_documents = 0;    // documents drawn with replacement; 0 = the file
};

// One point; never fails for a file too small (see PointState). Other
// errors (bad options, the cost model) throw.
SimPoint Simulate(const Context& context, const SimPolicy& policy, uint64_t ranks,
                  const SimSettings& settings);

struct SweepResult {
  // NaN where a point was not run.
  std::vector<double> sampled_efficiency, predicted_efficiency, relative_throughput;
  std::vector<PointState> state;
  std::vector<uint64_t> documents_needed;  // per point, per step
  std::vector<uint64_t> pool_documents;    // per point; 0 = the file
  bool interrupted = false;
};

// The points the file fills run in one library sweep on the file, the others
// in one sweep on a pool drawn with replacement (or are n/a). After Ctrl-C
// the points not finished are kInterrupted and `interrupted` is set; the
// caller prints what it has. progress_label: the progress bar's label
// ("" = none).
SweepResult Sweep(const Context& context, const SimPolicy& policy,
                  const std::vector<uint64_t>& ranks, const SimSettings& settings,
                  const std::string& progress_label);

// The per-point status strings of a sweep, for the JSON.
Json StatusJson(const SweepResult& sweep);

// The cell of a table for a point: value formatted by `format`, "n/a: needs
// N documents", or "interrupted"; resampled values get a trailing '*'.
std::string PointCell(PointState state, uint64_t documents_needed, const std::string& value);
// The footnote for tables holding resampled or n/a cells ("" if none).
std::string ResampleNote(const Context& context, bool any_resampled, bool any_missing);

Json SettingsJson(const SimSettings& settings);
Json SummaryJson(const flopspack_simulate_summary& s);

}  // namespace flopspack::cli

#endif  // FLOPSPACK_CLI_SIMULATE_DATA_H_
