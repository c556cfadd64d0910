#include "pack/buckets/buckets.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "util/random.h"

namespace flopspack::pack {
namespace {

int64_t Padding(const std::vector<int64_t>& lengths, const std::vector<int64_t>& bounds) {
  absl::StatusOr<int64_t> p = PaddingToUpperBounds(lengths, bounds);
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *p : -1;
}

// Every way to pick `left` more bounds from candidates[from..], the last
// bound fixed to the longest length: the minimum padding over all of them.
void Enumerate(const std::vector<int64_t>& lengths, const std::vector<int64_t>& candidates,
               size_t from, size_t left, std::vector<int64_t>& chosen, int64_t& best) {
  if (left == 0) {
    std::vector<int64_t> bounds = chosen;
    bounds.push_back(*std::max_element(lengths.begin(), lengths.end()));
    best = std::min(best, Padding(lengths, bounds));
    return;
  }
  for (size_t i = from; i < candidates.size(); ++i) {
    chosen.push_back(candidates[i]);
    Enumerate(lengths, candidates, i + 1, left - 1, chosen, best);
    chosen.pop_back();
  }
}

// Brute force over every set of at most B bounds drawn from `candidates`.
int64_t BruteForce(const std::vector<int64_t>& lengths, const std::vector<int64_t>& candidates,
                   size_t num_buckets) {
  int64_t best = std::numeric_limits<int64_t>::max();
  std::vector<int64_t> chosen;
  for (size_t extra = 0; extra < num_buckets && extra <= candidates.size(); ++extra) {
    Enumerate(lengths, candidates, 0, extra, chosen, best);
  }
  return best;
}

std::vector<int64_t> RandomLengths(util::Rng& rng, size_t n, int64_t max_length) {
  std::vector<int64_t> lengths(n);
  for (int64_t& l : lengths) l = 1 + static_cast<int64_t>(rng.Below(max_length));
  return lengths;
}

void ExpectWellFormed(const std::vector<int64_t>& lengths, const std::vector<int64_t>& bounds,
                      size_t num_buckets) {
  ASSERT_EQ(bounds.size(), num_buckets);
  std::vector<int64_t> distinct(lengths);
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  const size_t strict = std::min(num_buckets, distinct.size());
  for (size_t i = 1; i < strict; ++i) EXPECT_LT(bounds[i - 1], bounds[i]);
  for (size_t i = strict; i < num_buckets; ++i) EXPECT_EQ(bounds[i], distinct.back());
  EXPECT_EQ(bounds.back(), distinct.back());
  // Every bound is a length that occurs.
  for (int64_t b : bounds) {
    EXPECT_TRUE(std::binary_search(distinct.begin(), distinct.end(), b)) << b;
  }
}

TEST(OptimalUpperBoundsTest, MatchesBruteForceOverAllIntegerBounds) {
  // Candidates are every integer up to the longest length, not only lengths
  // that occur: this also checks that occurring lengths suffice.
  util::Rng rng(11);
  for (int trial = 0; trial < 400; ++trial) {
    const int64_t max_length = 2 + static_cast<int64_t>(rng.Below(13));
    const size_t n = 1 + rng.Below(12);
    const std::vector<int64_t> lengths = RandomLengths(rng, n, max_length);
    const int64_t longest = *std::max_element(lengths.begin(), lengths.end());
    std::vector<int64_t> candidates;
    for (int64_t v = 1; v < longest; ++v) candidates.push_back(v);
    const size_t num_buckets = 1 + rng.Below(4);
    absl::StatusOr<std::vector<int64_t>> bounds =
        OptimalUpperBounds(lengths, static_cast<int64_t>(num_buckets));
    ASSERT_TRUE(bounds.ok()) << bounds.status();
    ExpectWellFormed(lengths, *bounds, num_buckets);
    EXPECT_EQ(Padding(lengths, *bounds), BruteForce(lengths, candidates, num_buckets))
        << "trial " << trial;
  }
}

TEST(OptimalUpperBoundsTest, MatchesBruteForceOverHistogramCuts) {
  // Larger histograms (up to 11 distinct lengths with skewed counts), every
  // bucket count from 1 to beyond the number of distinct lengths.
  util::Rng rng(12);
  for (int trial = 0; trial < 1500; ++trial) {
    const size_t distinct = 1 + rng.Below(11);
    std::vector<int64_t> values;
    while (values.size() < distinct) {
      const int64_t v = 1 + static_cast<int64_t>(rng.Below(1000));
      if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
    }
    std::vector<int64_t> lengths;
    for (int64_t v : values) {
      const uint64_t count = 1 + rng.Below(rng.Below(2) ? 3 : 40);
      for (uint64_t c = 0; c < count; ++c) lengths.push_back(v);
    }
    rng.Shuffle(absl::MakeSpan(lengths));
    std::sort(values.begin(), values.end());
    std::vector<int64_t> candidates(values.begin(), values.end() - 1);
    const size_t num_buckets = 1 + rng.Below(distinct + 2);
    absl::StatusOr<std::vector<int64_t>> bounds =
        OptimalUpperBounds(lengths, static_cast<int64_t>(num_buckets));
    ASSERT_TRUE(bounds.ok()) << bounds.status();
    ExpectWellFormed(lengths, *bounds, num_buckets);
    EXPECT_EQ(Padding(lengths, *bounds), BruteForce(lengths, candidates, num_buckets))
        << "trial " << trial;
  }
}

// The plain O(B * D^2) recurrence, independent of the divide-and-conquer
// shortcut, for histograms too large to enumerate.
int64_t QuadraticDp(const LengthHistogram& h, size_t num_buckets,
                    const std::vector<int64_t>& price) {
  const size_t d = h.values.size();
  const int64_t inf = std::numeric_limits<int64_t>::max();
  std::vector<int64_t> count(d + 1, 0);
  for (size_t k = 0; k < d; ++k) count[k + 1] = count[k] + h.counts[k];
  auto cost = [&](size_t i, size_t j) { return price[j - 1] * (count[j] - count[i]); };
  std::vector<int64_t> f(d + 1, inf);
  f[0] = 0;
  for (size_t b = 0; b < num_buckets; ++b) {
    std::vector<int64_t> g(d + 1, inf);
    g[0] = 0;  // fewer buckets than allowed
    for (size_t j = 1; j <= d; ++j) {
      for (size_t i = 0; i < j; ++i) {
        if (f[i] != inf) g[j] = std::min(g[j], f[i] + cost(i, j));
      }
    }
    f = g;
  }
  return f[d];
}

TEST(OptimalUpperBoundsTest, MatchesQuadraticDpOnLargerHistograms) {
  util::Rng rng(13);
  for (int trial = 0; trial < 60; ++trial) {
    // Heavy-tailed: many short lengths, few long ones.
    std::vector<int64_t> lengths;
    const size_t n = 200 + rng.Below(400);
    for (size_t i = 0; i < n; ++i) {
      const double u = rng.Uniform();
      lengths.push_back(1 + static_cast<int64_t>(5000 * u * u * u));
    }
    absl::StatusOr<LengthHistogram> h = BuildLengthHistogram(lengths);
    ASSERT_TRUE(h.ok());
    const size_t num_buckets = 1 + rng.Below(16);
    const std::vector<int64_t> bounds = OptimalUpperBounds(*h, static_cast<int64_t>(num_buckets));
    ExpectWellFormed(lengths, bounds, num_buckets);
    int64_t total = 0;
    for (int64_t l : lengths) total += l;
    EXPECT_EQ(Padding(lengths, bounds), QuadraticDp(*h, num_buckets, h->values) - total)
        << "trial " << trial;
  }
}

// Price of each bound index's bucket, summed: the objective of
// OptimalUpperBoundsForPrice, evaluated from the returned bounds.
int64_t PriceOf(const LengthHistogram& h, const std::vector<int64_t>& bounds,
                const std::vector<int64_t>& price) {
  int64_t total = 0;
  for (size_t d = 0; d < h.values.size(); ++d) {
    const int64_t bound = *std::lower_bound(bounds.begin(), bounds.end(), h.values[d]);
    const size_t at = std::lower_bound(h.values.begin(), h.values.end(), bound) - h.values.begin();
    total += h.counts[d] * price[at];
  }
  return total;
}

TEST(OptimalUpperBoundsTest, AnyMonotonePriceMatchesQuadraticDp) {
  // Step-shaped prices like the sampler's budget-aware one (many ties), and
  // random increasing ones.
  util::Rng rng(14);
  for (int trial = 0; trial < 80; ++trial) {
    std::vector<int64_t> lengths;
    const size_t n = 50 + rng.Below(300);
    for (size_t i = 0; i < n; ++i) {
      const double u = rng.Uniform();
      lengths.push_back(1 + static_cast<int64_t>(3000 * u * u));
    }
    absl::StatusOr<LengthHistogram> h = BuildLengthHistogram(lengths);
    ASSERT_TRUE(h.ok());
    std::vector<int64_t> price;
    const int64_t budget = 3000 + static_cast<int64_t>(rng.Below(20000));
    int64_t running = 0;
    for (int64_t v : h->values) {
      if (trial % 2 == 0) {
        price.push_back((int64_t{1} << 30) / (budget / v));  // 1 / batch cap
      } else {
        running += static_cast<int64_t>(rng.Below(50));
        price.push_back(running);
      }
    }
    const size_t num_buckets = 1 + rng.Below(12);
    const std::vector<int64_t> bounds =
        OptimalUpperBoundsForPrice(*h, static_cast<int64_t>(num_buckets), price);
    ExpectWellFormed(lengths, bounds, num_buckets);
    EXPECT_EQ(PriceOf(*h, bounds, price), QuadraticDp(*h, num_buckets, price)) << "trial " << trial;
  }
}

TEST(OptimalUpperBoundsTest, FewerDistinctLengthsThanBuckets) {
  const std::vector<int64_t> lengths = {5, 3, 5, 9, 3};
  absl::StatusOr<std::vector<int64_t>> bounds = OptimalUpperBounds(lengths, 6);
  ASSERT_TRUE(bounds.ok());
  EXPECT_EQ(*bounds, (std::vector<int64_t>{3, 5, 9, 9, 9, 9}));
  EXPECT_EQ(Padding(lengths, *bounds), 0);
}

TEST(OptimalUpperBoundsTest, OneBucketPadsToTheLongest) {
  const std::vector<int64_t> lengths = {1, 2, 10};
  absl::StatusOr<std::vector<int64_t>> bounds = OptimalUpperBounds(lengths, 1);
  ASSERT_TRUE(bounds.ok());
  EXPECT_EQ(*bounds, std::vector<int64_t>{10});
  EXPECT_EQ(Padding(lengths, *bounds), 9 + 8);
}

TEST(OptimalUpperBoundsTest, HistogramCountsAndSortPathAgree) {
  // Lengths beyond the counting range take the sort path.
  const std::vector<int64_t> lengths = {int64_t{1} << 40, 7, int64_t{1} << 40, 7, 9};
  absl::StatusOr<LengthHistogram> h = BuildLengthHistogram(lengths);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->values, (std::vector<int64_t>{7, 9, int64_t{1} << 40}));
  EXPECT_EQ(h->counts, (std::vector<int64_t>{2, 1, 2}));
  absl::StatusOr<std::vector<int64_t>> bounds = OptimalUpperBounds(lengths, 2);
  ASSERT_TRUE(bounds.ok());
  EXPECT_EQ(*bounds, (std::vector<int64_t>{9, int64_t{1} << 40}));
}

TEST(OptimalUpperBoundsTest, BadInput) {
  const std::vector<int64_t> lengths = {4, 2};
  absl::StatusOr<std::vector<int64_t>> zero = OptimalUpperBounds(lengths, 0);
  EXPECT_EQ(zero.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(zero.status().message().find("num_buckets = 0"), std::string::npos);
  EXPECT_EQ(OptimalUpperBounds(std::vector<int64_t>{}, 3).status().code(),
            absl::StatusCode::kInvalidArgument);
  absl::StatusOr<std::vector<int64_t>> negative =
      OptimalUpperBounds(std::vector<int64_t>{3, -1}, 2);
  EXPECT_EQ(negative.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(negative.status().message().find("lengths[1] = -1"), std::string::npos);
  const int64_t huge = std::numeric_limits<int64_t>::max() / 2;
  EXPECT_EQ(OptimalUpperBounds(std::vector<int64_t>{huge, huge, huge}, 2).status().code(),
            absl::StatusCode::kOutOfRange);
}

TEST(PaddingToUpperBoundsTest, CountsAndErrors) {
  EXPECT_EQ(Padding({1, 2, 3, 4}, {2, 4}), 1 + 0 + 1 + 0);
  EXPECT_EQ(Padding({3}, {3, 3, 5}), 0);  // repeated bounds are empty buckets
  absl::StatusOr<int64_t> beyond = PaddingToUpperBounds(std::vector<int64_t>{3, 6}, {4});
  EXPECT_EQ(beyond.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(beyond.status().message().find("lengths[1] = 6"), std::string::npos);
  absl::StatusOr<int64_t> descending = PaddingToUpperBounds(std::vector<int64_t>{3}, {5, 4});
  EXPECT_NE(descending.status().message().find("upper_bounds[1] = 4"), std::string::npos);
  EXPECT_EQ(PaddingToUpperBounds(std::vector<int64_t>{3}, {}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace flopspack::pack
