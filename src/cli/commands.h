// One factory per subcommand, each defined in cmd_<name>.cc.
#ifndef FLOPSPACK_CLI_COMMANDS_H_
#define FLOPSPACK_CLI_COMMANDS_H_

#include "command.h"

namespace flopspack::cli {

Command ModelsCommand();
Command FitCommand();
Command StatsCommand();
Command CompareCommand();
Command SimulateCommand();
Command ReportCommand();
Command PackCommand();
Command BucketsCommand();
Command PlanCommand();
Command BalanceCommand();

}  // namespace flopspack::cli

#endif  // FLOPSPACK_CLI_COMMANDS_H_
