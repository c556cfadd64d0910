// --ranks: one rank count or a comma-separated list (options.h declares the
// flag with each command's default).
#ifndef FLOPSPACK_CLI_SIMULATE_RANKS_H_
#define FLOPSPACK_CLI_SIMULATE_RANKS_H_

#include <cstdint>
#include <string>
#include <vector>

namespace flopspack::cli {

// "64,1024" -> {64, 1024}; each >= 1, usage error otherwise.
std::vector<uint64_t> ParseRanks(const std::string& list);
// The same for another flag named `flag` ("--decide-at").
std::vector<uint64_t> ParseRankList(const std::string& flag, const std::string& list);
// Exactly one rank count (usage error for a list).
uint64_t SingleRankCount(const std::string& list);

}  // namespace flopspack::cli

#endif  // FLOPSPACK_CLI_SIMULATE_RANKS_H_
