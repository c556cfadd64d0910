#include "args.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "status.h"

namespace flopspack::cli {
namespace {

// --kv_heads -> --kv-heads (the name only, not a value after '=').
std::string Dashed(const std::string& arg) {
  if (!absl::StartsWith(arg, "--")) return arg;
  std::string out = arg;
  const size_t end = std::min(out.find('='), out.size());
  std::replace(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(end), '_', '-');
  return out;
}

// What a value of CLI11's type name should be, in words.
std::string Expected(const std::string& type) {
  if (absl::StartsWith(type, "UINT")) return "a non-negative integer";
  if (absl::StartsWith(type, "INT")) return "an integer";
  if (absl::StartsWith(type, "FLOAT")) return "a number";
  if (absl::StartsWith(type, "BOOLEAN")) return "true or false";
  return "a valid value";
}

// The metavariable --help shows after "--name=".
std::string Metavar(const CLI::Option& option) {
  const std::string type = option.get_type_name();
  if (absl::StartsWith(type, "INT") || absl::StartsWith(type, "UINT")) return "N";
  if (absl::StartsWith(type, "FLOAT")) return "X";
  if (absl::StartsWith(type, "TEXT") || type.empty()) return "VALUE";
  return type;
}

// CLI11's message for err, in the form every flopspack error has: the flag
// as written, then what is wrong.
std::string Message(const CLI::App& app, const CLI::ParseError& err) {
  std::string what = err.what();
  const std::string name = err.get_name();
  if (name == "ValidationError") {
    // "--cost: cubic: expected ..." (options.h validators) -> "--cost=cubic: ...".
    const size_t colon = what.find(": ");
    if (colon != std::string::npos && absl::StartsWith(what, "--")) what.replace(colon, 2, "=");
    return what;
  }
  if (name == "ConversionError") {
    // "Could not convert: --layers = abc"
    constexpr absl::string_view kPrefix = "Could not convert: ";
    const size_t eq = what.find(" = ");
    if (absl::StartsWith(what, kPrefix) && eq != std::string::npos) {
      const std::string flag = what.substr(kPrefix.size(), eq - kPrefix.size());
      const std::string value = what.substr(eq + 3);
      std::string type;
      try {
        type = app.get_option(flag)->get_type_name();
      } catch (const CLI::Error&) {
      }
      return absl::StrFormat("%s=%s: expected %s", flag, value, Expected(type));
    }
    return what;
  }
  if (name == "ArgumentMismatch") {
    // "--layers: 1 required INT missing"
    const size_t colon = what.find(':');
    if (colon != std::string::npos && absl::StartsWith(what, "-")) {
      return absl::StrFormat("flag '%s' needs a value", what.substr(0, colon));
    }
  }
  return what;
}

}  // namespace

CommandLine::CommandLine(const Command& command) : command_(command), app_(command.summary) {
  app_.name(std::string("flopspack ") + command.name);
  app_.set_help_flag();  // --help is this class's, so a bad argument count does not hide it
  app_.allow_extras();   // unknown flags are reported below, in this tool's words
  // A flag given twice: the last one counts (so a script can append flags).
  app_.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app_.add_flag("-h,--help", help_, "this help");
  app_.add_option("ARGS", positional_, "positional arguments")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  run_ = command.define(app_);
}

void CommandLine::Parse(const std::vector<std::string>& args) {
  // CLI11 takes the arguments in reverse order.
  std::vector<std::string> reversed;
  bool flags_done = false;
  for (const std::string& arg : args) {
    flags_done = flags_done || arg == "--";
    reversed.push_back(flags_done ? arg : Dashed(arg));
  }
  std::reverse(reversed.begin(), reversed.end());
  try {
    app_.parse(reversed);
  } catch (const CLI::ParseError& err) {
    throw UsageError(Message(app_, err));
  }
  for (const std::string& extra : app_.remaining()) {
    if (extra == "--") continue;
    const std::string flag = extra.substr(0, extra.find('='));
    if (absl::StartsWith(flag, "--")) {
      throw UsageError(
          absl::StrFormat("unknown flag '%s' for 'flopspack %s' (see flopspack %s "
                          "--help)",
                          flag, command_.name, command_.name));
    }
    throw UsageError(
        absl::StrFormat("unknown flag '%s' (see flopspack %s --help)", flag, command_.name));
  }
  // CLI11 saturates an integer out of range (strtoll) and reads -1 into an
  // unsigned option as its two's complement; both are usage errors here.
  for (const CLI::Option* option : app_.get_options()) {
    const std::string type = option->get_type_name();
    const bool is_unsigned = absl::StartsWith(type, "UINT");
    if (!is_unsigned && !absl::StartsWith(type, "INT")) continue;
    for (const std::string& value : option->results()) {
      int64_t signed_value = 0;
      uint64_t unsigned_value = 0;
      if (is_unsigned ? absl::SimpleAtoi(value, &unsigned_value)
                      : absl::SimpleAtoi(value, &signed_value)) {
        continue;
      }
      throw UsageError(absl::StrFormat(
          "--%s=%s: expected %s of at most %s", option->get_lnames().front(), value, Expected(type),
          is_unsigned ? "18446744073709551615" : "9223372036854775807"));
    }
  }
  if (help_) return;
  const int n = static_cast<int>(positional_.size());
  if (n < command_.min_args || (command_.max_args >= 0 && n > command_.max_args)) {
    const std::string expected =
        command_.min_args == command_.max_args
            ? absl::StrCat(command_.min_args)
            : (command_.max_args < 0 ? absl::StrCat("at least ", command_.min_args)
                                     : absl::StrCat(command_.min_args, " to ", command_.max_args));
    throw UsageError(absl::StrFormat("expected %s argument%s, got %d: usage: flopspack %s %s",
                                     expected, expected == "1" ? "" : "s", n, command_.name,
                                     command_.usage));
  }
}

std::string CommandLine::Help() const {
  std::string out = absl::StrFormat("usage: flopspack %s %s\n\n%s\n", command_.name, command_.usage,
                                    command_.description);
  std::string flags;
  for (const CLI::Option* option : app_.get_options()) {
    if (option->get_positional() || option->check_lname("help")) continue;
    const std::string long_name = option->get_lnames().front();
    const bool is_switch = option->get_expected_min() == 0;
    std::string left = "  ";
    if (!option->get_snames().empty()) absl::StrAppend(&left, "-", option->get_snames()[0], ", ");
    absl::StrAppend(&left, "--", long_name);
    if (!is_switch) absl::StrAppend(&left, "=", Metavar(*option));
    std::string help = option->get_description();
    const std::string def = option->get_default_str();
    if (is_switch) {
      if (def == "true")
        absl::StrAppend(&help, " (on by default; --no", long_name, " turns it off)");
    } else if (!def.empty() && !absl::StrContains(help, "(default")) {
      absl::StrAppend(&help, " (default: ", def, ")");
    }
    if (left.size() >= 24) {
      absl::StrAppend(&flags, left, "\n", std::string(24, ' '), help, "\n");
    } else {
      absl::StrAppend(&flags, left, std::string(24 - left.size(), ' '), help, "\n");
    }
  }
  if (!flags.empty()) absl::StrAppend(&out, "\nflags:\n", flags);
  out += "\n  -h, --help            this help\n";
  return out;
}

}  // namespace flopspack::cli
