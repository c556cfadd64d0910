#include "sim/simulator.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

#include "cost/polynomial.h"
#include "gtest/gtest.h"
#include "pack/buckets/bucket_sampler.h"
#include "sim/synthetic.h"

namespace flopspack::sim {
namespace {

std::unique_ptr<cost::PolynomialModel> Quadratic() {
  return *cost::PolynomialModel::Create({50, 0, 1, 0.002});
}

// An independent, deliberately simple emulation of random dealing: draw
// documents iid (with replacement, std::mt19937_64), concatenate, cut into
// cap-token sequences, shuffle the step's sequences (consecutive sequences
// share long documents, so dealing matters) and give each rank M of them,
// costing with the polynomial directly. Returns per-step (mean, max).
std::vector<std::pair<double, double>> SimpleRandomDealing(const std::vector<int64_t>& lengths,
                                                           uint64_t ranks, uint64_t per_rank,
                                                           int64_t cap, int steps, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_int_distribution<size_t> pick(0, lengths.size() - 1);
  std::vector<std::pair<double, double>> out;
  int64_t carry = 0;
  std::vector<double> sequences(ranks * per_rank);
  for (int s = 0; s < steps; ++s) {
    for (double& c : sequences) {
      int64_t room = cap;
      c = 50;
      while (room > 0) {
        if (carry == 0) carry = lengths[pick(gen)];
        const int64_t piece = std::min(carry, room);
        c += piece + 0.002 * piece * piece;
        carry -= piece;
        room -= piece;
      }
    }
    std::shuffle(sequences.begin(), sequences.end(), gen);
    double total = 0, slowest = 0;
    for (uint64_t r = 0; r < ranks; ++r) {
      double rank_cost = 0;
      for (uint64_t m = 0; m < per_rank; ++m) rank_cost += sequences[r * per_rank + m];
      total += rank_cost;
      slowest = std::max(slowest, rank_cost);
    }
    out.emplace_back(total / ranks, slowest);
  }
  return out;
}

void MeanAndError(const std::vector<double>& x, double& mean, double& se) {
  mean = 0;
  for (double v : x) mean += v;
  mean /= x.size();
  double ss = 0;
  for (double v : x) ss += (v - mean) * (v - mean);
  se = std::sqrt(ss / (x.size() - 1) / x.size());
}

TEST(SimulatorTest, RandomDealingMatchesAnIndependentSimulation) {
  const auto lengths = LognormalLengths(50000, 600, 1.0, 20000, 3);
  auto model = Quadratic();
  for (auto [ranks, per_rank, cap] :
       {std::tuple<uint64_t, uint64_t, int64_t>{64, 1, 4096}, {256, 2, 4096}, {512, 1, 16384}}) {
    SimOptions o;
    o.num_ranks = ranks;
    o.microbatches_per_rank = per_rank;
    o.tokens_per_microbatch = cap;
    o.num_steps = 300;
    o.record_steps = true;
    auto r = Simulate(lengths, *model, o);
    ASSERT_TRUE(r.ok()) << r.status();
    std::vector<double> ours, theirs, our_times, their_times;
    double our_mean = 0, our_time = 0, their_mean = 0, their_time = 0;
    for (const StepRecord& s : r->steps) {
      ours.push_back(s.balance_efficiency);
      our_times.push_back(s.step_time);
      our_mean += s.mean_rank_cost;
      our_time += s.step_time;
    }
    for (auto [mean, slowest] : SimpleRandomDealing(lengths, ranks, per_rank, cap, 300, 99)) {
      theirs.push_back(mean / slowest);
      their_times.push_back(slowest);
      their_mean += mean;
      their_time += slowest;
    }
    double m1, e1, m2, e2;
    MeanAndError(ours, m1, e1);
    MeanAndError(theirs, m2, e2);
    EXPECT_NEAR(m1, r->mean_balance_efficiency, 1e-12);
    EXPECT_NEAR(m1, m2, 4 * std::sqrt(e1 * e1 + e2 * e2)) << ranks << "x" << per_rank;
    double t1, s1, t2, s2;
    MeanAndError(our_times, t1, s1);
    MeanAndError(their_times, t2, s2);
    EXPECT_NEAR(t1, t2, 4 * std::sqrt(s1 * s1 + s2 * s2)) << ranks << "x" << per_rank;
    // Relative throughput is the ratio of sums; the order-statistics
    // prediction estimates it (mean rank cost / E[max]), within the step
    // time's sampling error.
    EXPECT_NEAR(r->relative_throughput, our_mean / our_time, 1e-12);
    EXPECT_NEAR(r->predicted_balance_efficiency, our_mean / our_time,
                4 * (s1 / t1) * r->relative_throughput);
    EXPECT_EQ(r->mean_fill, 1.0);
    EXPECT_EQ(r->mean_padding_efficiency, 1.0);
    EXPECT_EQ(r->real_tokens, static_cast<int64_t>(ranks * per_rank * 300) * cap);
    // Sub-sequence pieces hold every token once, none longer than a microbatch.
    EXPECT_EQ(r->pieces.tokens(), r->real_tokens);
    EXPECT_LE(r->pieces.max(), cap);
    // Percentiles from the fixed histogram agree with the exact series.
    std::vector<double> sorted = ours;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_NEAR(r->p50_balance_efficiency, sorted[149], 2e-5);
    EXPECT_NEAR(r->p5_balance_efficiency, sorted[14], 2e-5);
    EXPECT_NEAR(r->p95_balance_efficiency, sorted[284], 2e-5);
  }
}

TEST(SimulatorTest, TokenCostIsPerfectlyBalancedUnderRandomDealing) {
  // cost = tokens: every rank holds exactly M x cap tokens.
  const auto lengths = LognormalLengths(10000, 800, 1.2, 30000, 4);
  auto tokens = cost::PolynomialModel::Tokens();
  SimOptions o;
  o.num_ranks = 100;
  o.microbatches_per_rank = 3;
  o.num_steps = 20;
  auto r = Simulate(lengths, *tokens, o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->mean_balance_efficiency, 1.0);
  EXPECT_EQ(r->relative_throughput, 1.0);
  EXPECT_NEAR(r->predicted_balance_efficiency, 1.0, 1e-12);
}

TEST(SimulatorTest, SameSeedSameRunDifferentSeedDifferentRun) {
  const auto lengths = LognormalLengths(20000, 700, 1.0, 16384, 5);
  auto model = Quadratic();
  for (PolicyKind policy : {PolicyKind::kRandom, PolicyKind::kTokenBalanced}) {
    SimOptions o;
    o.policy = policy;
    o.num_ranks = 64;
    o.num_steps = 30;
    o.seed = 17;
    o.record_steps = true;
    auto a = Simulate(lengths, *model, o), b = Simulate(lengths, *model, o);
    o.seed = 18;
    auto c = Simulate(lengths, *model, o);
    ASSERT_TRUE(a.ok() && b.ok() && c.ok());
    ASSERT_EQ(a->steps.size(), 30u);
    bool differs = false;
    for (size_t s = 0; s < a->steps.size(); ++s) {
      EXPECT_EQ(std::memcmp(&a->steps[s], &b->steps[s], sizeof(StepRecord)), 0);
      differs |= a->steps[s].step_time != c->steps[s].step_time;
    }
    EXPECT_TRUE(differs);
    EXPECT_EQ(a->documents_drawn, b->documents_drawn);
  }
}

TEST(SimulatorTest, TokenBalancedKeepsDocumentsWholeAndFillsNearlyFull) {
  const auto lengths = LognormalLengths(20000, 700, 1.0, 8000, 6);
  auto model = Quadratic();
  SimOptions o;
  o.policy = PolicyKind::kTokenBalanced;
  o.num_ranks = 128;
  o.microbatches_per_rank = 2;
  o.num_steps = 40;
  auto r = Simulate(lengths, *model, o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_GT(r->mean_fill, 0.95);
  EXPECT_LE(r->mean_fill, 1.0);
  EXPECT_TRUE(std::isnan(r->predicted_balance_efficiency));
  // No document <= 8,192 is cut: every piece length is a document length.
  auto whole = stats::LengthStats::Create(lengths, nullptr);
  for (int64_t l : r->pieces.lengths()) {
    EXPECT_TRUE(std::binary_search(whole->lengths().begin(), whole->lengths().end(), l)) << l;
  }
  // Packed, unpadded: relative throughput = sum of mean rank costs / sum of
  // step times.
  o.record_steps = true;
  auto again = Simulate(lengths, *model, o);
  double mean_sum = 0, time_sum = 0;
  for (const StepRecord& s : again->steps) {
    mean_sum += s.mean_rank_cost;
    time_sum += s.step_time;
  }
  EXPECT_NEAR(again->relative_throughput, mean_sum / time_sum, 1e-12);
  EXPECT_LE(r->relative_throughput, 1.0);
}

TEST(SimulatorTest, BucketSamplerPolicyUsesEverySampleOncePerEpochPadded) {
  // Some documents exceed the 4,096-token microbatch: truncated to it.
  const auto lengths = LognormalLengths(30000, 500, 1.0, 9000, 9);
  auto model = Quadratic();
  SimOptions o;
  o.policy = PolicyKind::kBuckets;
  o.num_ranks = 16;
  o.microbatches_per_rank = 2;
  o.tokens_per_microbatch = 4096;
  o.seed = 3;
  std::vector<int64_t> clipped = lengths;
  for (int64_t& l : clipped) l = std::min<int64_t>(l, 4096);
  // The sampler the policy builds, to learn the epoch length (with the
  // model: its batches are also capped at the cost the token budget implies).
  pack::BucketSamplerOptions so;
  so.max_padded_tokens = 4096;
  so.num_ranks = 16;
  so.accumulation_steps = 2;
  auto sampler = pack::BucketSampler::Create(so, Quadratic(), clipped);
  ASSERT_TRUE(sampler.ok()) << sampler.status();
  o.num_steps = static_cast<uint64_t>((*sampler)->steps_per_epoch());
  o.record_steps = true;
  auto r = Simulate(lengths, *model, o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->documents_drawn, lengths.size());
  EXPECT_EQ(r->epochs, 1u);
  // One epoch: the pieces are exactly the (truncated) samples.
  auto expected = stats::LengthStats::Create(clipped, model.get());
  ASSERT_EQ(r->pieces.count(), expected->count());
  EXPECT_TRUE(std::equal(r->pieces.lengths().begin(), r->pieces.lengths().end(),
                         expected->lengths().begin(), expected->lengths().end()));
  EXPECT_TRUE(std::equal(r->pieces.counts().begin(), r->pieces.counts().end(),
                         expected->counts().begin(), expected->counts().end()));
  // Padded: some padding, computed tokens within the budget of every
  // microbatch, and padding lowers the relative throughput below balance.
  EXPECT_LT(r->mean_padding_efficiency, 1.0);
  EXPECT_GT(r->mean_padding_efficiency, 0.8);
  EXPECT_LE(r->computed_tokens, static_cast<int64_t>(o.num_steps * 32 * 4096));
  EXPECT_LT(r->relative_throughput, r->mean_balance_efficiency);
  EXPECT_TRUE(std::isnan(r->predicted_balance_efficiency));
  // Deterministic.
  auto again = Simulate(lengths, *model, o);
  EXPECT_EQ(again->mean_step_time, r->mean_step_time);
}

TEST(SimulatorTest, StepPlannerPoliciesPlaceEveryTokenAndFlopsBalancingWins) {
  // Attention equal to the linear cost at 8K tokens; four microbatches per
  // rank, so no single document outweighs a rank's fair share and the
  // lower bound allows near-perfect balance.
  const auto lengths = LognormalLengths(30000, 700, 1.0, 12000, 10);
  auto model = *cost::PolynomialModel::Create({50, 0, 1, 1.0 / 8192});
  SimOptions o;
  o.num_ranks = 64;
  o.microbatches_per_rank = 4;
  o.tokens_per_microbatch = 8192;
  o.max_tokens_per_microbatch = 10240;  // memory slack for the planner
  o.num_steps = 20;
  double token_balanced = 0, documents = 0;
  for (PolicyKind policy :
       {PolicyKind::kTokenBalanced, PolicyKind::kPlannerDocuments, PolicyKind::kPlannerRandom,
        PolicyKind::kPlannerTokens, PolicyKind::kPlannerSequences}) {
    o.policy = policy;
    auto r = Simulate(lengths, *model, o);
    ASSERT_TRUE(r.ok()) << static_cast<int>(policy) << ": " << r.status();
    EXPECT_EQ(r->pieces.tokens(), r->real_tokens);
    EXPECT_LE(r->pieces.max(), policy == PolicyKind::kTokenBalanced ? 8192 : 10240);
    EXPECT_LE(r->mean_fill, 1.0);
    EXPECT_GT(r->mean_fill, 0.9);
    EXPECT_EQ(r->mean_padding_efficiency, 1.0);
    EXPECT_EQ(std::isnan(r->predicted_balance_efficiency), policy != PolicyKind::kPlannerRandom);
    if (policy == PolicyKind::kTokenBalanced) token_balanced = r->mean_balance_efficiency;
    if (policy == PolicyKind::kPlannerDocuments) documents = r->mean_balance_efficiency;
  }
  EXPECT_GT(documents, 0.98);
  EXPECT_GT(documents, token_balanced + 0.02);
}

TEST(SimulatorTest, ProgressIsReportedAndCancels) {
  const auto lengths = LognormalLengths(1000, 500, 1.0, 4000, 7);
  auto model = Quadratic();
  SimOptions o;
  o.num_ranks = 8;
  o.num_steps = 10;
  std::vector<uint64_t> seen;
  o.progress = [&](uint64_t done, uint64_t total) {
    seen.push_back(done);
    EXPECT_EQ(total, 10u);
    return done < 4;
  };
  auto r = Simulate(lengths, *model, o);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(seen, (std::vector<uint64_t>{1, 2, 3, 4}));
}

TEST(SimulatorTest, SweepPredictsFromPooledRankCosts) {
  const auto lengths = LognormalLengths(50000, 800, 1.0, 16384, 8);
  auto model = Quadratic();
  SimOptions o;
  o.tokens_per_microbatch = 16384;
  o.num_steps = 60;
  const std::vector<uint64_t> counts = {16, 64, 256, 1024};
  auto points = Sweep(lengths, *model, o, counts);
  ASSERT_TRUE(points.ok()) << points.status();
  for (size_t i = 0; i < counts.size(); ++i) {
    EXPECT_EQ((*points)[i].num_ranks, counts[i]);
    // The prediction estimates the ratio of expectations (what throughput
    // sees); the mean of per-step ratios sits a little above it.
    EXPECT_NEAR((*points)[i].predicted_efficiency, (*points)[i].relative_throughput, 0.01)
        << counts[i];
    EXPECT_GE((*points)[i].sampled_efficiency, (*points)[i].relative_throughput);
    if (i > 0) {
      // More ranks, more stragglers.
      EXPECT_LT((*points)[i].sampled_efficiency, (*points)[i - 1].sampled_efficiency);
      EXPECT_LT((*points)[i].predicted_efficiency, (*points)[i - 1].predicted_efficiency);
    }
  }
  o.policy = PolicyKind::kTokenBalanced;
  auto balanced = Sweep(lengths, *model, o, counts);
  ASSERT_TRUE(balanced.ok());
  EXPECT_TRUE(std::isnan((*balanced)[0].predicted_efficiency));
}

TEST(SimulatorTest, TailMassHurtsMoreAtMoreRanks) {
  // The seeds' scenario, small: equal means, B has a little extra mass in
  // 12K..16K. Token balancing keeps long documents whole, so the rank that
  // draws one straggles; at 8x the ranks that happens in far more steps.
  const auto a = LognormalLengths(400000, 1000, 0.7, 8192, 1);
  const auto b = WithTailMass(a, 2e-5, 12288, 16384, 2);
  auto sa = stats::LengthStats::Create(a, nullptr), sb = stats::LengthStats::Create(b, nullptr);
  ASSERT_EQ(sa->tokens(), sb->tokens());  // equal means, exactly
  ASSERT_GT(sb->Above(12287).documents, 0u);
  auto model = *cost::PolynomialModel::Create({0, 0, 1, 1.0 / 8192});  // attention ~ linear at 8K
  // Four microbatches per rank: a 16K document is less than a rank's fair
  // share, so FLOPs balancing can give its rank fewer other tokens (it
  // cannot when one document alone outweighs the mean rank).
  double diff[2], planned_diff = 0;
  for (int i = 0; i < 3; ++i) {
    SimOptions o;
    o.policy = i < 2 ? PolicyKind::kTokenBalanced : PolicyKind::kPlannerDocuments;
    o.num_ranks = i == 0 ? 128 : 1024;
    o.microbatches_per_rank = 4;
    o.tokens_per_microbatch = 16384;
    if (i == 2) o.max_tokens_per_microbatch = 20480;  // 25% memory slack for the planner
    o.num_steps = 40;
    auto ra = Simulate(a, *model, o), rb = Simulate(b, *model, o);
    ASSERT_TRUE(ra.ok() && rb.ok()) << ra.status() << rb.status();
    (i < 2 ? diff[i] : planned_diff) = ra->mean_balance_efficiency - rb->mean_balance_efficiency;
  }
  EXPECT_LT(diff[0], 0.03);
  EXPECT_GT(diff[1], 2 * diff[0]);
  EXPECT_GT(diff[1], 0.02);
  // Document-level FLOPs balancing removes most of it.
  EXPECT_LT(std::fabs(planned_diff), 0.25 * diff[1]);
}

TEST(SimulatorTest, BadInputIsNamed) {
  auto model = Quadratic();
  const std::vector<int64_t> lengths = {5, 6};
  SimOptions o;
  EXPECT_NE(Simulate({}, *model, o).status().message().find("lengths is empty"), std::string::npos);
  const std::vector<int64_t> bad = {5, -1};
  EXPECT_NE(Simulate(bad, *model, o).status().message().find("lengths[1] = -1"), std::string::npos);
  o.num_ranks = 0;
  EXPECT_NE(Simulate(lengths, *model, o).status().message().find("num_ranks = 0"),
            std::string::npos);
  o.num_ranks = 4;
  o.tokens_per_microbatch = 0;
  EXPECT_NE(Simulate(lengths, *model, o).status().message().find("tokens_per_microbatch = 0"),
            std::string::npos);
  o.tokens_per_microbatch = 100;
  o.num_steps = 0;
  EXPECT_NE(Simulate(lengths, *model, o).status().message().find("num_steps = 0"),
            std::string::npos);
  o.num_steps = 1;
  o.num_ranks = uint64_t{1} << 40;
  o.microbatches_per_rank = uint64_t{1} << 30;
  EXPECT_EQ(Simulate(lengths, *model, o).status().code(), absl::StatusCode::kOutOfRange);
  o.num_ranks = 4;
  o.microbatches_per_rank = 1;
  const std::vector<uint64_t> counts = {4, 0};
  EXPECT_NE(Sweep(lengths, *model, o, counts).status().message().find("rank_counts[1]"),
            std::string::npos);
}

}  // namespace
}  // namespace flopspack::sim
