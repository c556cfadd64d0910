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

// Three generated corpora with the shapes of real training corpora, for
// the issue-15 rows of planner_quality (`sync`): token lengths drawn until
// the batch holds `fill` of the num_ranks x microbatches x cap token slots
// (the last document trimmed so the fill is exact). Documents longer than
// the cap are left whole: the caller plans them under overflow split.
// The real corpora the issue quotes are not public; the shapes follow what
// is published about their kinds:
// - code: source files (The Stack, Kocetkov et al. 2022, arXiv:2211.15533:
//   files from GitHub repositories, where near-duplicates, vendored and
//   generated files are common enough that deduplicating them is one of
//   the paper's findings; issue 13 (docs/planner.md) met a 2.7M-token
//   source file): lognormal, median 300 tokens, sigma 1.3; 3% of files from a
//   Pareto tail (alpha 1) from 4K tokens to 1,000 x the cap (generated
//   sources, data tables, minified bundles); 6% of files exactly 2,411
//   tokens (one vendored or generated file copied across repositories:
//   thousands of duplicates of one length); one 4M-token file (a
//   concatenated or generated source; at most half the step).
// - prose: web pages and books (C4, Raffel et al. 2020 and Dodge et al.
//   2021, arXiv:2104.08758: ~156B tokens in ~365M pages, ~430 per page,
//   a heavy right tail; books, e.g.
//   PG-19, Rae et al. 2020, run to ~100K tokens): lognormal, median 1,500
//   tokens (a mix of pages with longer articles and books, above C4's
//   alone), sigma 1.2, clipped at 100K (about 2% of documents exceed the
//   16K cap).
// - short: chat turns and instructions (the Alpaca / ShareGPT kind):
//   lognormal, median 250 tokens, sigma 0.7, clipped at 4,096.
enum class Corpus { kCode, kProse, kShort };

inline const char* CorpusName(Corpus c) {
  return c == Corpus::kCode ? "code" : c == Corpus::kProse ? "prose" : "short";
}

inline std::vector<int64_t> CorpusBatch(Corpus corpus, int64_t num_ranks, int64_t microbatches,
                                        int64_t cap, double fill, uint64_t seed) {
  util::Rng rng(seed);
  const int64_t target =
      static_cast<int64_t>(std::floor(fill * static_cast<double>(num_ranks * microbatches * cap)));
  auto lognormal = [&](double median, double sigma) {
    const double u1 = 1 - rng.Uniform(), u2 = rng.Uniform();
    return median * std::exp(sigma * std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2));
  };
  std::vector<int64_t> lengths;
  int64_t total = 0;
  if (corpus == Corpus::kCode) {
    lengths.push_back(std::min<int64_t>(4000000, target / 2));
    total = lengths[0];
  }
  while (total < target) {
    double x;
    switch (corpus) {
      case Corpus::kCode: {
        const double u = rng.Uniform();
        if (u < 0.03) {
          x = std::min(4096.0 / (1 - rng.Uniform()), 1000.0 * static_cast<double>(cap));
        } else if (u < 0.09) {
          x = 2411;
        } else {
          x = lognormal(300, 1.3);
        }
        break;
      }
      case Corpus::kProse:
        x = std::min(lognormal(1500, 1.2), 100000.0);
        break;
      case Corpus::kShort:
        x = std::min(lognormal(250, 0.7), 4096.0);
        break;
    }
    int64_t l = std::max<int64_t>(1, std::llround(x));
    l = std::min(l, target - total);
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
