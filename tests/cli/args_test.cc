// The subcommand parser (CLI11 under args.h): accepted spellings, per-command
// option sets and defaults, usage errors (exit 2) that name the flag, and
// --help that states what the command does when a flag is not given.
#include "args.h"

#include <gtest/gtest.h>

#include <memory>

#include "commands.h"
#include "options.h"
#include "status.h"

namespace flopspack::cli {
namespace {

// The options a test command binds, and the last run's positional arguments.
struct TestOptions {
  InputOptions input;
  OutputOptions output;
  CostOptions cost;
  int64_t capacity = 4096;
  std::string overflow = "split";
  std::vector<std::string> args;
};
std::shared_ptr<TestOptions> last;

Runner DefineTest(CLI::App& app) {
  last = std::make_shared<TestOptions>();
  AddInputOptions(app, last->input);
  AddOutputOptions(app, last->output);
  AddCostOptions(app, last->cost);
  AddCapacity(app, last->capacity, "tokens per test");
  AddOverflow(app, last->overflow, {"split", "error"});
  return [o = last](const std::vector<std::string>& args) { o->args = args; };
}

const Command kTest = {"test", "a test command", "[flags] LENGTHS", "For the tests.", 1,
                       1,      DefineTest};

// Parses and runs; the options the command saw.
TestOptions Parse(const std::vector<std::string>& args) {
  CommandLine line(kTest);
  line.Parse(args);
  if (!line.help()) line.Run();
  return *last;
}

CliError ErrorOf(const std::vector<std::string>& args) {
  try {
    Parse(args);
  } catch (const CliError& e) {
    return e;
  }
  return CliError(kExitOk, "");
}

TEST(ArgsTest, ParsesSpellings) {
  const TestOptions o =
      Parse({"--kv-heads=4", "--layers", "7", "--json", "data.txt", "--nocausal", "-o", "x"});
  EXPECT_EQ(o.cost.shape.kv_heads, 4);
  EXPECT_EQ(o.cost.shape.layers, 7);
  EXPECT_TRUE(o.output.json);
  EXPECT_FALSE(o.cost.shape.causal);
  EXPECT_EQ(o.output.output, "x");
  EXPECT_EQ(o.args, std::vector<std::string>{"data.txt"});
  // Not given: unset, so the preset's value applies.
  EXPECT_FALSE(o.cost.shape.hidden.has_value());
  EXPECT_FALSE(o.cost.shape.gated.has_value());
  EXPECT_EQ(o.capacity, 4096);
}

TEST(ArgsTest, UnderscoresReadAsDashes) {
  const TestOptions o = Parse({"--kv_heads=3", "--cost_file", "f.json", "data.txt"});
  EXPECT_EQ(o.cost.shape.kv_heads, 3);
  EXPECT_EQ(o.cost.cost_file, "f.json");
}

TEST(ArgsTest, DashIsPositionalAndDoubleDashEndsFlags) {
  EXPECT_EQ(Parse({"-"}).args, std::vector<std::string>{"-"});
  const TestOptions o = Parse({"--", "--json"});
  EXPECT_EQ(o.args, std::vector<std::string>{"--json"});
  EXPECT_FALSE(o.output.json);
}

TEST(ArgsTest, SwitchesTakeExplicitValuesAndNegations) {
  EXPECT_EQ(Parse({"--gated=true", "f"}).cost.shape.gated, true);
  EXPECT_EQ(Parse({"--gated=false", "f"}).cost.shape.gated, false);
  EXPECT_EQ(Parse({"--nogated", "f"}).cost.shape.gated, false);
  EXPECT_TRUE(Parse({"f"}).cost.shape.causal);
  EXPECT_FALSE(Parse({"--causal=false", "f"}).cost.shape.causal);
}

TEST(ArgsTest, UsageErrors) {
  EXPECT_EQ(ErrorOf({"--bogus", "f"}).code(), kExitUsage);
  EXPECT_EQ(ErrorOf({"--seed=1", "f"}).code(), kExitUsage);  // another command's flag
  EXPECT_EQ(ErrorOf({"--layers=abc", "f"}).code(), kExitUsage);
  EXPECT_EQ(ErrorOf({"--layers"}).code(), kExitUsage);  // missing value
  EXPECT_EQ(ErrorOf({"-x", "f"}).code(), kExitUsage);
  EXPECT_EQ(ErrorOf({}).code(), kExitUsage);                   // missing LENGTHS
  EXPECT_EQ(ErrorOf({"a", "b"}).code(), kExitUsage);           // one too many
  EXPECT_EQ(ErrorOf({"--nolayers", "f"}).code(), kExitUsage);  // --no only for switches
  EXPECT_EQ(ErrorOf({"--capacity=0", "f"}).code(), kExitUsage);
  EXPECT_EQ(ErrorOf({"f"}).code(), kExitOk);
}

std::string MessageOf(const std::vector<std::string>& args) { return ErrorOf(args).what(); }

TEST(ArgsTest, MessagesNameTheFlagAsWritten) {
  EXPECT_EQ(MessageOf({"--bogus-flag", "f"}),
            "unknown flag '--bogus-flag' for 'flopspack test' (see flopspack test --help)");
  EXPECT_EQ(MessageOf({"--kv-heads=x", "f"}), "--kv-heads=x: expected an integer");
  EXPECT_EQ(MessageOf({"--capacity=0", "f"}), "--capacity=0: must be a positive number of tokens");
  EXPECT_EQ(MessageOf({"--layers=-3", "f"}), "--layers=-3: must be >= 1");
  EXPECT_EQ(MessageOf({"--overflow=defer", "f"}), "--overflow=defer: expected split, error");
  EXPECT_EQ(MessageOf({"--cost=cubic", "f"}),
            "--cost=cubic: expected tokens, quadratic, transformer");
  EXPECT_EQ(MessageOf({"f", "--layers"}), "flag '--layers' needs a value");
  // Out of range: not saturated to the largest value (as strtoll would).
  EXPECT_EQ(MessageOf({"--capacity=99999999999999999999", "f"}),
            "--capacity=99999999999999999999: expected an integer of at most "
            "9223372036854775807");
  EXPECT_EQ(ErrorOf({"--capacity=9223372036854775807", "f"}).code(), kExitOk);
  EXPECT_EQ(MessageOf({"a", "b"}),
            "expected 1 argument, got 2: usage: flopspack test [flags] LENGTHS");
}

TEST(ArgsTest, HelpSkipsArgumentCountAndStatesDefaults) {
  CommandLine line(kTest);
  line.Parse({"--help"});
  EXPECT_TRUE(line.help());
  const std::string help = line.Help();
  EXPECT_NE(help.find("usage: flopspack test [flags] LENGTHS"), std::string::npos);
  EXPECT_NE(help.find("  --kv-heads=N"), std::string::npos);
  EXPECT_NE(help.find("(default: transformer)"), std::string::npos);
  EXPECT_NE(help.find("tokens per test (default: 4096)"), std::string::npos);
  EXPECT_NE(help.find("(default: split)"), std::string::npos);
  EXPECT_NE(help.find("(on by default; --nocausal turns it off)"), std::string::npos);
  EXPECT_NE(help.find("  -o, --output=FILE"), std::string::npos);
  EXPECT_EQ(help.find("--seed"), std::string::npos);  // not this command's
  EXPECT_EQ(help.find("ARGS"), std::string::npos);
}

// Every command's --help shows each option once, with a default that is the
// value the option holds when not given (CLI11 captures it from the field).
TEST(ArgsTest, EveryCommandHasHelpAndNoDuplicateOptions) {
  for (const Command& command : Commands()) {
    CommandLine line(command);
    const std::string help = line.Help();
    EXPECT_EQ(help.rfind(std::string("usage: flopspack ") + command.name, 0), 0u) << help;
    EXPECT_NE(help.find("-h, --help"), std::string::npos);
  }
}

}  // namespace
}  // namespace flopspack::cli

namespace flopspack::cli {
namespace {

TEST(FlagTermsTest, LibraryFieldsBecomeFlags) {
  EXPECT_EQ(FlagTerms("microbatches_per_rank = 0: must be >= 1"),
            "--microbatches = 0: must be >= 1");
  EXPECT_EQ(FlagTerms("max_tokens_per_microbatch = 100 < tokens_per_microbatch = 8192"),
            "--max-tokens = 100 < --capacity = 8192");
  EXPECT_EQ(FlagTerms("num_ranks x accumulation_steps = 32768"),
            "--ranks x --microbatches = 32768");
  // Only whole words: a longer identifier is left alone.
  EXPECT_EQ(FlagTerms("my_num_ranks and num_ranks2"), "my_num_ranks and num_ranks2");
}

}  // namespace
}  // namespace flopspack::cli
