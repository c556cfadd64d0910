// The subcommand flag parser: accepted spellings, per-command flag sets, and
// usage errors (exit 2) for everything else.
#include "args.h"

#include <gtest/gtest.h>

#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "flags.h"
#include "status.h"

namespace flopspack::cli {
namespace {

void NoRun(const Invocation&) {}

Command TestCommand() {
  return {"test",
          "a test command",
          "[flags] LENGTHS",
          "For the tests.",
          Concat({InputFlags(), OutputFlags(), ModelFlags()}),
          1,
          1,
          NoRun};
}

ExitCode CodeOf(const std::vector<std::string>& args) {
  try {
    ParseArgs(TestCommand(), args);
  } catch (const CliError& e) {
    return e.code();
  }
  return kExitOk;
}

TEST(ArgsTest, ParsesSpellings) {
  absl::FlagSaver saver;
  const Command command = TestCommand();
  const Invocation inv = ParseArgs(
      command, {"--kv-heads=4", "--layers", "7", "--json", "data.txt", "--nocausal", "-o", "x"});
  EXPECT_EQ(absl::GetFlag(FLAGS_kv_heads), 4);
  EXPECT_EQ(absl::GetFlag(FLAGS_layers), 7);
  EXPECT_TRUE(absl::GetFlag(FLAGS_json));
  EXPECT_FALSE(absl::GetFlag(FLAGS_causal));
  EXPECT_EQ(absl::GetFlag(FLAGS_output), "x");
  EXPECT_EQ(inv.positional, std::vector<std::string>{"data.txt"});
  EXPECT_TRUE(inv.Given("kv_heads"));
  EXPECT_TRUE(inv.Given("causal"));
  EXPECT_FALSE(inv.Given("hidden"));
}

TEST(ArgsTest, DashIsPositionalAndDoubleDashEndsFlags) {
  absl::FlagSaver saver;
  EXPECT_EQ(ParseArgs(TestCommand(), {"-"}).positional, std::vector<std::string>{"-"});
  EXPECT_EQ(ParseArgs(TestCommand(), {"--", "--json"}).positional,
            std::vector<std::string>{"--json"});
  EXPECT_FALSE(absl::GetFlag(FLAGS_json));
}

TEST(ArgsTest, BoolAcceptsExplicitValue) {
  absl::FlagSaver saver;
  ParseArgs(TestCommand(), {"--gated=true", "f"});
  EXPECT_TRUE(absl::GetFlag(FLAGS_gated));
  ParseArgs(TestCommand(), {"--gated=false", "f"});
  EXPECT_FALSE(absl::GetFlag(FLAGS_gated));
}

TEST(ArgsTest, UsageErrors) {
  absl::FlagSaver saver;
  EXPECT_EQ(CodeOf({"--bogus", "f"}), kExitUsage);
  EXPECT_EQ(CodeOf({"--seed=1", "f"}), kExitUsage);  // a real flag, not this command's
  EXPECT_EQ(CodeOf({"--layers=abc", "f"}), kExitUsage);
  EXPECT_EQ(CodeOf({"--layers"}), kExitUsage);  // missing value
  EXPECT_EQ(CodeOf({"-x", "f"}), kExitUsage);
  EXPECT_EQ(CodeOf({}), kExitUsage);                   // missing LENGTHS
  EXPECT_EQ(CodeOf({"a", "b"}), kExitUsage);           // one too many
  EXPECT_EQ(CodeOf({"--nolayers", "f"}), kExitUsage);  // --no only for booleans
  EXPECT_EQ(CodeOf({"f"}), kExitOk);
}

TEST(ArgsTest, MessagesNameTheFlag) {
  absl::FlagSaver saver;
  try {
    ParseArgs(TestCommand(), {"--bogus-flag", "f"});
    FAIL();
  } catch (const CliError& e) {
    EXPECT_NE(std::string(e.what()).find("--bogus-flag"), std::string::npos) << e.what();
  }
  try {
    ParseArgs(TestCommand(), {"--kv-heads=x", "f"});
    FAIL();
  } catch (const CliError& e) {
    EXPECT_NE(std::string(e.what()).find("--kv-heads=x"), std::string::npos) << e.what();
  }
}

TEST(ArgsTest, HelpSkipsArgumentCountAndListsFlags) {
  absl::FlagSaver saver;
  const Invocation inv = ParseArgs(TestCommand(), {"--help"});
  EXPECT_TRUE(inv.help);
  const std::string help = CommandHelp(TestCommand());
  EXPECT_NE(help.find("usage: flopspack test [flags] LENGTHS"), std::string::npos);
  EXPECT_NE(help.find("--kv-heads=VALUE"), std::string::npos);
  EXPECT_NE(help.find("(default: transformer)"), std::string::npos);
  EXPECT_EQ(help.find("--seed"), std::string::npos);
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
