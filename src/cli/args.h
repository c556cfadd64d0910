// One subcommand's command line, parsed by CLI11 (Debian libcli11-dev).
//
// The command declares its options on a CLI::App (command.h, options.h);
// this class adds -h/--help and a catch-all for positional arguments, parses,
// and turns every problem into a usage CliError (exit 2) that names the flag
// as written: unknown flags, values that do not convert or fail a validator,
// a missing value, the wrong number of arguments. Accepted forms:
// --name=value, --name value, --switch / --noswitch / --switch=true|false,
// -o FILE for --output, "--" to end flags; "-" alone is a positional
// argument (standard input). Underscores in a flag's name read as dashes
// (--kv_heads is --kv-heads).
#ifndef FLOPSPACK_CLI_ARGS_H_
#define FLOPSPACK_CLI_ARGS_H_

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "command.h"

namespace flopspack::cli {

class CommandLine {
 public:
  explicit CommandLine(const Command& command);
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  // Parses args (everything after the subcommand name). Throws a usage
  // CliError naming the offending argument. With --help, the argument count
  // is not checked.
  void Parse(const std::vector<std::string>& args);
  bool help() const { return help_; }
  const std::vector<std::string>& positional() const { return positional_; }
  // Runs the command with the parsed options.
  void Run() const { run_(positional_); }

  // Usage, description, and each option with its help and this command's
  // default.
  std::string Help() const;

 private:
  const Command& command_;
  CLI::App app_;
  Runner run_;
  bool help_ = false;
  std::vector<std::string> positional_;
};

}  // namespace flopspack::cli

#endif  // FLOPSPACK_CLI_ARGS_H_
