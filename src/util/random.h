// Deterministic, portable random numbers for plans that must be identical on
// every platform and in every binding.
//
// std::shuffle and the std distributions are implementation-defined, so two
// ranks built with different standard libraries could disagree. This file
// fixes the whole chain: SplitMix64 expands a seed (Steele, Lea & Flood,
// "Fast splittable pseudorandom number generators", OOPSLA 2014), xoshiro256**
// generates (Blackman & Vigna, "Scrambled linear pseudorandom number
// generators", 2018), Lemire's multiply-shift with rejection draws a bounded
// integer without bias (Lemire, "Fast random integer generation in an
// interval", 2019), and Fisher–Yates shuffles. Changing any of this changes
// every seeded plan: the golden vectors in tests/golden/ will say so.
#ifndef FLOPSPACK_UTIL_RANDOM_H_
#define FLOPSPACK_UTIL_RANDOM_H_

#include <cstddef>
#include <cstdint>
#include <utility>

#include "absl/types/span.h"

namespace flopspack::util {

// GCC and Clang's 128-bit integer; __extension__ keeps -pedantic quiet.
__extension__ typedef unsigned __int128 Uint128;

// One SplitMix64 step: also a good 64-bit mixing function for deriving
// independent seeds, e.g. MixSeed(seed ^ MixSeed(shard_id)).
inline uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// A seed derived from a parent seed and a stream id (epoch, shard, step...).
inline uint64_t DeriveSeed(uint64_t seed, uint64_t stream) {
  uint64_t state = seed ^ (0xD1B54A32D192ED03ull * (stream + 1));
  SplitMix64(state);
  return SplitMix64(state);
}

class Rng {
 public:
  explicit Rng(uint64_t seed) {
    uint64_t state = seed;
    for (uint64_t& word : s_) word = SplitMix64(state);
  }

  // xoshiro256**.
  uint64_t Next() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, bound), bound > 0, without modulo bias.
  uint64_t Below(uint64_t bound) {
    Uint128 m = static_cast<Uint128>(Next()) * bound;
    uint64_t low = static_cast<uint64_t>(m);
    if (low < bound) {
      const uint64_t threshold = (0 - bound) % bound;
      while (low < threshold) {
        m = static_cast<Uint128>(Next()) * bound;
        low = static_cast<uint64_t>(m);
      }
    }
    return static_cast<uint64_t>(m >> 64);
  }

  // Uniform in [0, 1) with 53 random bits.
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

  // Fisher–Yates, from the back.
  template <typename T>
  void Shuffle(absl::Span<T> values) {
    for (size_t i = values.size(); i > 1; --i) {
      const size_t j = static_cast<size_t>(Below(i));
      std::swap(values[i - 1], values[j]);
    }
  }

  // The raw state, for save/restore of stateful planners.
  const uint64_t* state() const { return s_; }
  void set_state(const uint64_t state[4]) {
    for (int i = 0; i < 4; ++i) s_[i] = state[i];
  }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

}  // namespace flopspack::util

#endif  // FLOPSPACK_UTIL_RANDOM_H_
