// The data set of the bucket benchmarks: a prompt/response-like length mix
// between 100 and 8,192 tokens with many short prompts and a long tail,
// drawn with the library's own RNG (the same on every platform).
#ifndef FLOPSPACK_BENCHMARKS_PIPELINE_LENGTHS_H_
#define FLOPSPACK_BENCHMARKS_PIPELINE_LENGTHS_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "util/random.h"

namespace flopspack::bench {

// Lognormal components: 50% prompts (median 500), 45% responses (median
// 1,500), 5% long documents (median 4,000); clipped to [100, 8192]. Mean
// ~1,270, 3.4% above 4,096; a greedy random shuffle under a 49,152-token
// budget pads to ~36% efficiency, the "35-40%".
inline std::vector<int64_t> PipelineLengths(size_t n, uint64_t seed) {
  util::Rng rng(seed);
  std::vector<int64_t> lengths(n);
  for (int64_t& l : lengths) {
    const double pick = rng.Uniform();
    const double median = pick < 0.50 ? 500 : pick < 0.95 ? 1500 : 4000;
    const double sigma = pick < 0.50 ? 0.5 : pick < 0.95 ? 0.5 : 0.4;
    const double u1 = 1 - rng.Uniform(), u2 = rng.Uniform();
    const double z = std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
    l = std::clamp<int64_t>(std::llround(median * std::exp(sigma * z)), 100, 8192);
  }
  return lengths;
}

}  // namespace flopspack::bench

#endif  // FLOPSPACK_BENCHMARKS_PIPELINE_LENGTHS_H_
