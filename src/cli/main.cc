// flopspack: the command-line tool. `flopspack <command> [flags] [args]`.
// Dispatches to a subcommand (commands.cc), maps every failure to an exit
// code (status.h) and a one-line message on stderr.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "args.h"
#include "command.h"
#include "flopspack/flopspack.h"
#include "progress.h"
#include "renderer.h"
#include "status.h"

namespace flopspack::cli {
namespace {

std::string GeneralHelp() {
  std::string out =
      "usage: flopspack <command> [flags] [args]\n\n"
      "Pack variable-length training data and balance it across GPUs by FLOPs.\n"
      "LENGTHS is a text file with one length per line, a CSV/TSV column (--column),\n"
      "a NumPy .npy integer array, or - for standard input.\n\ncommands:\n";
  for (const Command& command : Commands()) {
    out += absl::StrFormat("  %-10s %s\n", command.name, command.summary);
  }
  out +=
      "\n  flopspack <command> --help   flags of one command\n"
      "  flopspack --version\n\n"
      "exit codes: 0 ok, 1 bad input, 2 usage error, 3 internal error, 130 interrupted.\n";
  const std::string docs = DocumentationPath();
  out += docs.empty() ? "Documentation: docs/cli.md in the flopspack source tree\n"
                      : "Documentation: " + docs + "\n";
  return out;
}

int Main(const std::vector<std::string>& args) {
  if (args.empty()) {
    std::fputs(GeneralHelp().c_str(), stderr);
    return kExitUsage;
  }
  const std::string& first = args[0];
  if (first == "--version" || first == "-V" || first == "version") {
    std::printf("flopspack %s (library %s, JSON schema flopspack-cli/1)\n",
                FLOPSPACK_VERSION_STRING, flopspack_version_string());
    return kExitOk;
  }
  if (first == "--help" || first == "-h" || first == "help") {
    if (args.size() > 1) {
      const Command* command = FindCommand(args[1]);
      if (command == nullptr) {
        std::fprintf(stderr, "flopspack: unknown command '%s'\n", args[1].c_str());
        return kExitUsage;
      }
      const CommandLine line(*command);
      std::fputs(line.Help().c_str(), stdout);
      return kExitOk;
    }
    std::fputs(GeneralHelp().c_str(), stdout);
    return kExitOk;
  }
  const Command* command = FindCommand(first);
  if (command == nullptr) {
    std::fprintf(stderr, "flopspack: unknown %s '%s' (see flopspack --help)\n",
                 first[0] == '-' ? "flag" : "command", first.c_str());
    return kExitUsage;
  }
  try {
    CommandLine line(*command);
    line.Parse(std::vector<std::string>(args.begin() + 1, args.end()));
    if (line.help()) {
      std::fputs(line.Help().c_str(), stdout);
      return kExitOk;
    }
    line.Run();
    return kExitOk;
  } catch (const CliError& error) {
    ClearProgressLine();
    std::fprintf(stderr, "flopspack %s: %s\n", command->name, error.what());
    return error.code();
  } catch (const std::exception& error) {
    ClearProgressLine();
    std::fprintf(stderr, "flopspack %s: internal error: %s\n", command->name, error.what());
    return kExitInternal;
  }
}

}  // namespace
}  // namespace flopspack::cli

int main(int argc, char** argv) {
  return flopspack::cli::Main(std::vector<std::string>(argv + 1, argv + argc));
}
