// The subcommand registry. A subcommand is listed here once the library API
// it is built on exists; there are no placeholders.
#include "commands.h"
#include "absl/strings/str_cat.h"
#include "command.h"

namespace flopspack::cli {

const std::vector<Command>& Commands() {
  static const std::vector<Command> commands = {
      StatsCommand(),    PackCommand(),    BalanceCommand(), PlanCommand(),   BucketsCommand(),
      SimulateCommand(), CompareCommand(), ReportCommand(),  ModelsCommand(), FitCommand(),
  };
  return commands;
}

const Command* FindCommand(const std::string& name) {
  for (const Command& command : Commands()) {
    if (name == command.name) return &command;
  }
  return nullptr;
}

std::vector<std::string> InputFlags() { return {"column"}; }
std::vector<std::string> OutputFlags() { return {"json", "csv", "output"}; }
std::vector<std::string> ModelFlags() {
  return {"cost",  "cost_file", "model",     "layers",    "hidden",
          "heads", "kv_heads",  "head_dim",  "ffn",       "vocab",
          "gated", "causal",    "recompute", "attention", "quadratic_coef"};
}
std::vector<std::string> Concat(std::vector<std::vector<std::string>> groups) {
  std::vector<std::string> out;
  for (auto& group : groups) out.insert(out.end(), group.begin(), group.end());
  return out;
}

}  // namespace flopspack::cli
