// The CLI's error type and exit codes (docs/cli.md, "Exit codes").
//
// Every failure inside a subcommand is a CliError carrying the exit code it
// maps to and a one-line message; main() prints "flopspack <command>: <message>"
// on stderr and exits with the code. Nothing prints and exits from deep inside.
#ifndef FLOPSPACK_CLI_STATUS_H_
#define FLOPSPACK_CLI_STATUS_H_

#include <stdexcept>
#include <string>

#include "flopspack/flopspack.h"

namespace flopspack::cli {

enum ExitCode : int {
  kExitOk = 0,
  kExitBadInput = 1,       // unreadable file, bad value in it, input the library rejects
  kExitUsage = 2,          // unknown subcommand or flag, bad flag value, missing argument
  kExitInternal = 3,       // cannot write output, report renderer failed, library bug
  kExitInterrupted = 130,  // Ctrl-C: the results finished so far were printed
};

class CliError : public std::runtime_error {
 public:
  CliError(ExitCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ExitCode code() const { return code_; }

 private:
  ExitCode code_;
};

inline CliError UsageError(const std::string& message) { return CliError(kExitUsage, message); }
inline CliError InputError(const std::string& message) { return CliError(kExitBadInput, message); }

// Throws unless status is FLOPSPACK_OK: the library's detail message, prefixed
// with what the CLI was doing. Library bugs and allocation failures map to
// kExitInternal, everything else (the library rejected the input or the
// options) to kExitBadInput.
// The library's message has its option fields replaced by the flags that set
// them (FlagTerms).
void Check(flopspack_status status, const std::string& doing);

// A library message in the user's terms: option fields become the flags that
// set them (microbatches_per_rank -> --microbatches, num_ranks -> --ranks,
// max_tokens_per_microbatch -> --max-tokens, ...).
std::string FlagTerms(const std::string& message);
// For a command whose flag sets a field under another name (plan's
// --capacity is the planner's max_tokens_per_microbatch).
void NameField(const std::string& field, const std::string& flag);

}  // namespace flopspack::cli

#endif  // FLOPSPACK_CLI_STATUS_H_
