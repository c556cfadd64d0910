#include "args.h"

#include <algorithm>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "status.h"

namespace flopspack::cli {
namespace {

bool Accepts(const Command& command, const std::string& name) {
  return std::find(command.flags.begin(), command.flags.end(), name) != command.flags.end();
}

absl::CommandLineFlag* Lookup(const Command& command, const std::string& name) {
  if (!Accepts(command, name)) return nullptr;
  return absl::FindCommandLineFlag(name);
}

std::string Dashed(absl::string_view name) {
  std::string out(name);
  std::replace(out.begin(), out.end(), '_', '-');
  return out;
}

void Set(absl::CommandLineFlag* flag, const std::string& value, Invocation& invocation) {
  std::string error;
  if (!flag->ParseFrom(value, &error)) {
    throw UsageError(absl::StrFormat("--%s=%s: %s", Dashed(flag->Name()), value, error));
  }
  invocation.given.insert(std::string(flag->Name()));
}

// Defaults that differ by command: what --help says is what the command
// does when the flag is not given (tested per command).
struct CommandDefault {
  const char* command;
  const char* flag;
  const char* text;
};
constexpr CommandDefault kCommandDefaults[] = {
    {"simulate", "ranks", "1024; a comma-separated list sweeps"},
    {"simulate", "max_tokens", "0 = --capacity, no slack"},
    {"buckets", "ranks", "8"},
    {"plan", "ranks", "8"},
    {"plan", "microbatches", "the fewest that hold the batch"},
    {"plan", "capacity", "8192; the memory cap of one microbatch"},
    {"report", "ranks", "64,128,256,512,1024,2048,4096,8192, plus --decide-at"},
    {"report", "microbatches", "4"},
    {"report", "capacity", "16384"},
    {"report", "max_tokens", "--capacity: every policy the same memory"},
    {"balance", "max_tokens", "0 = no cap"},
};

const char* CommandDefault(const Command& command, const std::string& flag) {
  for (const auto& d : kCommandDefaults) {
    if (command.name == std::string(d.command) && flag == d.flag) return d.text;
  }
  return nullptr;
}

}  // namespace

Invocation ParseArgs(const Command& command, const std::vector<std::string>& args) {
  Invocation invocation;
  invocation.command = &command;
  bool flags_done = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (flags_done || arg == "-" || arg.empty() || arg[0] != '-') {
      invocation.positional.push_back(arg);
      continue;
    }
    if (arg == "--") {
      flags_done = true;
      continue;
    }
    if (arg == "--help" || arg == "-h" || arg == "--helpfull") {
      invocation.help = true;
      continue;
    }
    std::string body;
    if (arg == "-o") {
      body = "output";
    } else if (absl::StartsWith(arg, "--")) {
      body = arg.substr(2);
    } else {
      throw UsageError(
          absl::StrFormat("unknown flag '%s' (see flopspack %s --help)", arg, command.name));
    }
    const size_t eq = body.find('=');
    std::string name = body.substr(0, eq);
    std::replace(name.begin(), name.end(), '-', '_');
    const bool has_value = eq != std::string::npos;
    const std::string value = has_value ? body.substr(eq + 1) : "";

    absl::CommandLineFlag* flag = Lookup(command, name);
    if (flag == nullptr && !has_value && absl::StartsWith(name, "no")) {
      // --nogated: the negated form of a boolean flag.
      absl::CommandLineFlag* negated = Lookup(command, name.substr(2));
      if (negated != nullptr && negated->IsOfType<bool>()) {
        Set(negated, "false", invocation);
        continue;
      }
    }
    if (flag == nullptr) {
      throw UsageError(
          absl::StrFormat("unknown flag '--%s' for 'flopspack %s' (see flopspack %s "
                          "--help)",
                          Dashed(name), command.name, command.name));
    }
    if (has_value) {
      Set(flag, value, invocation);
    } else if (flag->IsOfType<bool>()) {
      Set(flag, "true", invocation);
    } else if (i + 1 < args.size()) {
      Set(flag, args[++i], invocation);
    } else {
      throw UsageError(absl::StrFormat("flag '--%s' needs a value", Dashed(name)));
    }
  }
  if (invocation.help) return invocation;
  const int n = static_cast<int>(invocation.positional.size());
  if (n < command.min_args || (command.max_args >= 0 && n > command.max_args)) {
    std::string expected =
        command.min_args == command.max_args
            ? absl::StrCat(command.min_args)
            : (command.max_args < 0 ? absl::StrCat("at least ", command.min_args)
                                    : absl::StrCat(command.min_args, " to ", command.max_args));
    throw UsageError(absl::StrFormat("expected %s argument%s, got %d: usage: flopspack %s %s",
                                     expected, expected == "1" ? "" : "s", n, command.name,
                                     command.usage));
  }
  return invocation;
}

std::string CommandHelp(const Command& command) {
  std::string out = absl::StrFormat("usage: flopspack %s %s\n\n%s\n", command.name, command.usage,
                                    command.description);
  if (!command.flags.empty()) out += "\nflags:\n";
  for (const std::string& name : command.flags) {
    const absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    if (flag == nullptr) continue;
    std::string left = "  --" + Dashed(name);
    if (!flag->IsOfType<bool>()) left += "=VALUE";
    if (name == "output") left = "  -o, --output=FILE";
    std::string help = flag->Help();
    const std::string def = flag->DefaultValue();
    // Defaults the help already explains (sentinels such as "0 = from the
    // preset") are not repeated.
    const bool explained = absl::StrContains(help, "default") || absl::StrContains(help, "preset");
    if (const char* text = CommandDefault(command, name)) {
      help += absl::StrCat(" (default: ", text, ")");
    } else if (flag->IsOfType<bool>()) {
      if (def == "true")
        help += absl::StrCat(" (on by default; --no", Dashed(name), " turns it off)");
    } else if (!def.empty() && !explained) {
      help += absl::StrCat(" (default: ", def, ")");
    }
    if (left.size() >= 24) {
      absl::StrAppend(&out, left, "\n", std::string(24, ' '), help, "\n");
    } else {
      absl::StrAppend(&out, left, std::string(24 - left.size(), ' '), help, "\n");
    }
  }
  out += "\n  -h, --help            this help\n";
  return out;
}

}  // namespace flopspack::cli
