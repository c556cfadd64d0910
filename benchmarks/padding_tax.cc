// The padding-tax scenario (issue 18; docs/buckets.md, "The padding tax"):
// a trainer that pads every batch to its longest sample, 902,000 samples of a
// long-tailed length mix up to 8,192 tokens (pipeline_lengths.h), 49,152
// padded tokens per batch, 8 data-parallel ranks, 6 epochs. Five ways to make
// the batches:
//   random        full random shuffle each epoch, greedy batches;
//   sorted        length-sorted greedy batches, in order (the same every epoch);
//   sorted_shuf   the same sorted batches, batch order shuffled per epoch (the
//                 story's original bug: identical batch compositions every epoch);
//   equal_width   64 equal-width buckets, shuffled inside per epoch, batch
//                 order shuffled (a plain bucketed sampler);
//   flopspack     flopspack's bucket sampler (64 budget-aware buckets).
// Counters (over all 6 epochs): padding efficiency; step balance; tokens/s
// relative to sorted batching and modelled tokens/s with sorted = 32,000 (a
// step takes time proportional to its slowest rank's padded tokens); mean
// token-weighted step KS (diversity); the share of batches of epochs 1-5
// whose exact composition already appeared in an earlier epoch.
// The story's reference points: random 11.9K, sorted 32K, bucketed 25.1K tok/s.
// Run: build/benchmarks/padding_tax (about 10 s; one iteration per policy).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <unordered_set>
#include <vector>

#include "pack/buckets/bucket_sampler.h"
#include "pack/buckets/diversity.h"
#include "padded_baselines.h"
#include "pipeline_lengths.h"
#include "util/random.h"

namespace {

using flopspack::pack::BucketSampler;
using flopspack::pack::BucketSamplerOptions;
using flopspack::pack::LengthReference;
using flopspack::pack::Plan;

constexpr size_t kSamples = 902000;
constexpr int64_t kBudget = 49152, kRanks = 8, kBuckets = 64;
constexpr uint64_t kEpochs = 6, kSeed = 18;
constexpr double kSortedTokensPerSecond = 32000;

enum Policy { kRandom, kSorted, kSortedShuffled, kEqualWidth, kFlopspack };

const std::vector<int64_t>& Lengths() {
  static const std::vector<int64_t> lengths = flopspack::bench::PipelineLengths(kSamples, kSeed);
  return lengths;
}

const LengthReference& Reference() {
  static const LengthReference reference = *LengthReference::Create(Lengths());
  return reference;
}

struct Totals {
  double real = 0, padded = 0, step_time = 0, step_mean = 0, diversity = 0;
  uint64_t steps = 0, later_batches = 0, repeated = 0;
};

// Order-independent fingerprint of a batch's members.
uint64_t Fingerprint(absl::Span<const int64_t> items) {
  std::vector<int64_t> sorted(items.begin(), items.end());
  std::sort(sorted.begin(), sorted.end());
  uint64_t h = 1469598103934665603ull;
  for (int64_t i : sorted) h = (h ^ static_cast<uint64_t>(i)) * 1099511628211ull;
  return h ^ sorted.size();
}

Totals Run(Policy policy) {
  const std::vector<int64_t>& lengths = Lengths();
  std::vector<int64_t> order(lengths.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
  std::vector<std::vector<int64_t>> sorted_batches;
  if (policy == kSorted || policy == kSortedShuffled) {
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return lengths[a] < lengths[b]; });
    sorted_batches = flopspack::bench::GreedyBatches(order, lengths, kBudget);
  }
  std::unique_ptr<BucketSampler> sampler;
  if (policy == kFlopspack) {
    BucketSamplerOptions o;
    o.num_buckets = kBuckets;
    o.max_padded_tokens = kBudget;
    o.num_ranks = kRanks;
    o.seed = kSeed;
    sampler = std::move(*BucketSampler::Create(o, nullptr, lengths));
  }
  Totals t;
  std::unordered_set<uint64_t> seen;
  for (uint64_t epoch = 0; epoch < kEpochs; ++epoch) {
    const uint64_t epoch_seed = flopspack::util::DeriveSeed(kSeed, epoch);
    Plan plan;
    if (policy == kFlopspack) {
      plan = std::move(*sampler->Epoch(epoch));
    } else {
      std::vector<std::vector<int64_t>> batches;
      if (policy == kRandom) {
        flopspack::util::Rng rng(epoch_seed);
        rng.Shuffle(absl::MakeSpan(order));
        batches = flopspack::bench::GreedyBatches(order, lengths, kBudget);
      } else if (policy == kSorted) {
        batches = sorted_batches;
      } else if (policy == kSortedShuffled) {
        batches = sorted_batches;
        flopspack::util::Rng rng(epoch_seed);
        rng.Shuffle(absl::MakeSpan(batches));
      } else {
        batches =
            flopspack::bench::EqualWidthBucketBatches(lengths, kBuckets, kBudget, epoch_seed, 100);
      }
      plan = flopspack::bench::StepPlan(batches, lengths, kRanks, 1);
      (void)flopspack::pack::ComputeStepMetrics(plan, Reference(), kRanks, 1);
    }
    const auto& m = plan.metrics();
    t.real += static_cast<double>(m.real_tokens);
    t.padded += static_cast<double>(m.computed_tokens);
    t.diversity += m.diversity_distance * static_cast<double>(m.num_steps);
    t.steps += m.num_steps;
    // Step time: the slowest rank's padded tokens (A = 1: one batch each).
    for (size_t first = 0; first < plan.group_count(); first += kRanks) {
      double slowest = 0, total = 0;
      for (size_t g = first; g < first + kRanks; ++g) {
        slowest = std::max(slowest, plan.group_cost(g));
        total += plan.group_cost(g);
      }
      t.step_time += slowest;
      t.step_mean += total / kRanks;
    }
    std::vector<uint64_t> prints(plan.group_count());
    for (size_t g = 0; g < plan.group_count(); ++g) prints[g] = Fingerprint(plan.group_items(g));
    if (epoch > 0) {
      for (uint64_t p : prints) t.repeated += seen.count(p);
      t.later_batches += prints.size();
    }
    seen.insert(prints.begin(), prints.end());
  }
  return t;
}

// Real tokens per unit of step time (ranks x slowest rank's padded tokens).
double Throughput(const Totals& t) { return t.real / (t.step_time * kRanks); }

void BM_PaddingTax(benchmark::State& state) {
  const Policy policy = static_cast<Policy>(state.range(0));
  static const double sorted = Throughput(Run(kSorted));
  Totals t;
  for (auto _ : state) {
    t = Run(policy);
    benchmark::ClobberMemory();  // (DoNotOptimize on a double breaks it under GCC 12)
  }
  const double relative = Throughput(t) / sorted;
  state.counters["padding"] = t.real / t.padded;
  state.counters["balance"] = t.step_mean / t.step_time;
  state.counters["vs_sorted"] = relative;
  state.counters["tok_s_model"] = relative * kSortedTokensPerSecond;
  state.counters["step_ks"] = t.diversity / static_cast<double>(t.steps);
  state.counters["repeat_share"] =
      t.later_batches ? static_cast<double>(t.repeated) / static_cast<double>(t.later_batches) : 0;
  state.counters["steps_per_epoch"] = static_cast<double>(t.steps) / kEpochs;
}

BENCHMARK(BM_PaddingTax)
    ->ArgName("policy")
    ->Arg(kRandom)
    ->Arg(kSorted)
    ->Arg(kSortedShuffled)
    ->Arg(kEqualWidth)
    ->Arg(kFlopspack)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
