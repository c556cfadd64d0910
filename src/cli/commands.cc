// The subcommand registry. A subcommand is listed here once the library API
// it is built on exists; there are no placeholders.
#include "commands.h"

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

}  // namespace flopspack::cli
