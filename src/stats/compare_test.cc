#include "stats/compare.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "cost/polynomial.h"
#include "gtest/gtest.h"
#include "util/random.h"

namespace flopspack::stats {
namespace {

// (weight of documents <= x, total weight), exactly.
std::pair<int64_t, int64_t> BruteCdf(const std::vector<int64_t>& lengths, int64_t x, bool tokens) {
  int64_t le = 0, total = 0;
  for (int64_t l : lengths) {
    const int64_t w = tokens ? l : 1;
    total += w;
    if (l <= x) le += w;
  }
  return {le, total};
}

TEST(KsDistanceTest, MatchesBruteForce) {
  util::Rng rng(7);
  for (int trial = 0; trial < 400; ++trial) {
    std::vector<int64_t> a(1 + rng.Below(60)), b(1 + rng.Below(60));
    const int64_t range_a = 1 + rng.Below(100), range_b = 1 + rng.Below(100);
    for (int64_t& l : a) l = 1 + static_cast<int64_t>(rng.Below(range_a));
    for (int64_t& l : b) l = 1 + static_cast<int64_t>(rng.Below(range_b));
    auto sa = LengthStats::Create(a, nullptr);
    auto sb = LengthStats::Create(b, nullptr);
    for (bool tokens : {false, true}) {
      // Exact rational comparison: the first x with the largest gap.
      int64_t best_num = 0, best_den = 1, at = 0;
      for (int64_t x = 1; x <= 101; ++x) {
        const auto [la, ta] = BruteCdf(a, x, tokens);
        const auto [lb, tb] = BruteCdf(b, x, tokens);
        const int64_t num = std::abs(la * tb - lb * ta), den = ta * tb;
        if (num * best_den > best_num * den) {
          best_num = num;
          best_den = den;
          at = x;
        }
      }
      const double best = static_cast<double>(best_num) / static_cast<double>(best_den);
      auto ks = KsDistance(*sa, *sb, tokens ? Weighting::kTokens : Weighting::kCount);
      ASSERT_TRUE(ks.ok());
      EXPECT_NEAR(ks->distance, best, 1e-12);
      if (best > 1e-9) {
        EXPECT_EQ(ks->length, at);
      }
      // Symmetric.
      auto back = KsDistance(*sb, *sa, tokens ? Weighting::kTokens : Weighting::kCount);
      EXPECT_NEAR(back->distance, ks->distance, 1e-15);
    }
  }
}

TEST(KsDistanceTest, IdenticalIsZeroDisjointIsOne) {
  const std::vector<int64_t> a = {1, 2, 3, 3}, b = {3, 3, 1, 2}, c = {10, 11};
  auto sa = LengthStats::Create(a, nullptr), sb = LengthStats::Create(b, nullptr),
       sc = LengthStats::Create(c, nullptr), empty = LengthStats::Create({}, nullptr);
  EXPECT_EQ(KsDistance(*sa, *sb, Weighting::kCount)->distance, 0.0);
  EXPECT_EQ(KsDistance(*sa, *sc, Weighting::kTokens)->distance, 1.0);
  EXPECT_EQ(KsDistance(*sa, *sc, Weighting::kTokens)->length, 3);
  EXPECT_FALSE(KsDistance(*sa, *empty, Weighting::kCount).ok());
  EXPECT_FALSE(KsDistance(*sa, *sb, Weighting::kCost).ok());
}

TEST(CompareTest, NamesWhereTheTailsDiffer) {
  // Same body 1..1000 (1000 documents each); b moves 2% of documents to
  // 12,000..15,960 tokens.
  std::vector<int64_t> a, b;
  for (int64_t i = 1; i <= 10000; ++i) {
    a.push_back(1 + (i * 7919) % 1000);
    b.push_back(i % 50 == 0 ? 12000 + (i % 100) * 40 : 1 + (i * 7919) % 1000);
  }
  auto model = *cost::PolynomialModel::Create({0, 0, 1, 0.001});
  auto sa = LengthStats::Create(a, model.get()), sb = LengthStats::Create(b, model.get());
  auto c = Compare(*sa, *sb);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->first_divergent_level, 0.99);  // p50..p95 agree, p99 does not
  EXPECT_NEAR(c->quantiles_a[0], 500, 10);
  EXPECT_GE(c->quantiles_b[3], 12000);
  EXPECT_GT(c->token_share_above_b, 10 * c->token_share_above_a);
  EXPECT_GT(c->cost_share_above_b, c->token_share_above_b);
  EXPECT_NEAR(c->ks_count.distance, 0.02, 0.005);
  EXPECT_GT(c->ks_tokens.distance, c->ks_count.distance);  // long documents weigh more by tokens
}

}  // namespace
}  // namespace flopspack::stats
