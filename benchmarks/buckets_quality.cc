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
#include "pipeline_lengths.h"
#include "util/random.h"

namespace {

using flopspack::pack::BucketSampler;
using flopspack::pack::BucketSamplerOptions;
using flopspack::pack::LengthReference;
using flopspack::pack::Plan;
using flopspack::util::Rng;

// Cuts an ordered sample list into batches greedily: a batch grows while
// (size + 1) x longest stays within the budget.
std::vector<std::vector<int64_t>> GreedyBatches(const std::vector<int64_t>& order,
                                                const std::vector<int64_t>& lengths,
                                                int64_t budget) {
  std::vector<std::vector<int64_t>> batches;
  std::vector<int64_t> current;
  int64_t longest = 0;
  for (int64_t i : order) {
    const int64_t grown = std::max(longest, lengths[i]);
    if (!current.empty() && static_cast<int64_t>(current.size() + 1) * grown > budget) {
      batches.push_back(std::move(current));
      current.clear();
      longest = 0;
    }
    current.push_back(i);
    longest = std::max(longest, lengths[i]);
  }
  if (!current.empty()) batches.push_back(std::move(current));
  return batches;
}

// Batches in order -> a plan of complete steps (the last partial one dropped).
Plan StepPlan(const std::vector<std::vector<int64_t>>& batches, const std::vector<int64_t>& lengths,
              int64_t ranks, int64_t accumulation) {
  const size_t per_step = static_cast<size_t>(ranks * accumulation);
  const size_t steps = batches.size() / per_step;
  Plan plan;
  std::vector<int64_t> rank_of, slot_of, tokens;
  for (size_t g = 0; g < steps * per_step; ++g) {
    int64_t longest = 0;
    tokens.clear();
    for (int64_t i : batches[g]) {
      tokens.push_back(lengths[i]);
      longest = std::max(longest, lengths[i]);
    }
    const int64_t padded = static_cast<int64_t>(batches[g].size()) * longest;
    plan.AddGroup(batches[g], tokens, padded, static_cast<double>(padded));
    const int64_t within = static_cast<int64_t>(g % per_step);
    rank_of.push_back(within / accumulation);
    slot_of.push_back(static_cast<int64_t>(g / per_step) * accumulation + within % accumulation);
  }
  for (size_t g = steps * per_step; g < batches.size(); ++g) {
    for (int64_t i : batches[g]) plan.dropped().push_back(i);
  }
  plan.SetSlots(std::move(rank_of), std::move(slot_of));
  flopspack::pack::ComputeGroupMetrics(plan, lengths.size(), 0, 0);
  return plan;
}

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
    const int64_t lo = *std::min_element(lengths.begin(), lengths.end());
    const int64_t hi = *std::max_element(lengths.begin(), lengths.end());
    const double width = static_cast<double>(hi - lo + 1) / static_cast<double>(buckets);
    std::vector<std::vector<int64_t>> members(static_cast<size_t>(buckets));
    for (size_t i = 0; i < n; ++i) {
      const size_t b = std::min<size_t>(
          static_cast<size_t>(static_cast<double>(lengths[i] - lo) / width), members.size() - 1);
      members[b].push_back(static_cast<int64_t>(i));
    }
    std::vector<std::vector<int64_t>> batches;
    for (size_t b = 0; b < members.size(); ++b) {
      Rng rng(flopspack::util::DeriveSeed(seed, 100 + b));
      rng.Shuffle(absl::MakeSpan(members[b]));
      for (auto& batch : GreedyBatches(members[b], lengths, budget)) {
        batches.push_back(std::move(batch));
      }
    }
    Rng rng(flopspack::util::DeriveSeed(seed, 99));
    rng.Shuffle(absl::MakeSpan(batches));
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
