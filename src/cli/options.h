// Options shared by several subcommands, each defined here once: a function
// that adds it to a command's CLI::App (CLI11), bound to a field of the
// command's own options struct. A command passes its own default (the
// field's initial value, which --help prints) and, where the meaning differs
// by command, its own help text.
//
// Conventions every option follows (docs/cli.md, "Flags"):
// - errors name the flag and the value as written: "--capacity=0: must be
//   >= 1" (the validators below return "VALUE: reason"; args.cc turns
//   CLI11's "--capacity: VALUE: reason" into that form), exit code 2;
// - a boolean switch also has a negated form, --noNAME, and takes
//   --NAME=true|false;
// - an option whose absence means something other than a value (plan's
//   --microbatches: "the fewest that hold the batch") says so in its help.
#ifndef FLOPSPACK_CLI_OPTIONS_H_
#define FLOPSPACK_CLI_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

// CLI11 is a large header: only the files that declare options include it.
namespace CLI {
class App;
class Option;
class Validator;
}  // namespace CLI

namespace flopspack::cli {

// "VALUE: must be >= min" for integers below min ("" for values CLI11's own
// conversion will reject, so the message says what the value should be).
CLI::Validator AtLeast(int64_t min);
CLI::Validator AtLeastReal(double min);
// "VALUE: must be a positive WHAT" for integers below 1.
CLI::Validator Positive(const std::string& what);
// "VALUE: expected a, b, c" unless the value is one of `names`.
CLI::Validator OneOf(std::vector<std::string> names);

// A boolean switch: --name (sets true), --noname (sets false), and
// --name=true|false. `value`'s initial value is the default.
CLI::Option* AddSwitch(CLI::App& app, const std::string& name, bool& value,
                       const std::string& help);

// --column: which CSV column holds the lengths.
struct InputOptions {
  std::string column;
};
void AddInputOptions(CLI::App& app, InputOptions& options);
// --extra-costs FILE (simulate, report): one extra cost per document.
void AddExtraCostsOption(CLI::App& app, std::string& path);

// --json, --csv, -o/--output. A command without tables (report) takes only
// --output (formats = false).
struct OutputOptions {
  bool json = false;
  bool csv = false;
  std::string output;
};
void AddOutputOptions(CLI::App& app, OutputOptions& options, bool formats = true);

// --progress / --noprogress: the progress bar is one per process (it owns
// the terminal line), so the switch sets the process-wide setting.
void AddProgressOption(CLI::App& app);

// The model shape: --model and the shape flags. Unset optionals were not
// given (a preset's value, or the rule in model.h, applies).
struct ShapeOptions {
  std::string model;
  std::optional<int64_t> layers, hidden, heads, kv_heads, head_dim, ffn, vocab;
  std::optional<bool> gated;
  bool causal = true;
  bool recompute = false;
  std::string attention = "document";
};
void AddShapeOptions(CLI::App& app, ShapeOptions& options);

// How a document is costed: --cost or --cost-file, --quadratic-coef, and the
// shape.
struct CostOptions {
  std::optional<std::string> cost;  // unset: transformer
  std::string cost_file;
  double quadratic_coef = 0;
  ShapeOptions shape;
};
void AddCostOptions(CLI::App& app, CostOptions& options);

// --seed: the seed of every random choice.
void AddSeed(CLI::App& app, uint64_t& seed);
// --capacity (>= 1): its meaning differs by command, so its help is given.
void AddCapacity(CLI::App& app, int64_t& capacity, const std::string& help);
// --ranks: one rank count or a comma-separated list (simulate_ranks.h parses
// it); `ranks` holds the command's default as text.
void AddRanks(CLI::App& app, std::string& ranks, const std::string& help);
// --microbatches (>= min) per rank and step.
void AddMicrobatches(CLI::App& app, uint64_t& microbatches, uint64_t min, const std::string& help);
// --max-tokens (>= 0): a hard token cap whose meaning the command gives.
void AddMaxTokens(CLI::App& app, int64_t& max_tokens, const std::string& help);
// --algorithm: one of `names`; `algorithm` holds the command's default.
void AddAlgorithm(CLI::App& app, std::string& algorithm, const std::vector<std::string>& names,
                  const std::string& help);
// --overflow: one of `accepted`; `overflow` holds the command's default.
void AddOverflow(CLI::App& app, std::string& overflow, const std::vector<std::string>& accepted);
// --plan: print the plan's groups; --compare: every algorithm side by side.
void AddPlanSwitch(CLI::App& app, bool& plan);
void AddCompareSwitch(CLI::App& app, bool& compare);
// --resample / --noresample (default on).
void AddResampleSwitch(CLI::App& app, bool& resample);

// --sync (step | microbatch) and --pipeline-stages (0 .. 1024; 0 or 1 =
// none): the trainer's topology; the help says what the command does with
// it.
void AddSyncOptions(CLI::App& app, std::string& sync, uint64_t& pipeline_stages,
                    const std::string& sync_help, const std::string& stages_help);
// A --sync name as a flopspack_sync value.
int32_t SyncValue(const std::string& name);

// The straggler emulator's settings, shared by `simulate` and `report`:
// --capacity, --max-tokens, --microbatches, the steps flag (its name and
// help differ by command), --seed, --resample, --sync, --pipeline-stages.
struct SimSettings;
struct SimulationHelp {
  std::string max_tokens, microbatches, steps_flag, steps;
};
void AddSimulationOptions(CLI::App& app, SimSettings& sim, const SimulationHelp& help);

// An --overflow name as a flopspack_overflow value, and back.
int32_t OverflowValue(const std::string& name);
const char* OverflowName(int32_t overflow);

}  // namespace flopspack::cli

#endif  // FLOPSPACK_CLI_OPTIONS_H_
