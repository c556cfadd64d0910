// A subcommand: its name, one-line summary, usage text, the flags it accepts
// and the function that runs it. The registry (commands.cc) lists only the
// subcommands whose library API exists.
#ifndef FLOPSPACK_CLI_COMMAND_H_
#define FLOPSPACK_CLI_COMMAND_H_

#include <string>
#include <vector>

namespace flopspack::cli {

struct Invocation;

struct Command {
  const char* name;
  const char* summary;
  // After "flopspack <name> ": e.g. "[flags] LENGTHS".
  const char* usage;
  // A paragraph printed under the usage line by --help.
  const char* description;
  // Names of the Abseil flags this subcommand accepts, in help order.
  std::vector<std::string> flags;
  // Positional arguments: at least min_args, at most max_args (-1 = any).
  int min_args, max_args;
  // Runs with flags parsed and positional arguments counted; throws CliError.
  void (*run)(const Invocation& invocation);
};

// Every registered subcommand, in the order `flopspack --help` lists them.
const std::vector<Command>& Commands();
const Command* FindCommand(const std::string& name);

// Flag groups shared by several subcommands.
std::vector<std::string> InputFlags();   // --column
std::vector<std::string> OutputFlags();  // --json --csv --output
std::vector<std::string> ModelFlags();   // --cost --model --layers ...
std::vector<std::string> Concat(std::vector<std::vector<std::string>> groups);

}  // namespace flopspack::cli

#endif  // FLOPSPACK_CLI_COMMAND_H_
