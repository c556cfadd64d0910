// A subcommand: its name, one-line summary, usage text, description, how
// many positional arguments it takes, and the function that declares its
// options on a CLI11 app. The registry (commands.cc) lists only the
// subcommands whose library API exists.
#ifndef FLOPSPACK_CLI_COMMAND_H_
#define FLOPSPACK_CLI_COMMAND_H_

#include <functional>
#include <string>
#include <vector>

namespace CLI {
class App;
}  // namespace CLI

namespace flopspack::cli {

// Runs a command with its positional arguments, once its options are parsed;
// throws CliError.
using Runner = std::function<void(const std::vector<std::string>& args)>;

struct Command {
  const char* name;
  const char* summary;
  // After "flopspack <name> ": e.g. "[flags] LENGTHS".
  const char* usage;
  // A paragraph printed under the usage line by --help.
  const char* description;
  // Positional arguments: at least min_args, at most max_args (-1 = any).
  int min_args, max_args;
  // Adds the command's options to app, bound to storage the returned Runner
  // owns (each command's own struct, with its own defaults).
  Runner (*define)(CLI::App& app);
};

// Every registered subcommand, in the order `flopspack --help` lists them.
const std::vector<Command>& Commands();
const Command* FindCommand(const std::string& name);

}  // namespace flopspack::cli

#endif  // FLOPSPACK_CLI_COMMAND_H_
