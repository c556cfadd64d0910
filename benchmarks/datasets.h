// Synthetic length distributions shared by the benchmarks, drawn with the
// library's own RNG so every run and machine sees the same data.
#ifndef FLOPSPACK_BENCHMARKS_DATASETS_H_
#define FLOPSPACK_BENCHMARKS_DATASETS_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "util/random.h"

namespace flopspack::benchmarks {

// Lognormal lengths: median `median`, log-space sigma `sigma`, clipped to
// [1, max_length]. Box–Muller on util::Rng.
inline std::vector<int64_t> LognormalLengths(size_t n, double median, double sigma,
                                             int64_t max_length, uint64_t seed) {
  util::Rng rng(seed);
  std::vector<int64_t> lengths(n);
  for (int64_t& l : lengths) {
    const double u1 = 1 - rng.Uniform(), u2 = rng.Uniform();
    const double z = std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
    l = std::min<int64_t>(max_length,
                          std::max<int64_t>(1, std::llround(median * std::exp(sigma * z))));
  }
  return lengths;
}

// The issues' standard input: 1M documents, median 1,500, sigma 1, <= 16,384.
inline const std::vector<int64_t>& StandardLognormal() {
  static const std::vector<int64_t> lengths = LognormalLengths(1'000'000, 1500, 1.0, 16384, 1);
  return lengths;
}

}  // namespace flopspack::benchmarks

#endif  // FLOPSPACK_BENCHMARKS_DATASETS_H_
