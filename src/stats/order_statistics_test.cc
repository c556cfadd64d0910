#include "stats/order_statistics.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "stats/length_stats.h"
#include "util/random.h"

namespace flopspack::stats {
namespace {

// E[max of N] for the uniform distribution on 1..n: sum_k P(max >= k) =
// sum_{k=1..n} (1 - ((k-1)/n)^N), in long double.
long double UniformClosedForm(int64_t n, uint64_t draws) {
  long double sum = 0;
  for (int64_t k = 1; k <= n; ++k) {
    sum += 1.0L - std::pow(static_cast<long double>(k - 1) / n, static_cast<long double>(draws));
  }
  return sum;
}

TEST(ExpectedMaxTest, UniformMatchesClosedForm) {
  for (int64_t n : {1, 2, 7, 1000}) {
    std::vector<int64_t> lengths;
    for (int64_t k = 1; k <= n; ++k) lengths.push_back(k);
    auto stats = LengthStats::Create(lengths, nullptr);
    ASSERT_TRUE(stats.ok());
    for (uint64_t draws : {1ull, 2ull, 10ull, 1000ull, 1000000ull}) {
      const double expected = static_cast<double>(UniformClosedForm(n, draws));
      EXPECT_NEAR(*stats->ExpectedMax(draws), expected, 1e-11 * expected)
          << "n=" << n << " N=" << draws;
    }
  }
}

TEST(ExpectedMaxTest, UniformLargeNIsNearlyTheMaximum) {
  // n = 10^4 values, N = 10^6 draws: E[max] = n - sum_{k<n} (k/n)^N, and the
  // correction is ~ e^-100: the result is n to double precision.
  std::vector<int64_t> lengths(10000);
  for (int64_t k = 0; k < 10000; ++k) lengths[k] = k + 1;
  auto stats = LengthStats::Create(lengths, nullptr);
  const double e = *stats->ExpectedMax(1000000);
  EXPECT_NEAR(e, 10000.0, 1e-9);
  EXPECT_LE(e, 10000.0);
  // N = 10^4 draws from n = 10^4: n - sum (k/n)^N ~ n - n/(N+1) ... checked
  // against the closed form.
  const double mid = *stats->ExpectedMax(10000);
  EXPECT_NEAR(mid, static_cast<double>(UniformClosedForm(10000, 10000)), 1e-9 * mid);
}

// Geometric(1/2) on {1, 2, ...} as a histogram: 2^(50-k) documents of
// length k, k = 1..50 (the truncation changes E[max] by < N 2^-50).
LengthStats Geometric() {
  std::vector<int64_t> lengths;
  std::vector<uint64_t> counts;
  for (int k = 1; k <= 50; ++k) {
    lengths.push_back(k);
    counts.push_back(uint64_t{1} << (50 - k));
  }
  return *LengthStats::FromHistogram(lengths, counts, nullptr);
}

TEST(ExpectedMaxTest, GeometricMatchesInclusionExclusion) {
  // E[max of N geometric(p)] = sum_{m=1..N} C(N,m) (-1)^(m+1) / (1 - q^m).
  const LengthStats stats = Geometric();
  for (uint64_t draws = 1; draws <= 20; ++draws) {
    long double sum = 0, binom = 1;
    for (uint64_t m = 1; m <= draws; ++m) {
      binom = binom * (draws - m + 1) / m;
      const long double term = binom / (1.0L - std::pow(0.5L, static_cast<long double>(m)));
      sum += (m % 2 == 1) ? term : -term;
    }
    EXPECT_NEAR(*stats.ExpectedMax(draws), static_cast<double>(sum), 1e-8) << "N=" << draws;
  }
}

TEST(ExpectedMaxTest, GeometricMillionDrawsMatchesAsymptotic) {
  // For geometric(1/2) on {1, 2, ...}: E[max of N] = log2 N + gamma / ln 2 +
  // 1/2 + a periodic term of amplitude < 2e-6 + O(1/N) (Szpankowski,
  // "Average Case Analysis of Algorithms on Sequences", 2001, §7.6).
  const LengthStats stats = Geometric();
  const double gamma = 0.57721566490153286;
  for (uint64_t draws : {1000000ull, 1048576ull}) {
    const double asymptotic = std::log2(static_cast<double>(draws)) + gamma / std::log(2.0) + 0.5;
    EXPECT_NEAR(*stats.ExpectedMax(draws), asymptotic, 1e-5) << "N=" << draws;
  }
}

TEST(ExpectedMaxTest, TwoDrawsMatchBruteForce) {
  util::Rng rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<int64_t> lengths(1 + rng.Below(60));
    for (int64_t& l : lengths) l = 1 + static_cast<int64_t>(rng.Below(40));
    long double sum = 0;
    for (int64_t x : lengths) {
      for (int64_t y : lengths) sum += std::max(x, y);
    }
    const double brute = static_cast<double>(sum / (lengths.size() * lengths.size()));
    auto stats = LengthStats::Create(lengths, nullptr);
    EXPECT_NEAR(*stats->ExpectedMax(2), brute, 1e-12 * brute);
    long double mean = 0;
    for (int64_t x : lengths) mean += x;
    EXPECT_NEAR(*stats->ExpectedMax(1), static_cast<double>(mean / lengths.size()), 1e-12 * brute);
  }
}

TEST(ExpectedMaxTest, MatchesMonteCarloWithinError) {
  util::Rng rng(11);
  std::vector<int64_t> lengths(700);
  for (int64_t& l : lengths) {
    const double u1 = 1 - rng.Uniform(), u2 = rng.Uniform();
    const double z = std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
    l = std::max<int64_t>(1, std::llround(1000 * std::exp(z)));
  }
  auto stats = LengthStats::Create(lengths, nullptr);
  for (uint64_t draws : {8ull, 64ull, 512ull}) {
    const int replicates = 20000;
    double sum = 0, sum_sq = 0;
    for (int r = 0; r < replicates; ++r) {
      int64_t best = 0;
      for (uint64_t d = 0; d < draws; ++d) best = std::max(best, lengths[rng.Below(700)]);
      sum += best;
      sum_sq += static_cast<double>(best) * best;
    }
    const double mean = sum / replicates;
    const double se = std::sqrt((sum_sq / replicates - mean * mean) / replicates);
    EXPECT_NEAR(*stats->ExpectedMax(draws), mean, 4 * se) << "N=" << draws;
  }
}

TEST(ExpectedMaxTest, SortedFormAcceptsTiesAndRejectsBadInput) {
  const std::vector<double> tied = {1, 2, 2, 5};
  const std::vector<double> distinct = {1, 2, 5};
  const std::vector<uint64_t> counts = {1, 2, 1};
  for (uint64_t draws : {1ull, 3ull, 1000ull}) {
    EXPECT_DOUBLE_EQ(*ExpectedMaxSorted(tied, {}, draws),
                     *ExpectedMaxSorted(distinct, counts, draws));
  }
  EXPECT_FALSE(ExpectedMaxSorted({}, {}, 3).ok());
  EXPECT_FALSE(ExpectedMaxSorted(distinct, {}, 0).ok());
  const std::vector<double> unsorted = {3, 1};
  EXPECT_FALSE(ExpectedMaxSorted(unsorted, {}, 2).ok());
}

TEST(ExpectedMaxTest, ProbabilityAboveHasNoCancellation) {
  // 1 - (1 - 1e-12)^1e6 = 1e-6 (1 - 5e-7 ...), far below double epsilon
  // relative to 1: naive pow would give garbage.
  const uint64_t n = 1000000000000ull;
  EXPECT_NEAR(ProbabilityMaxAbove(n - 1, n, 1000000), 9.999995e-7, 1e-15);
  EXPECT_EQ(ProbabilityMaxAbove(n, n, 5), 0.0);
  EXPECT_EQ(ProbabilityMaxAbove(0, n, 5), 1.0);
}

}  // namespace
}  // namespace flopspack::stats
