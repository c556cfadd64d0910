// Synthetic datasets for the emulator's tests, benchmarks and the
// documented scenario: lognormal document lengths, and the same dataset
// with a small extra mass of long documents at exactly the same mean.
//
// What: lengths round(median * exp(sigma * z)) clipped to [1, max_length],
// z standard normal by Box–Muller from util::Rng. WithTailMass replaces a
// share of the documents by lengths uniform in [lo, hi] and scales the
// other documents down so the total (hence the mean, n being unchanged) is
// exactly the original. Complexity O(n). Deterministic for a seed.
#ifndef FLOPSPACK_SIM_SYNTHETIC_H_
#define FLOPSPACK_SIM_SYNTHETIC_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace flopspack::sim {

std::vector<int64_t> LognormalLengths(size_t n, double median, double sigma, int64_t max_length,
                                      uint64_t seed);

// share in [0, 1); 1 <= lo <= hi. The result has the same number of
// documents and the same total tokens as base.
std::vector<int64_t> WithTailMass(const std::vector<int64_t>& base, double share, int64_t lo,
                                  int64_t hi, uint64_t seed);

}  // namespace flopspack::sim

#endif  // FLOPSPACK_SIM_SYNTHETIC_H_
