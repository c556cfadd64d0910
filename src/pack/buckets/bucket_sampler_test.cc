#include "pack/buckets/bucket_sampler.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "cost/polynomial.h"
#include "gtest/gtest.h"
#include "util/random.h"

namespace flopspack::pack {
namespace {

// Many short samples and a long tail, like a prompt/response mix.
std::vector<int64_t> MixedLengths(util::Rng& rng, size_t n, int64_t longest) {
  std::vector<int64_t> lengths(n);
  for (int64_t& l : lengths) {
    const double u = rng.Uniform();
    l = std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(longest) * u * u * u));
  }
  return lengths;
}

void ExpectSamePlan(const Plan& a, const Plan& b) {
  ASSERT_EQ(a.group_count(), b.group_count());
  for (size_t g = 0; g < a.group_count(); ++g) {
    ASSERT_EQ(std::vector<int64_t>(a.group_items(g).begin(), a.group_items(g).end()),
              std::vector<int64_t>(b.group_items(g).begin(), b.group_items(g).end()))
        << "group " << g;
    ASSERT_EQ(a.group_rank(g), b.group_rank(g));
    ASSERT_EQ(a.group_slot(g), b.group_slot(g));
    ASSERT_EQ(a.group_cost(g), b.group_cost(g));
  }
  EXPECT_EQ(a.dropped(), b.dropped());
}

// Every invariant a sampler epoch must satisfy, checked from the plan alone.
void CheckEpoch(const BucketSampler& sampler, const BucketSamplerOptions& o,
                const std::vector<int64_t>& lengths, const cost::CostModel* model,
                const Plan& plan) {
  const size_t n = lengths.size();
  const int64_t per_step = o.num_ranks * o.accumulation_steps;
  const int64_t steps = sampler.steps_per_epoch();
  ASSERT_EQ(plan.group_count(), static_cast<size_t>(steps * per_step));
  std::vector<int> seen(n, 0);
  absl::Span<const int64_t> bounds = sampler.upper_bounds();
  int64_t real = 0, computed = 0;
  for (size_t g = 0; g < plan.group_count(); ++g) {
    absl::Span<const int64_t> items = plan.group_items(g);
    ASSERT_FALSE(items.empty()) << "group " << g;
    int64_t longest = 0, tokens = 0;
    size_t bucket = bounds.size();
    for (size_t k = 0; k < items.size(); ++k) {
      const int64_t i = items[k];
      ASSERT_GE(i, 0);
      ASSERT_LT(static_cast<size_t>(i), n);
      ++seen[i];
      EXPECT_EQ(plan.group_tokens(g)[k], lengths[i]);
      longest = std::max(longest, lengths[i]);
      tokens += lengths[i];
      // One bucket per batch.
      const size_t b = std::lower_bound(bounds.begin(), bounds.end(), lengths[i]) - bounds.begin();
      if (k == 0) bucket = b;
      EXPECT_EQ(b, bucket) << "group " << g << " mixes buckets";
    }
    const int64_t padded = static_cast<int64_t>(items.size()) * longest;
    EXPECT_EQ(plan.group_computed_tokens(g), padded);
    if (o.budget == BucketBudget::kPaddedTokens) {
      EXPECT_LE(padded, o.max_padded_tokens) << "group " << g << " breaks the budget";
    }
    if (model != nullptr) {
      std::vector<int64_t> member_lengths;
      for (int64_t i : items) member_lengths.push_back(lengths[i]);
      const double cost = *model->PaddedBatchCost(member_lengths);
      EXPECT_DOUBLE_EQ(plan.group_cost(g), cost);
      if (o.budget == BucketBudget::kCost) {
        EXPECT_LE(cost, o.max_batch_cost);
      }
    } else {
      EXPECT_DOUBLE_EQ(plan.group_cost(g), static_cast<double>(padded));
    }
    // Layout: group (s * R + r) * A + a has rank r and slot s * A + a.
    const int64_t step = static_cast<int64_t>(g) / per_step;
    const int64_t within = static_cast<int64_t>(g) % per_step;
    EXPECT_EQ(plan.group_rank(g), within / o.accumulation_steps);
    EXPECT_EQ(plan.group_slot(g), step * o.accumulation_steps + within % o.accumulation_steps);
    real += tokens;
    computed += padded;
  }
  // Exactly once, or listed as dropped (only with drop-last).
  for (int64_t i : plan.dropped()) {
    ASSERT_LT(static_cast<size_t>(i), n);
    ++seen[i];
  }
  for (size_t i = 0; i < n; ++i) EXPECT_EQ(seen[i], 1) << "sample " << i;
  EXPECT_TRUE(std::is_sorted(plan.dropped().begin(), plan.dropped().end()));
  if (!o.drop_last) {
    EXPECT_TRUE(plan.dropped().empty());
  }
  const PlanMetrics& m = plan.metrics();
  EXPECT_EQ(m.dropped_items, plan.dropped().size());
  int64_t dropped_tokens = 0;
  for (int64_t i : plan.dropped()) dropped_tokens += lengths[i];
  EXPECT_EQ(m.dropped_tokens, dropped_tokens);
  EXPECT_EQ(m.num_steps, static_cast<uint64_t>(steps));
  EXPECT_EQ(m.real_tokens, real);
  EXPECT_EQ(m.computed_tokens, computed);
  EXPECT_DOUBLE_EQ(m.padding_efficiency, static_cast<double>(real) / static_cast<double>(computed));
  // Step balance recomputed by hand: sum of per-step mean / sum of max.
  double sum_mean = 0, sum_max = 0;
  for (int64_t s = 0; s < steps; ++s) {
    std::vector<double> rank_cost(o.num_ranks, 0.0);
    for (int64_t k = 0; k < per_step; ++k) {
      const size_t g = static_cast<size_t>(s * per_step + k);
      rank_cost[plan.group_rank(g)] += plan.group_cost(g);
    }
    double total = 0;
    for (double c : rank_cost) total += c;
    sum_mean += total / static_cast<double>(o.num_ranks);
    sum_max += *std::max_element(rank_cost.begin(), rank_cost.end());
  }
  EXPECT_NEAR(m.balance_efficiency, sum_mean / sum_max, 1e-12);
  // Diversity recomputed step by step.
  std::vector<uint32_t> scratch;
  double token_sum = 0, sample_sum = 0;
  for (int64_t s = 0; s < steps; ++s) {
    std::vector<int64_t> items;
    for (int64_t k = 0; k < per_step; ++k) {
      absl::Span<const int64_t> g = plan.group_items(static_cast<size_t>(s * per_step + k));
      items.insert(items.end(), g.begin(), g.end());
    }
    const DiversityDistance d = sampler.reference().Distance(items, scratch);
    token_sum += d.tokens;
    sample_sum += d.samples;
  }
  EXPECT_NEAR(m.diversity_distance, token_sum / static_cast<double>(steps), 1e-9);
  EXPECT_NEAR(m.diversity_distance_samples, sample_sum / static_cast<double>(steps), 1e-9);
}

BucketSamplerOptions RandomOptions(util::Rng& rng, int64_t longest) {
  BucketSamplerOptions o;
  o.num_buckets = 1 + static_cast<int64_t>(rng.Below(12));
  o.max_padded_tokens =
      longest + static_cast<int64_t>(rng.Below(static_cast<uint64_t>(longest) * 6));
  o.num_ranks = 1 + static_cast<int64_t>(rng.Below(4));
  o.accumulation_steps = 1 + static_cast<int64_t>(rng.Below(3));
  o.drop_last = rng.Below(2) == 1;
  o.seed = rng.Next();
  return o;
}

TEST(BucketSamplerTest, InvariantsOverRandomCases) {
  util::Rng rng(31);
  int checked = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int64_t longest = 2 + static_cast<int64_t>(rng.Below(300));
    const std::vector<int64_t> lengths = MixedLengths(rng, 1 + rng.Below(300), longest);
    const BucketSamplerOptions o = RandomOptions(rng, longest);
    absl::StatusOr<std::unique_ptr<BucketSampler>> sampler =
        BucketSampler::Create(o, nullptr, lengths);
    if (!sampler.ok()) {
      // Only "too few samples/batches for one step" is acceptable here.
      EXPECT_EQ(sampler.status().code(), absl::StatusCode::kFailedPrecondition) << sampler.status();
      continue;
    }
    for (uint64_t epoch : {0, 1, 7}) {
      absl::StatusOr<Plan> plan = (*sampler)->Epoch(epoch);
      ASSERT_TRUE(plan.ok()) << plan.status();
      CheckEpoch(**sampler, o, lengths, nullptr, *plan);
      if (HasFailure()) FAIL() << "trial " << trial << " epoch " << epoch;
    }
    ++checked;
  }
  EXPECT_GT(checked, 300);
}

TEST(BucketSamplerTest, CostBudgetAndModelCosts) {
  util::Rng rng(32);
  std::shared_ptr<const cost::CostModel> model = *cost::PolynomialModel::Create({5, 1, 2, 0.01});
  for (int trial = 0; trial < 150; ++trial) {
    const std::vector<int64_t> lengths = MixedLengths(rng, 50 + rng.Below(300), 500);
    BucketSamplerOptions o = RandomOptions(rng, 500);
    const bool cost_budget = rng.Below(2) == 1;
    if (cost_budget) {
      o.budget = BucketBudget::kCost;
      const int64_t longest = *std::max_element(lengths.begin(), lengths.end());
      const double one = *model->SequenceCost({&longest, 1});
      o.max_batch_cost = one * (1 + 10 * rng.Uniform());
    }
    absl::StatusOr<std::unique_ptr<BucketSampler>> sampler =
        BucketSampler::Create(o, model, lengths);
    if (!sampler.ok()) {
      EXPECT_EQ(sampler.status().code(), absl::StatusCode::kFailedPrecondition);
      continue;
    }
    absl::StatusOr<Plan> plan = (*sampler)->Epoch(3);
    ASSERT_TRUE(plan.ok()) << plan.status();
    CheckEpoch(**sampler, o, lengths, model.get(), *plan);
    if (HasFailure()) FAIL() << "trial " << trial;
  }
}

TEST(BucketSamplerTest, DeterministicAndReshuffledPerEpoch) {
  util::Rng rng(33);
  const std::vector<int64_t> lengths = MixedLengths(rng, 5000, 4000);
  BucketSamplerOptions o;
  o.num_buckets = 8;
  o.max_padded_tokens = 16000;
  o.num_ranks = 4;
  o.accumulation_steps = 2;
  o.seed = 99;
  auto a = BucketSampler::Create(o, nullptr, lengths);
  auto b = BucketSampler::Create(o, nullptr, lengths);
  ASSERT_TRUE(a.ok() && b.ok());
  const Plan a0 = *(*a)->Epoch(0), b0 = *(*b)->Epoch(0);
  ExpectSamePlan(a0, b0);
  EXPECT_EQ(a0.metrics().diversity_distance, b0.metrics().diversity_distance);
  // Asking for another epoch in between changes nothing (the cache is keyed).
  (void)*(*a)->Epoch(5);
  ExpectSamePlan(*(*a)->Epoch(0), b0);
  // A new epoch changes the company of samples; the step count stays.
  const Plan a1 = *(*a)->Epoch(1);
  ASSERT_EQ(a1.group_count(), a0.group_count());
  std::vector<int64_t> batch_of(lengths.size());
  for (size_t g = 0; g < a0.group_count(); ++g) {
    for (int64_t i : a0.group_items(g)) batch_of[i] = static_cast<int64_t>(g);
  }
  size_t same_company = 0, pairs = 0;
  for (size_t g = 0; g < a1.group_count(); ++g) {
    absl::Span<const int64_t> items = a1.group_items(g);
    for (size_t k = 1; k < items.size(); ++k) {
      ++pairs;
      if (batch_of[items[k]] == batch_of[items[0]]) ++same_company;
    }
  }
  EXPECT_LT(static_cast<double>(same_company), 0.2 * static_cast<double>(pairs));
  // Another seed gives another epoch 0.
  o.seed = 100;
  auto c = BucketSampler::Create(o, nullptr, lengths);
  ASSERT_TRUE(c.ok());
  const Plan c0 = *(*c)->Epoch(0);
  bool differs = false;
  for (size_t g = 0; g < c0.group_count() && !differs; ++g) {
    differs = !std::equal(c0.group_items(g).begin(), c0.group_items(g).end(),
                          a0.group_items(g).begin(), a0.group_items(g).end());
  }
  EXPECT_TRUE(differs);
}

TEST(BucketSamplerTest, ResumeAtAnyStepEqualsUninterruptedRun) {
  util::Rng rng(34);
  const std::vector<int64_t> lengths = MixedLengths(rng, 3000, 2000);
  BucketSamplerOptions o;
  o.num_buckets = 6;
  o.max_padded_tokens = 6000;
  o.num_ranks = 3;
  o.accumulation_steps = 2;
  o.drop_last = true;
  o.seed = 7;
  auto full = BucketSampler::Create(o, nullptr, lengths);
  ASSERT_TRUE(full.ok());
  const int64_t per_step = 6;
  for (uint64_t epoch : {0, 4}) {
    const Plan whole = *(*full)->Epoch(epoch);
    for (int64_t s = 0; s < (*full)->steps_per_epoch(); s += 3) {
      // A fresh sampler, as after a restart, jumps straight to (epoch, s).
      auto resumed = BucketSampler::Create(o, nullptr, lengths);
      ASSERT_TRUE(resumed.ok());
      for (int64_t t = s; t < std::min<int64_t>(s + 3, (*resumed)->steps_per_epoch()); ++t) {
        absl::StatusOr<Plan> step = (*resumed)->Step(epoch, static_cast<uint64_t>(t));
        ASSERT_TRUE(step.ok()) << step.status();
        ASSERT_EQ(step->group_count(), static_cast<size_t>(per_step));
        for (int64_t k = 0; k < per_step; ++k) {
          const size_t g = static_cast<size_t>(t * per_step + k);
          EXPECT_TRUE(std::equal(step->group_items(k).begin(), step->group_items(k).end(),
                                 whole.group_items(g).begin(), whole.group_items(g).end()));
          EXPECT_EQ(step->group_rank(k), whole.group_rank(g));
          EXPECT_EQ(step->group_slot(k), whole.group_slot(g));
        }
        EXPECT_EQ(step->metrics().num_steps, 1u);
      }
    }
  }
  EXPECT_EQ((*full)->Step(0, static_cast<uint64_t>((*full)->steps_per_epoch())).status().code(),
            absl::StatusCode::kOutOfRange);
}

TEST(BucketSamplerTest, StepsDrawFromBucketsInProportion) {
  // Pad-last keeps every batch: bucket b (a contiguous run of m_b batches in
  // length order) gives every step floor or ceil of m_b / S batches.
  util::Rng rng(35);
  const std::vector<int64_t> lengths = MixedLengths(rng, 20000, 8000);
  BucketSamplerOptions o;
  o.num_buckets = 16;
  o.max_padded_tokens = 24000;
  o.num_ranks = 8;
  o.accumulation_steps = 2;
  auto sampler = BucketSampler::Create(o, nullptr, lengths);
  ASSERT_TRUE(sampler.ok());
  const Plan plan = *(*sampler)->Epoch(2);
  absl::Span<const int64_t> bounds = (*sampler)->upper_bounds();
  const int64_t steps = (*sampler)->steps_per_epoch();
  const int64_t per_step = 16;
  std::vector<int64_t> batches_in_bucket(bounds.size(), 0);
  std::vector<std::vector<int64_t>> per_step_count(steps, std::vector<int64_t>(bounds.size(), 0));
  for (size_t g = 0; g < plan.group_count(); ++g) {
    const size_t b =
        std::lower_bound(bounds.begin(), bounds.end(), lengths[plan.group_items(g)[0]]) -
        bounds.begin();
    ++batches_in_bucket[b];
    ++per_step_count[g / per_step][b];
  }
  for (int64_t s = 0; s < steps; ++s) {
    for (size_t b = 0; b < bounds.size(); ++b) {
      const double expected =
          static_cast<double>(batches_in_bucket[b]) / static_cast<double>(steps);
      EXPECT_LE(std::fabs(static_cast<double>(per_step_count[s][b]) - expected), 1.0)
          << "step " << s << " bucket " << b;
    }
  }
  // With 16 strata per step the mix is close to the data's; sorted batches
  // would be near 0.75 on average.
  EXPECT_LT(plan.metrics().diversity_distance, 0.1);
  EXPECT_GT(plan.metrics().padding_efficiency, 0.9);
}

TEST(BucketSamplerTest, ExplicitBoundsAndEmptyBuckets) {
  const std::vector<int64_t> lengths = {3, 4, 9, 10, 10, 2, 50, 48};
  BucketSamplerOptions o;
  o.upper_bounds = {5, 5, 10, 20, 64};  // bucket 1 and 3 stay empty
  o.num_buckets = 0;                    // ignored with explicit bounds
  o.max_padded_tokens = 100;
  auto sampler = BucketSampler::Create(o, nullptr, lengths);
  ASSERT_TRUE(sampler.ok()) << sampler.status();
  const Plan plan = *(*sampler)->Epoch(0);
  CheckEpoch(**sampler, o, lengths, nullptr, plan);
  // Buckets {2,3,4}, {9,10,10}, {48,50}: caps 25, 10, 2 -> 1 + 1 + 1 batches.
  EXPECT_EQ(plan.group_count(), 3u);
}

TEST(BucketSamplerTest, BadInput) {
  const std::vector<int64_t> lengths = {10, 20, 30, 40, 50, 60, 70, 80};
  BucketSamplerOptions good;
  good.max_padded_tokens = 200;
  ASSERT_TRUE(BucketSampler::Create(good, nullptr, lengths).ok());
  auto expect = [&](BucketSamplerOptions o, std::shared_ptr<const cost::CostModel> model,
                    std::vector<int64_t> data, absl::StatusCode code, const char* fragment) {
    absl::StatusOr<std::unique_ptr<BucketSampler>> s = BucketSampler::Create(o, model, data);
    EXPECT_EQ(s.status().code(), code) << s.status();
    EXPECT_NE(s.status().message().find(fragment), std::string::npos) << s.status();
  };
  BucketSamplerOptions o = good;
  o.num_buckets = 0;
  expect(o, nullptr, lengths, absl::StatusCode::kInvalidArgument, "num_buckets = 0");
  o = good;
  o.max_padded_tokens = 0;
  expect(o, nullptr, lengths, absl::StatusCode::kInvalidArgument, "max_padded_tokens = 0");
  o = good;
  o.max_padded_tokens = 75;
  expect(o, nullptr, lengths, absl::StatusCode::kFailedPrecondition, "lengths[7] = 80");
  o = good;
  o.num_ranks = 0;
  expect(o, nullptr, lengths, absl::StatusCode::kInvalidArgument, "num_ranks = 0");
  o = good;
  o.accumulation_steps = 0;
  expect(o, nullptr, lengths, absl::StatusCode::kInvalidArgument, "accumulation_steps = 0");
  o = good;
  o.budget = BucketBudget::kCost;
  o.max_batch_cost = 10;
  expect(o, nullptr, lengths, absl::StatusCode::kInvalidArgument, "model is NULL");
  std::shared_ptr<const cost::CostModel> model = *cost::PolynomialModel::Create({0, 0, 1, 0});
  o.max_batch_cost = -1;
  expect(o, model, lengths, absl::StatusCode::kInvalidArgument, "max_batch_cost = -1");
  o.max_batch_cost = 50;
  expect(o, model, lengths, absl::StatusCode::kFailedPrecondition, "max_batch_cost = 50");
  o = good;
  o.num_ranks = 9;  // 8 samples cannot fill 9 batches without repeats
  expect(o, nullptr, lengths, absl::StatusCode::kFailedPrecondition, "pad_last");
  o.drop_last = true;
  expect(o, nullptr, lengths, absl::StatusCode::kFailedPrecondition, "drop_last");
  o = good;
  o.upper_bounds = {40, 70};
  expect(o, nullptr, lengths, absl::StatusCode::kInvalidArgument, "lengths[7] = 80");
  o.upper_bounds = {40, 30, 90};
  expect(o, nullptr, lengths, absl::StatusCode::kInvalidArgument, "upper_bounds[1] = 30");
  expect(good, nullptr, {}, absl::StatusCode::kInvalidArgument, "lengths is empty");
  expect(good, nullptr, {5, 0}, absl::StatusCode::kInvalidArgument, "lengths[1] = 0");
}

}  // namespace
}  // namespace flopspack::pack
