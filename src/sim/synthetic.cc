#include "sim/synthetic.h"

#include <algorithm>
#include <cmath>

#include "util/random.h"

namespace flopspack::sim {

std::vector<int64_t> LognormalLengths(size_t n, double median, double sigma, int64_t max_length,
                                      uint64_t seed) {
  util::Rng rng(seed);
  std::vector<int64_t> lengths(n);
  for (int64_t& l : lengths) {
    const double u1 = 1 - rng.Uniform(), u2 = rng.Uniform();
    const double z = std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
    l = std::clamp<int64_t>(std::llround(median * std::exp(sigma * z)), 1, max_length);
  }
  return lengths;
}

std::vector<int64_t> WithTailMass(const std::vector<int64_t>& base, double share, int64_t lo,
                                  int64_t hi, uint64_t seed) {
  util::Rng rng(seed);
  std::vector<int64_t> out = base;
  std::vector<bool> tail(out.size(), false);
  int64_t added = 0, rest = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    if (rng.Uniform() < share) {
      const int64_t l = lo + static_cast<int64_t>(rng.Below(static_cast<uint64_t>(hi - lo + 1)));
      added += l - out[i];
      out[i] = l;
      tail[i] = true;
    } else {
      rest += out[i];
    }
  }
  if (rest <= 0) return out;
  // Scale the body so its total shrinks by what the tail added...
  const double factor = static_cast<double>(rest - added) / static_cast<double>(rest);
  int64_t total_body = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    if (tail[i]) continue;
    out[i] = std::max<int64_t>(1, std::llround(static_cast<double>(out[i]) * factor));
    total_body += out[i];
  }
  // ...then remove the rounding residue one token at a time, on random body
  // documents that stay >= 1.
  int64_t residue = total_body - (rest - added);
  while (residue != 0) {
    const size_t i = static_cast<size_t>(rng.Below(out.size()));
    if (tail[i]) continue;
    if (residue > 0 && out[i] > 1) {
      --out[i];
      --residue;
    } else if (residue < 0) {
      ++out[i];
      ++residue;
    }
  }
  return out;
}

}  // namespace flopspack::sim
