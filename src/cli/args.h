// Command-line parsing for one subcommand, on top of Abseil's flag registry.
//
// Flags are ordinary ABSL_FLAGs (typed, with help text and defaults), but
// absl::ParseCommandLine exits with status 1 on an unknown flag or a bad
// value and knows nothing of subcommands. This parser accepts only the flags
// the subcommand lists, sets them through CommandLineFlag::ParseFrom, and
// reports problems as usage errors (exit 2). Accepted forms: --name=value,
// --name value, --bool / --nobool / --bool=true|false, -o FILE for --output,
// "--" to end flags; "-" alone is a positional argument (standard input).
// Dashes and underscores in flag names are the same (--kv-heads, --kv_heads).
#ifndef FLOPSPACK_CLI_ARGS_H_
#define FLOPSPACK_CLI_ARGS_H_

#include <set>
#include <string>
#include <vector>

#include "command.h"

namespace flopspack::cli {

struct Invocation {
  const Command* command = nullptr;
  std::vector<std::string> positional;
  bool help = false;  // --help or -h was given: print help, run nothing
  // Flags given on the command line (underscore spelling), e.g. to let
  // --gated / --nogated override a preset only when written.
  std::set<std::string> given;
  bool Given(const std::string& flag) const { return given.count(flag) > 0; }
};

// Parses args (everything after the subcommand name). Throws a usage
// CliError naming the offending argument.
Invocation ParseArgs(const Command& command, const std::vector<std::string>& args);

// Help text for one subcommand: usage, description, and each accepted flag
// with its default and help string from the flag registry.
std::string CommandHelp(const Command& command);

}  // namespace flopspack::cli

#endif  // FLOPSPACK_CLI_ARGS_H_
