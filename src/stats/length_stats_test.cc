#include "stats/length_stats.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "cost/polynomial.h"
#include "gtest/gtest.h"
#include "util/random.h"

namespace flopspack::stats {
namespace {

std::vector<int64_t> RandomLengths(util::Rng& rng, size_t n, int64_t max_length) {
  std::vector<int64_t> lengths(n);
  for (int64_t& l : lengths) l = 1 + static_cast<int64_t>(rng.Below(max_length));
  return lengths;
}

std::unique_ptr<cost::PolynomialModel> Model() {
  return *cost::PolynomialModel::Create({5, 1, 2, 0.01});
}

bool BitEqual(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(LengthStatsTest, MomentsMatchBruteForce) {
  util::Rng rng(1);
  auto model = Model();
  for (int trial = 0; trial < 500; ++trial) {
    const auto lengths = RandomLengths(rng, 1 + rng.Below(300), 1 + rng.Below(5000));
    auto stats = LengthStats::Create(lengths, model.get());
    ASSERT_TRUE(stats.ok());
    long double sum = 0, cost = 0;
    for (int64_t l : lengths) {
      sum += l;
      cost += model->Document(l);
    }
    const long double mean = sum / lengths.size();
    long double ss = 0;
    for (int64_t l : lengths) ss += (l - mean) * (l - mean);
    EXPECT_EQ(stats->count(), lengths.size());
    EXPECT_EQ(stats->tokens(), static_cast<int64_t>(sum));
    EXPECT_NEAR(stats->mean(), static_cast<double>(mean), 1e-12 * static_cast<double>(mean));
    EXPECT_NEAR(stats->stddev(), static_cast<double>(std::sqrt(ss / lengths.size())),
                1e-9 * static_cast<double>(mean));
    EXPECT_EQ(stats->min(), *std::min_element(lengths.begin(), lengths.end()));
    EXPECT_EQ(stats->max(), *std::max_element(lengths.begin(), lengths.end()));
    EXPECT_NEAR(stats->total_cost(), static_cast<double>(cost), 1e-12 * static_cast<double>(cost));
  }
}

// The definition, by brute force: smallest x in the data with
// (weight of docs <= x) / total >= q.
int64_t BruteQuantile(const std::vector<int64_t>& lengths, double q, bool tokens) {
  std::vector<int64_t> sorted = lengths;
  std::sort(sorted.begin(), sorted.end());
  double total = 0;
  for (int64_t l : sorted) total += tokens ? static_cast<double>(l) : 1.0;
  for (int64_t x : sorted) {
    double le = 0;
    for (int64_t l : sorted) {
      if (l <= x) le += tokens ? static_cast<double>(l) : 1.0;
    }
    if (le / total >= q || x == sorted.back()) return x;
  }
  return sorted.back();
}

TEST(LengthStatsTest, LowerQuantileMatchesDefinition) {
  util::Rng rng(2);
  for (int trial = 0; trial < 300; ++trial) {
    const auto lengths = RandomLengths(rng, 1 + rng.Below(80), 1 + rng.Below(60));
    auto stats = LengthStats::Create(lengths, nullptr);
    const size_t n = lengths.size();
    std::vector<double> qs = {0, 1, 0.5, 0.9, 0.99, 0.999, rng.Uniform(), rng.Uniform()};
    for (size_t k = 0; k <= n; ++k) qs.push_back(static_cast<double>(k) / n);  // exact steps
    for (double q : qs) {
      EXPECT_EQ(*stats->Quantile(q), BruteQuantile(lengths, q, false)) << "q=" << q;
      EXPECT_EQ(*stats->Quantile(q, Weighting::kTokens), BruteQuantile(lengths, q, true));
    }
  }
}

TEST(LengthStatsTest, QuantileOfTenIsTheNinthAtNinety) {
  // 1..10: the lower 0.9-quantile is 9 (CDF(9) = 0.9 exactly), not 10.
  std::vector<int64_t> lengths = {10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
  auto stats = LengthStats::Create(lengths, nullptr);
  EXPECT_EQ(*stats->Quantile(0.9), 9);
  EXPECT_EQ(*stats->Quantile(0.91), 10);
  EXPECT_EQ(*stats->Quantile(0.5), 5);
  EXPECT_EQ(*stats->Quantile(0), 1);
  EXPECT_EQ(*stats->Quantile(1), 10);
}

TEST(LengthStatsTest, CdfTailAndHistogramMatchBruteForce) {
  util::Rng rng(3);
  auto model = Model();
  for (int trial = 0; trial < 300; ++trial) {
    const auto lengths = RandomLengths(rng, 1 + rng.Below(200), 1 + rng.Below(3000));
    auto stats = LengthStats::Create(lengths, model.get());
    const int64_t x = static_cast<int64_t>(rng.Below(3200));
    double le_count = 0, le_tokens = 0, le_cost = 0, total_tokens = 0, total_cost = 0;
    uint64_t above = 0;
    int64_t above_tokens = 0;
    double above_cost = 0;
    for (int64_t l : lengths) {
      total_tokens += l;
      total_cost += model->Document(l);
      if (l <= x) {
        ++le_count;
        le_tokens += l;
        le_cost += model->Document(l);
      } else {
        ++above;
        above_tokens += l;
        above_cost += model->Document(l);
      }
    }
    EXPECT_NEAR(stats->Cdf(x, Weighting::kCount), le_count / lengths.size(), 1e-12);
    EXPECT_NEAR(stats->Cdf(x, Weighting::kTokens), le_tokens / total_tokens, 1e-12);
    EXPECT_NEAR(stats->Cdf(x, Weighting::kCost), le_cost / total_cost, 1e-12);
    const TailShare tail = stats->Above(x);
    EXPECT_EQ(tail.documents, above);
    EXPECT_EQ(tail.tokens, above_tokens);
    EXPECT_NEAR(tail.cost, above_cost, 1e-9 * total_cost);
    EXPECT_NEAR(tail.cost_share, above_cost / total_cost, 1e-12);
    EXPECT_NEAR(tail.document_share, static_cast<double>(above) / lengths.size(), 1e-15);

    for (Binning binning : {Binning::kLinear, Binning::kLog2}) {
      for (Weighting w : {Weighting::kCount, Weighting::kTokens, Weighting::kCost}) {
        HistogramSpec spec;
        spec.binning = binning;
        spec.weighting = w;
        spec.width = binning == Binning::kLinear ? static_cast<int64_t>(rng.Below(300)) : 0;
        const size_t bins = *stats->BinCount(spec);
        std::vector<int64_t> edges(bins);
        std::vector<double> weights(bins);
        ASSERT_TRUE(
            stats->FillHistogram(spec, absl::MakeSpan(edges), absl::MakeSpan(weights)).ok());
        ASSERT_GE(edges.back(), stats->max());
        std::vector<double> brute(bins, 0.0);
        for (int64_t l : lengths) {
          // The bin is the first whose upper edge holds l; the previous edge is below l.
          const size_t b = std::lower_bound(edges.begin(), edges.end(), l) - edges.begin();
          ASSERT_LT(b, bins);
          brute[b] += w == Weighting::kCount    ? 1.0
                      : w == Weighting::kTokens ? static_cast<double>(l)
                                                : model->Document(l);
        }
        for (size_t b = 0; b < bins; ++b) {
          EXPECT_NEAR(weights[b], brute[b], 1e-9 * std::max(1.0, brute[b]));
          if (binning == Binning::kLog2) {
            EXPECT_EQ(edges[b], int64_t{1} << b);
          }
          if (binning == Binning::kLinear && b > 0) {
            EXPECT_EQ(edges[b] - edges[b - 1], edges[0]);
          }
        }
        if (binning == Binning::kLinear && spec.width == 0) {
          EXPECT_LE(bins, 64u);
        }
      }
    }
  }
}

TEST(LengthStatsTest, NormalizedHistogramSumsToOne) {
  std::vector<int64_t> lengths = {1, 2, 3, 100, 1000, 1000};
  auto stats = LengthStats::Create(lengths, nullptr);
  HistogramSpec spec;
  spec.weighting = Weighting::kTokens;
  spec.normalized = true;
  const size_t bins = *stats->BinCount(spec);
  EXPECT_EQ(bins, 11u);  // 1000 <= 2^10
  std::vector<int64_t> edges(bins);
  std::vector<double> weights(bins);
  ASSERT_TRUE(stats->FillHistogram(spec, absl::MakeSpan(edges), absl::MakeSpan(weights)).ok());
  double sum = 0;
  for (double w : weights) sum += w;
  EXPECT_NEAR(sum, 1.0, 1e-15);
  EXPECT_NEAR(weights[10], 2000.0 / 2106.0, 1e-15);
}

void ExpectIdentical(const LengthStats& a, const LengthStats& b) {
  ASSERT_EQ(a.count(), b.count());
  ASSERT_EQ(a.tokens(), b.tokens());
  ASSERT_TRUE(
      std::equal(a.lengths().begin(), a.lengths().end(), b.lengths().begin(), b.lengths().end()));
  ASSERT_TRUE(
      std::equal(a.counts().begin(), a.counts().end(), b.counts().begin(), b.counts().end()));
  ASSERT_EQ(a.costs().size(), b.costs().size());
  for (size_t i = 0; i < a.costs().size(); ++i) EXPECT_TRUE(BitEqual(a.costs()[i], b.costs()[i]));
  EXPECT_TRUE(BitEqual(a.mean(), b.mean()));
  EXPECT_TRUE(BitEqual(a.stddev(), b.stddev()));
  EXPECT_TRUE(BitEqual(a.total_cost(), b.total_cost()));
  if (!a.empty()) {
    EXPECT_TRUE(BitEqual(*a.ExpectedMax(1000), *b.ExpectedMax(1000)));
    EXPECT_EQ(*a.Quantile(0.99), *b.Quantile(0.99));
  }
}

TEST(LengthStatsTest, MergedShardsEqualTheWholeBitForBit) {
  util::Rng rng(4);
  auto model = Model();
  auto same_model = Model();  // a different object with the same coefficients
  for (int trial = 0; trial < 300; ++trial) {
    const auto lengths = RandomLengths(rng, rng.Below(400), 1 + rng.Below(2000));
    auto whole = LengthStats::Create(lengths, model.get());
    ASSERT_TRUE(whole.ok());
    // Split into 1..5 shards at random cut points, merge left to right.
    const size_t shards = 1 + rng.Below(5);
    std::vector<size_t> cuts = {0, lengths.size()};
    for (size_t s = 1; s < shards; ++s) cuts.push_back(rng.Below(lengths.size() + 1));
    std::sort(cuts.begin(), cuts.end());
    absl::StatusOr<LengthStats> merged =
        LengthStats::Create(absl::Span<const int64_t>(), model.get());
    for (size_t s = 0; s + 1 < cuts.size(); ++s) {
      auto part =
          LengthStats::Create(absl::MakeConstSpan(lengths).subspan(cuts[s], cuts[s + 1] - cuts[s]),
                              s % 2 ? same_model.get() : model.get());
      ASSERT_TRUE(part.ok());
      merged = LengthStats::Merge(*merged, *part);
      ASSERT_TRUE(merged.ok()) << merged.status();
    }
    ExpectIdentical(*merged, *whole);
  }
}

TEST(LengthStatsTest, FromHistogramEqualsCreate) {
  util::Rng rng(6);
  for (int trial = 0; trial < 100; ++trial) {
    const auto lengths = RandomLengths(rng, 1 + rng.Below(300), 1 + rng.Below(50));
    // Histogram entries in random order, some repeated, some with zero count.
    std::vector<int64_t> hist_lengths;
    std::vector<uint64_t> hist_counts;
    for (int64_t l : lengths) {
      hist_lengths.push_back(l);
      hist_counts.push_back(1);
      if (rng.Below(4) == 0) {
        hist_lengths.push_back(l + 1);
        hist_counts.push_back(0);
      }
    }
    auto a = LengthStats::Create(lengths, nullptr);
    auto b = LengthStats::FromHistogram(hist_lengths, hist_counts, nullptr);
    ASSERT_TRUE(b.ok());
    ExpectIdentical(*a, *b);
  }
}

TEST(LengthStatsTest, MergeRejectsDifferentModels) {
  auto model = Model();
  auto other = *cost::PolynomialModel::Create({5, 1, 2, 0.02});
  const std::vector<int64_t> a_lengths = {1, 2, 3}, b_lengths = {10, 20};
  auto a = LengthStats::Create(a_lengths, model.get());
  auto b = LengthStats::Create(b_lengths, other.get());
  auto plain = LengthStats::Create(b_lengths, nullptr);
  auto merged = LengthStats::Merge(*a, *b);
  EXPECT_EQ(merged.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(merged.status().message().find("different cost models"), std::string::npos);
  merged = LengthStats::Merge(*a, *plain);
  EXPECT_EQ(merged.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(merged.status().message().find("without one"), std::string::npos);
}

TEST(LengthStatsTest, BadInputIsNamed) {
  const std::vector<int64_t> bad = {3, -5};
  auto s = LengthStats::Create(bad, nullptr);
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.status().message().find("lengths[1] = -5"), std::string::npos);
  const std::vector<int64_t> huge = {std::numeric_limits<int64_t>::max() / 2};
  const std::vector<uint64_t> three = {3};
  EXPECT_EQ(LengthStats::FromHistogram(huge, three, nullptr).status().code(),
            absl::StatusCode::kOutOfRange);
  auto empty = LengthStats::Create({}, nullptr);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->count(), 0u);
  EXPECT_EQ(empty->mean(), 0);
  EXPECT_FALSE(empty->Quantile(0.5).ok());
  EXPECT_FALSE(empty->ExpectedMax(4).ok());
  const std::vector<int64_t> ok = {1, 2};
  auto plain = LengthStats::Create(ok, nullptr);
  EXPECT_FALSE(plain->Quantile(1.5).ok());
  EXPECT_FALSE(plain->Quantile(std::nan("")).ok());
  EXPECT_FALSE(plain->Quantile(0.5, Weighting::kCost).ok());
}

TEST(LengthStatsTest, ExpectedMaxUsesCostWhenModelGiven) {
  // cost = l^2: E[max of 2 of {1, 3}] = (1 + 9 + 9 + 9) / 4.
  auto model = *cost::PolynomialModel::Create({0, 0, 0, 1});
  const std::vector<int64_t> lengths = {1, 3};
  auto stats = LengthStats::Create(lengths, model.get());
  EXPECT_DOUBLE_EQ(*stats->ExpectedMax(2), 7.0);
  auto plain = LengthStats::Create(lengths, nullptr);
  EXPECT_DOUBLE_EQ(*plain->ExpectedMax(2), 2.5);
}

}  // namespace
}  // namespace flopspack::stats

namespace flopspack::stats {
namespace {

// A 2.7M-token document under a training sequence length of 8192 is
// 329 pieces of 8192 and one of 4832 (329 * 8192 + 4832 = 2,700,000): its
// cost as trained is the sum of theirs, in closed form for the polynomial
// document cost 1 + 2 l + 0.01 l^2 (the per-sequence 5 is not a document's).
TEST(LengthStatsCostCapacityTest, LongDocumentCostsItsPieces) {
  auto model = *cost::PolynomialModel::Create({5, 1, 2, 0.01});
  auto doc = [](double l) { return 1 + 2 * l + 0.01 * l * l; };
  const std::vector<int64_t> lengths = {2'700'000, 8192, 100, 8193};
  auto whole = LengthStats::Create(lengths, model.get());
  auto trained = LengthStats::Create(lengths, model.get(), 8192);
  ASSERT_TRUE(whole.ok() && trained.ok());
  // Lengths and tokens are the same; only costs change.
  EXPECT_EQ(trained->tokens(), whole->tokens());
  EXPECT_EQ(trained->max(), 2'700'000);
  EXPECT_EQ(trained->cost_capacity(), 8192);
  const double pieces_2_7m = 329 * doc(8192) + doc(4832);
  const double pieces_8193 = doc(8192) + doc(1);
  // lengths() ascending: 100, 8192, 8193, 2.7M.
  EXPECT_DOUBLE_EQ(trained->costs()[0], doc(100));
  EXPECT_DOUBLE_EQ(trained->costs()[1], doc(8192));
  EXPECT_DOUBLE_EQ(trained->costs()[2], pieces_8193);
  EXPECT_DOUBLE_EQ(trained->costs()[3], pieces_2_7m);
  EXPECT_DOUBLE_EQ(whole->costs()[3], doc(2'700'000));
  EXPECT_GT(whole->costs()[3] / trained->costs()[3], 300);  // overstated ~330x whole
  EXPECT_DOUBLE_EQ(trained->total_cost(), doc(100) + doc(8192) + pieces_8193 + pieces_2_7m);
  // The tail's share of cost follows.
  const TailShare tail = trained->Above(131072);
  EXPECT_EQ(tail.documents, 1u);
  EXPECT_DOUBLE_EQ(tail.cost, pieces_2_7m);
  EXPECT_DOUBLE_EQ(tail.cost_share, pieces_2_7m / trained->total_cost());
  // A document exactly a multiple of the capacity has no remainder piece.
  auto exact = LengthStats::Create(std::vector<int64_t>{3 * 8192}, model.get(), 8192);
  EXPECT_DOUBLE_EQ(exact->costs()[0], 3 * doc(8192));
}

TEST(LengthStatsCostCapacityTest, ZeroIsWholeAndConventionsDoNotMerge) {
  auto model = *cost::PolynomialModel::Create({5, 1, 2, 0.01});
  const std::vector<int64_t> lengths = {3, 20000, 70000, 5};
  auto a = LengthStats::Create(lengths, model.get());
  auto b = LengthStats::Create(lengths, model.get(), 0);
  ASSERT_TRUE(a.ok() && b.ok());
  for (size_t i = 0; i < a->costs().size(); ++i) EXPECT_EQ(a->costs()[i], b->costs()[i]);
  auto c = LengthStats::Create(lengths, model.get(), 4096);
  auto merged = LengthStats::Merge(*a, *c);
  ASSERT_FALSE(merged.ok());
  EXPECT_NE(merged.status().message().find("cost_capacity 0 in a and 4096 in b"), std::string::npos)
      << merged.status().message();
  auto d = LengthStats::Create(lengths, model.get(), 4096);
  EXPECT_TRUE(LengthStats::Merge(*c, *d).ok());
  EXPECT_FALSE(LengthStats::Create(lengths, model.get(), -1).ok());
  std::vector<uint64_t> counts = {1, 2, 0, 4};
  auto h = LengthStats::FromHistogram(lengths, counts, model.get(), 4096);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->cost_capacity(), 4096);
}

}  // namespace
}  // namespace flopspack::stats
