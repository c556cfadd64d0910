// The long-tail dataset of issue 4, shared by the planner benchmarks:
// lognormal document lengths (median 1,500 tokens, sigma 1) clipped to
// [1, cap], plus about 1.2% of documents drawn uniformly from [12K, 16K],
// drawn until the batch holds `fill` of the num_ranks x microbatches x cap
// token slots (the last document trimmed so the fill is exact). The cost
// model is a 7B-class causal transformer (Llama-2-7B's shape: 32 layers,
// hidden 4096, 32 heads, SwiGLU FFN 11008, vocabulary 32000).
#ifndef FLOPSPACK_BENCHMARKS_PLANNER_DATA_H_
#define FLOPSPACK_BENCHMARKS_PLANNER_DATA_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "cost/transformer.h"
#include "util/random.h"

namespace flopspack::bench {

inline std::vector<int64_t> LongTailBatch(int64_t num_ranks, int64_t microbatches, int64_t cap,
                                          double fill, uint64_t seed) {
  util::Rng rng(seed);
  const int64_t target =
      static_cast<int64_t>(std::floor(fill * static_cast<double>(num_ranks * microbatches * cap)));
  std::vector<int64_t> lengths;
  int64_t total = 0;
  while (total < target) {
    int64_t l;
    if (rng.Uniform() < 0.012) {
      l = 12288 + static_cast<int64_t>(rng.Below(16384 - 12288 + 1));
    } else {
      // Box–Muller from the library's own generator.
      const double u1 = 1 - rng.Uniform(), u2 = rng.Uniform();
      const double z = std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
      l = std::llround(1500 * std::exp(z));
    }
    l = std::min<int64_t>(cap, std::max<int64_t>(1, l));
    l = std::min(l, target - total);
    lengths.push_back(l);
    total += l;
  }
  return lengths;
}

// The heavy-tail step of issue 13: exactly num_ranks x microbatches x
// capacity tokens (the batch a pipeline sized by the sequence length
// `capacity` draws), the planner's cap being capacity x slack. Lengths are
// lognormal (median `median` tokens, sigma 1) with 2% drawn from a Pareto
// tail (alpha 1) from `capacity` up to 1,000 x the cap, plus one document of
// a million tokens (at most half the step); the last document is trimmed so
// the step is exact.
inline std::vector<int64_t> HeavyTailStep(int64_t num_ranks, int64_t microbatches, int64_t capacity,
                                          int64_t cap, double median, uint64_t seed) {
  util::Rng rng(seed);
  const int64_t target = num_ranks * microbatches * capacity;
  std::vector<int64_t> lengths{std::min<int64_t>(1000000, target / 2)};
  int64_t total = lengths[0];
  while (total < target) {
    double x;
    if (rng.Uniform() < 0.02) {
      x = static_cast<double>(capacity) / (1 - rng.Uniform());
    } else {
      const double u1 = 1 - rng.Uniform(), u2 = rng.Uniform();
      x = median * std::exp(std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2));
    }
    int64_t l = static_cast<int64_t>(std::min(x, 1000.0 * static_cast<double>(cap)));
    l = std::min(std::max<int64_t>(1, l), target - total);
    lengths.push_back(l);
    total += l;
  }
  return lengths;
}

inline std::unique_ptr<cost::TransformerModel> SevenB() {
  cost::TransformerShape s;
  s.num_layers = 32;
  s.hidden_size = 4096;
  s.num_attention_heads = 32;
  s.num_key_value_heads = 32;
  s.intermediate_size = 11008;
  s.vocab_size = 32000;
  s.gated_mlp = true;
  return *cost::TransformerModel::Create(s);
}

}  // namespace flopspack::bench

#endif  // FLOPSPACK_BENCHMARKS_PLANNER_DATA_H_
