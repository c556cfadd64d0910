// --ranks: one rank count or a comma-separated list, with a per-command
// default when the flag is not given.
#ifndef FLOPSPACK_CLI_SIMULATE_RANKS_H_
#define FLOPSPACK_CLI_SIMULATE_RANKS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "args.h"

namespace flopspack::cli {

// "64,1024" -> {64, 1024}; each >= 1, usage error otherwise.
std::vector<uint64_t> ParseRanks(const std::string& list);
// The same for another flag named `flag` ("--decide-at").
std::vector<uint64_t> ParseRankList(const std::string& flag, const std::string& list);
// The --ranks list, or {fallback} when it is not given.
std::vector<uint64_t> RankCounts(const Invocation& invocation, uint64_t fallback);
// Exactly one rank count (usage error for a list).
uint64_t SingleRankCount(const Invocation& invocation, uint64_t fallback);

}  // namespace flopspack::cli

#endif  // FLOPSPACK_CLI_SIMULATE_RANKS_H_
