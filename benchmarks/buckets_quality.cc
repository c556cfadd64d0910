// Plan quality of padded batching policies on one data set, in one run:
// full random shuffle, length-sorted batches, a plain bucketed shuffle with
// equal-width buckets, and flopspack's bucket sampler. Prints a Markdown
// table (the one in docs/buckets.md).
//
// Data: pipeline_lengths.h (many short prompts, a long tail, 100 .. 8,192),
// tuned so that a random shuffle lands near the 35-40%. Budget: padded tokens per batch
// (batch size x longest <= budget). Every baseline cuts batches greedily under the same budget;
// steps are num_ranks x accumulation consecutive batches, and a last incomplete step is dropped.
// Costs are padded tokens.
//
// Usage: buckets_quality [n=200000] [ranks=8] [accumulation=1] [buckets=64]
//                        [budget=49152] [seed=1]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "pack/buckets/bucket_sampler.h"
#include "pack/buckets/diversity.h"
#include "pack/primitives/plan.h"
#include "padded_baselines.h"
#include "pipeline_lengths.h"
#include "util/random.h"

namespace {

using flopspack::pack::BucketSampler;
using flopspack::pack::BucketSamplerOptions;
using flopspack::pack::LengthReference;
using flopspack::pack::Plan;
using flopspack::util::Rng;

using flopspack::bench::GreedyBatches;
using flopspack::bench::StepPlan;

void Row(const char* name, Plan& plan, const LengthReference& reference, int64_t ranks,
         int64_t accumulation, double millis) {
  auto steps = flopspack::pack::ComputeStepMetrics(plan, reference, ranks, accumulation);
  if (!steps.ok()) {
    std::fprintf(stderr, "%s: %s\n", name, std::string(steps.status().message()).c_str());
    std::exit(1);
  }
  const auto& m = plan.metrics();
  std::printf("| %-28s | %7.1f%% | %7.1f%% | %6.3f | %6.3f | %7.1f%% | %6llu | %6zu | %8.1f |\n",
              name, 100 * m.padding_efficiency, 100 * m.balance_efficiency, m.diversity_distance,
              m.diversity_distance_samples, 100 * m.padding_efficiency * m.balance_efficiency,
              static_cast<unsigned long long>(m.num_steps), plan.dropped().size(), millis);
}

double Since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

int main(int argc, char** argv) {
  auto arg = [&](int i, int64_t fallback) {
    return argc > i ? std::strtoll(argv[i], nullptr, 10) : fallback;
  };
  const size_t n = static_cast<size_t>(arg(1, 200000));
  const int64_t ranks = arg(2, 8), accumulation = arg(3, 1), buckets = arg(4, 64);
  const int64_t budget = arg(5, 49152);
  const uint64_t seed = static_cast<uint64_t>(arg(6, 1));
  const std::vector<int64_t> lengths = flopspack::bench::PipelineLengths(n, seed);
  auto reference = LengthReference::Create(lengths);
  if (!reference.ok()) return 1;
  std::printf(
      "n = %zu, ranks = %lld, accumulation = %lld, buckets = %lld, budget = %lld padded "
      "tokens, epoch 0\n\n",
      n, static_cast<long long>(ranks), static_cast<long long>(accumulation),
      static_cast<long long>(buckets), static_cast<long long>(budget));
  std::printf(
      "| policy                       | padding | balance | div(tok) | div(smp) | "
      "pad x bal | steps | dropped | plan ms |\n");
  std::printf(
      "|------------------------------|--------:|--------:|-------:|-------:|---------:|"
      "-------:|-------:|---------:|\n");

  std::vector<int64_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = static_cast<int64_t>(i);

  {  // Full random shuffle.
    auto start = std::chrono::steady_clock::now();
    std::vector<int64_t> shuffled = order;
    Rng rng(flopspack::util::DeriveSeed(seed, 0));
    rng.Shuffle(absl::MakeSpan(shuffled));
    Plan plan = StepPlan(GreedyBatches(shuffled, lengths, budget), lengths, ranks, accumulation);
    Row("random shuffle", plan, *reference, ranks, accumulation, Since(start));
  }
  {  // Sorted by length (ties by index), batches in that order.
    auto start = std::chrono::steady_clock::now();
    std::vector<int64_t> sorted = order;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [&](int64_t a, int64_t b) { return lengths[a] < lengths[b]; });
    Plan plan = StepPlan(GreedyBatches(sorted, lengths, budget), lengths, ranks, accumulation);
    Row("sorted batches", plan, *reference, ranks, accumulation, Since(start));
  }
  {  // Equal-width buckets over [min, max], shuffled inside, batch order shuffled.
    auto start = std::chrono::steady_clock::now();
    const std::vector<std::vector<int64_t>> batches =
        flopspack::bench::EqualWidthBucketBatches(lengths, buckets, budget, seed, 100);
    Plan plan = StepPlan(batches, lengths, ranks, accumulation);
    char name[64];
    std::snprintf(name, sizeof(name), "equal-width buckets (%lld)",
                  static_cast<long long>(buckets));
    Row(name, plan, *reference, ranks, accumulation, Since(start));
  }
  {  // flopspack's sampler.
    BucketSamplerOptions o;
    o.num_buckets = buckets;
    o.max_padded_tokens = budget;
    o.num_ranks = ranks;
    o.accumulation_steps = accumulation;
    o.seed = seed;
    auto start = std::chrono::steady_clock::now();
    auto sampler = BucketSampler::Create(o, nullptr, lengths);
    if (!sampler.ok()) {
      std::fprintf(stderr, "%s\n", std::string(sampler.status().message()).c_str());
      return 1;
    }
    const double create_ms = Since(start);
    start = std::chrono::steady_clock::now();
    auto plan = (*sampler)->Epoch(0);
    if (!plan.ok()) return 1;
    const double epoch_ms = Since(start);
    char name[64];
    std::snprintf(name, sizeof(name), "flopspack sampler (%lld)", static_cast<long long>(buckets));
    Row(name, *plan, *reference, ranks, accumulation, epoch_ms);
    std::printf(
        "\nflopspack: create %.1f ms (optimal bounds + batch layout), epoch %.1f ms; "
        "worst step balance %.1f%%\n",
        create_ms, epoch_ms, 100 * plan->metrics().worst_slot_balance);
  }
  return 0;
}
