// Shared by the step-planner C API tests: options with the library's
// defaults and deterministic document lengths.
#ifndef FLOPSPACK_TESTS_CAPI_STEP_TEST_UTIL_H_
#define FLOPSPACK_TESTS_CAPI_STEP_TEST_UTIL_H_

#include <cstdint>
#include <vector>

#include "flopspack/flopspack.h"

namespace flopspack_test {

inline flopspack_step_options StepOptions(uint32_t ranks, uint32_t microbatches, int64_t cap) {
  flopspack_step_options o;
  flopspack_step_options_init(&o);
  o.num_ranks = ranks;
  o.microbatches_per_rank = microbatches;
  o.max_tokens_per_microbatch = cap;
  return o;
}

// n lengths in [1, max_length] from a 64-bit LCG seeded with `seed`.
inline std::vector<int64_t> SeededLengths(size_t n, uint64_t seed, int64_t max_length) {
  std::vector<int64_t> lengths(n);
  uint64_t x = seed;
  for (int64_t& l : lengths) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    l = 1 + static_cast<int64_t>((x >> 33) % static_cast<uint64_t>(max_length));
  }
  return lengths;
}

}  // namespace flopspack_test

#endif  // FLOPSPACK_TESTS_CAPI_STEP_TEST_UTIL_H_
