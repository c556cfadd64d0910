#include "simulate_ranks.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
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

uint64_t SingleRankCount(const std::string& list) {
  const std::vector<uint64_t> ranks = ParseRanks(list);
  if (ranks.size() != 1) {
    throw UsageError(absl::StrFormat("--ranks=%s: this command takes one rank count", list));
  }
  return ranks[0];
}

}  // namespace flopspack::cli
