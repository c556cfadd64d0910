// Flags shared by several subcommands. Each is an ordinary ABSL_FLAG defined
// in flags.cc; a subcommand accepts a flag only if it lists it (command.h).
#ifndef FLOPSPACK_CLI_FLAGS_H_
#define FLOPSPACK_CLI_FLAGS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/flags/declare.h"

// Input.
ABSL_DECLARE_FLAG(std::string, column);
// Output.
ABSL_DECLARE_FLAG(bool, json);
ABSL_DECLARE_FLAG(bool, csv);
ABSL_DECLARE_FLAG(std::string, output);
ABSL_DECLARE_FLAG(bool, progress);
// Cost model.
ABSL_DECLARE_FLAG(std::string, cost);
ABSL_DECLARE_FLAG(std::string, cost_file);
ABSL_DECLARE_FLAG(std::string, model);
ABSL_DECLARE_FLAG(int64_t, layers);
ABSL_DECLARE_FLAG(int64_t, hidden);
ABSL_DECLARE_FLAG(int64_t, heads);
ABSL_DECLARE_FLAG(int64_t, kv_heads);
ABSL_DECLARE_FLAG(int64_t, head_dim);
ABSL_DECLARE_FLAG(int64_t, ffn);
ABSL_DECLARE_FLAG(int64_t, vocab);
ABSL_DECLARE_FLAG(bool, gated);
ABSL_DECLARE_FLAG(bool, causal);
ABSL_DECLARE_FLAG(bool, recompute);
ABSL_DECLARE_FLAG(std::string, attention);
ABSL_DECLARE_FLAG(double, quadratic_coef);
// Shared by the packing, planning and simulating subcommands.
ABSL_DECLARE_FLAG(uint64_t, seed);
ABSL_DECLARE_FLAG(int64_t, capacity);
ABSL_DECLARE_FLAG(std::string, ranks);
ABSL_DECLARE_FLAG(uint64_t, microbatches);
ABSL_DECLARE_FLAG(bool, plan);
ABSL_DECLARE_FLAG(std::string, algorithm);
ABSL_DECLARE_FLAG(std::string, overflow);
ABSL_DECLARE_FLAG(bool, compare);
ABSL_DECLARE_FLAG(int64_t, max_tokens);
ABSL_DECLARE_FLAG(bool, resample);

namespace flopspack::cli {
struct Invocation;
// --overflow as a flopspack_overflow value: `fallback` when not given, and
// a usage error for a name outside `accepted`.
int32_t ParseOverflow(const Invocation& invocation, const std::string& fallback,
                      const std::vector<std::string>& accepted);
const char* OverflowName(int32_t overflow);
}  // namespace flopspack::cli

#endif  // FLOPSPACK_CLI_FLAGS_H_
