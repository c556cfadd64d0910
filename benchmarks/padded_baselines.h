// The padded-batching baselines the bucket benchmarks compare flopspack's
// sampler with (buckets_quality, padding_tax): greedy batches under a
// padded-token budget over a given order, and a plan of complete steps of
// consecutive batches. One copy, so both benchmarks measure the same thing.
#ifndef FLOPSPACK_BENCHMARKS_PADDED_BASELINES_H_
#define FLOPSPACK_BENCHMARKS_PADDED_BASELINES_H_

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "pack/primitives/plan.h"
#include "util/random.h"

namespace flopspack::bench {

// Cuts an ordered sample list into batches greedily: a batch grows while
// (size + 1) x longest stays within the budget.
inline std::vector<std::vector<int64_t>> GreedyBatches(const std::vector<int64_t>& order,
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

// Equal-width buckets over [min, max], each shuffled (stream `salt` + b of
// seed) and cut greedily; the batch list is then shuffled (stream salt - 1).
inline std::vector<std::vector<int64_t>> EqualWidthBucketBatches(
    const std::vector<int64_t>& lengths, int64_t buckets, int64_t budget, uint64_t seed,
    uint64_t salt) {
  const int64_t lo = *std::min_element(lengths.begin(), lengths.end());
  const int64_t hi = *std::max_element(lengths.begin(), lengths.end());
  const double width = static_cast<double>(hi - lo + 1) / static_cast<double>(buckets);
  std::vector<std::vector<int64_t>> members(static_cast<size_t>(buckets));
  for (size_t i = 0; i < lengths.size(); ++i) {
    const size_t b = std::min<size_t>(
        static_cast<size_t>(static_cast<double>(lengths[i] - lo) / width), members.size() - 1);
    members[b].push_back(static_cast<int64_t>(i));
  }
  std::vector<std::vector<int64_t>> batches;
  for (size_t b = 0; b < members.size(); ++b) {
    util::Rng rng(util::DeriveSeed(seed, salt + b));
    rng.Shuffle(absl::MakeSpan(members[b]));
    for (auto& batch : GreedyBatches(members[b], lengths, budget)) {
      batches.push_back(std::move(batch));
    }
  }
  util::Rng rng(util::DeriveSeed(seed, salt - 1));
  rng.Shuffle(absl::MakeSpan(batches));
  return batches;
}

// Batches in order -> a plan of complete steps (the last partial one
// dropped); costs are padded tokens.
inline pack::Plan StepPlan(const std::vector<std::vector<int64_t>>& batches,
                           const std::vector<int64_t>& lengths, int64_t ranks,
                           int64_t accumulation) {
  const size_t per_step = static_cast<size_t>(ranks * accumulation);
  const size_t steps = batches.size() / per_step;
  pack::Plan plan;
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
  pack::ComputeGroupMetrics(plan, lengths.size(), 0, 0);
  return plan;
}

}  // namespace flopspack::bench

#endif  // FLOPSPACK_BENCHMARKS_PADDED_BASELINES_H_
