#include "simulate_ranks.h"

#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "flags.h"
#include "status.h"

namespace flopspack::cli {

std::vector<uint64_t> ParseRanks(const std::string& list) { return ParseRankList("--ranks", list); }

std::vector<uint64_t> ParseRankList(const std::string& flag, const std::string& list) {
  std::vector<uint64_t> out;
  for (absl::string_view part : absl::StrSplit(list, ',', absl::SkipWhitespace())) {
    uint64_t value = 0;
    if (!absl::SimpleAtoi(part, &value) || value == 0) {
      throw UsageError(absl::StrFormat("%s: '%s' is not a positive number of ranks", flag, part));
    }
    out.push_back(value);
  }
  if (out.empty()) throw UsageError(flag + ": no rank count given");
  return out;
}

std::vector<uint64_t> RankCounts(const Invocation& invocation, uint64_t fallback) {
  if (!invocation.Given("ranks")) return {fallback};
  return ParseRanks(absl::GetFlag(FLAGS_ranks));
}

uint64_t SingleRankCount(const Invocation& invocation, uint64_t fallback) {
  const std::vector<uint64_t> ranks = RankCounts(invocation, fallback);
  if (ranks.size() != 1) {
    throw UsageError(absl::StrFormat("--ranks=%s: this command takes one rank count",
                                     absl::GetFlag(FLAGS_ranks)));
  }
  return ranks[0];
}

}  // namespace flopspack::cli
