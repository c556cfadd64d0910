// The statistics entry points through the shared library: results against
// hand-computed values, merging shards, the size-query buffer protocol, and
// the bad-input rows that concern flopspack_stats.
#include <cmath>
#include <cstring>
#include <vector>

#include "capi_test_util.h"

namespace {

struct StatsDeleter {
  void operator()(flopspack_stats* s) const { flopspack_stats_destroy(s); }
};
using StatsPtr = std::unique_ptr<flopspack_stats, StatsDeleter>;

StatsPtr Make(const std::vector<int64_t>& lengths, const flopspack_cost_model* model = nullptr) {
  flopspack_stats* s = nullptr;
  EXPECT_EQ(flopspack_stats_create(lengths.data(), lengths.size(), model, &s), FLOPSPACK_OK)
      << flopspack_last_error_message();
  return StatsPtr(s);
}

TEST(StatsCapiTest, SummaryQuantilesAndTail) {
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_polynomial(0, 0, 0, 1, &model), FLOPSPACK_OK);  // cost = l^2
  const std::vector<int64_t> lengths = {10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
  StatsPtr s = Make(lengths, model);
  flopspack_stats_summary sum;
  sum.struct_size = sizeof(sum);
  ASSERT_EQ(flopspack_stats_summarize(s.get(), &sum), FLOPSPACK_OK);
  EXPECT_EQ(sum.count, 10u);
  EXPECT_EQ(sum.distinct_lengths, 10u);
  EXPECT_EQ(sum.tokens, 55);
  EXPECT_DOUBLE_EQ(sum.mean, 5.5);
  EXPECT_NEAR(sum.stddev, std::sqrt(8.25), 1e-12);
  EXPECT_EQ(sum.min, 1);
  EXPECT_EQ(sum.max, 10);
  EXPECT_EQ(sum.p50, 5);
  EXPECT_EQ(sum.p90, 9);
  EXPECT_EQ(sum.p99, 10);
  EXPECT_EQ(sum.has_cost, 1);
  EXPECT_DOUBLE_EQ(sum.total_cost, 385);
  EXPECT_DOUBLE_EQ(sum.max_cost, 100);

  double q = 0;
  ASSERT_EQ(flopspack_stats_quantile(s.get(), 0.9, &q), FLOPSPACK_OK);
  EXPECT_EQ(q, 9);
  // Token-weighted median: tokens <= 7 are 28 of 55 (>= 0.5), <= 6 are 21.
  ASSERT_EQ(flopspack_stats_weighted_quantile(s.get(), FLOPSPACK_STATS_WEIGHT_TOKENS, 0.5, &q),
            FLOPSPACK_OK);
  EXPECT_EQ(q, 7);
  double cdf = 0;
  ASSERT_EQ(flopspack_stats_cdf(s.get(), FLOPSPACK_STATS_WEIGHT_COST, 3, &cdf), FLOPSPACK_OK);
  EXPECT_DOUBLE_EQ(cdf, 14.0 / 385.0);

  flopspack_stats_tail tail;
  tail.struct_size = sizeof(tail);
  ASSERT_EQ(flopspack_stats_tail_share(s.get(), 8, &tail), FLOPSPACK_OK);
  EXPECT_EQ(tail.documents, 2u);
  EXPECT_EQ(tail.tokens, 19);
  EXPECT_DOUBLE_EQ(tail.cost, 181);
  EXPECT_DOUBLE_EQ(tail.document_share, 0.2);
  EXPECT_DOUBLE_EQ(tail.cost_share, 181.0 / 385.0);

  // E[max of 2 costs] = sum_{i,j} max(i^2, j^2) / 100.
  double brute = 0;
  for (int i = 1; i <= 10; ++i) {
    for (int j = 1; j <= 10; ++j) brute += std::max(i, j) * std::max(i, j);
  }
  double e = 0;
  ASSERT_EQ(flopspack_stats_expected_max(s.get(), 2, &e), FLOPSPACK_OK);
  EXPECT_NEAR(e, brute / 100, 1e-12);
  flopspack_cost_model_destroy(model);
}

TEST(StatsCapiTest, HistogramSizeQueryAndFill) {
  StatsPtr s = Make({1, 2, 3, 4, 5, 100});
  flopspack_histogram_options o;
  flopspack_histogram_options_init(&o);
  size_t bins = 0;
  ASSERT_EQ(flopspack_stats_histogram(s.get(), &o, nullptr, nullptr, 0, &bins), FLOPSPACK_OK);
  EXPECT_EQ(bins, 8u);  // 100 <= 2^7: bins {1},{2},(2,4],(4,8],...,(64,128]
  std::vector<int64_t> edges(bins, -1);
  std::vector<double> weights(bins, -1);
  size_t untouched = 77;
  EXPECT_FLOPSPACK_ERROR(
      flopspack_stats_histogram(s.get(), &o, edges.data(), weights.data(), bins - 1, &untouched),
      FLOPSPACK_BUFFER_TOO_SMALL, "has 8 bins");
  EXPECT_EQ(untouched, 77u);
  EXPECT_EQ(edges[0], -1);
  ASSERT_EQ(flopspack_stats_histogram(s.get(), &o, edges.data(), weights.data(), bins, &bins),
            FLOPSPACK_OK);
  EXPECT_EQ(edges, (std::vector<int64_t>{1, 2, 4, 8, 16, 32, 64, 128}));
  EXPECT_EQ(weights, (std::vector<double>{1, 1, 2, 1, 0, 0, 0, 1}));
  o.binning = FLOPSPACK_STATS_BINS_LINEAR;
  o.width = 50;
  o.weighting = FLOPSPACK_STATS_WEIGHT_TOKENS;
  o.normalized = 1;
  ASSERT_EQ(flopspack_stats_histogram(s.get(), &o, nullptr, nullptr, 0, &bins), FLOPSPACK_OK);
  ASSERT_EQ(bins, 2u);
  ASSERT_EQ(flopspack_stats_histogram(s.get(), &o, edges.data(), weights.data(), 2, &bins),
            FLOPSPACK_OK);
  EXPECT_EQ(edges[1], 100);
  EXPECT_DOUBLE_EQ(weights[0], 15.0 / 115.0);
  EXPECT_DOUBLE_EQ(weights[1], 100.0 / 115.0);
}

TEST(StatsCapiTest, MergedShardsEqualTheWholeAndShipAsEntries) {
  flopspack_cost_model* model = nullptr;
  flopspack_cost_model* twin = nullptr;
  ASSERT_EQ(flopspack_cost_model_polynomial(1, 2, 3, 0.5, &model), FLOPSPACK_OK);
  ASSERT_EQ(flopspack_cost_model_polynomial(1, 2, 3, 0.5, &twin), FLOPSPACK_OK);
  std::vector<int64_t> all;
  for (int64_t i = 0; i < 3000; ++i) all.push_back(1 + (i * i * 7 + 3 * i) % 4097);
  StatsPtr whole = Make(all, model);
  // Three shards (one with a twin model); the middle one travels as entries,
  // the way a worker process would ship it.
  std::vector<int64_t> a(all.begin(), all.begin() + 1000),
      b(all.begin() + 1000, all.begin() + 2500), c(all.begin() + 2500, all.end());
  StatsPtr sa = Make(a, model), sb = Make(b, twin), sc = Make(c, model);
  size_t k = 0;
  ASSERT_EQ(flopspack_stats_entries(sb.get(), nullptr, nullptr, 0, &k), FLOPSPACK_OK);
  std::vector<int64_t> lengths(k);
  std::vector<uint64_t> counts(k);
  ASSERT_EQ(flopspack_stats_entries(sb.get(), lengths.data(), counts.data(), k, &k), FLOPSPACK_OK);
  flopspack_stats* shipped = nullptr;
  ASSERT_EQ(
      flopspack_stats_create_from_histogram(lengths.data(), counts.data(), k, model, &shipped),
      FLOPSPACK_OK);
  flopspack_stats* ab = nullptr;
  flopspack_stats* abc = nullptr;
  ASSERT_EQ(flopspack_stats_merge(sa.get(), shipped, &ab), FLOPSPACK_OK);
  ASSERT_EQ(flopspack_stats_merge(ab, sc.get(), &abc), FLOPSPACK_OK);
  flopspack_stats_summary x, y;
  x.struct_size = y.struct_size = sizeof(x);
  ASSERT_EQ(flopspack_stats_summarize(abc, &x), FLOPSPACK_OK);
  ASSERT_EQ(flopspack_stats_summarize(whole.get(), &y), FLOPSPACK_OK);
  EXPECT_EQ(std::memcmp(&x, &y, sizeof x), 0);  // bit for bit, padding zeroed by both
  double e1 = 0, e2 = 0, ks = -1;
  ASSERT_EQ(flopspack_stats_expected_max(abc, 1000000, &e1), FLOPSPACK_OK);
  ASSERT_EQ(flopspack_stats_expected_max(whole.get(), 1000000, &e2), FLOPSPACK_OK);
  EXPECT_EQ(e1, e2);
  ASSERT_EQ(flopspack_stats_ks_distance(abc, whole.get(), &ks), FLOPSPACK_OK);
  EXPECT_EQ(ks, 0);

  flopspack_cost_model* other = nullptr;
  ASSERT_EQ(flopspack_cost_model_polynomial(1, 2, 3, 0.25, &other), FLOPSPACK_OK);
  StatsPtr sother = Make(c, other);
  flopspack_stats* bad = nullptr;
  EXPECT_FLOPSPACK_ERROR(flopspack_stats_merge(sa.get(), sother.get(), &bad),
                         FLOPSPACK_INVALID_ARGUMENT, "different cost models");
  EXPECT_EQ(bad, nullptr);
  StatsPtr plain = Make(c);
  EXPECT_FLOPSPACK_ERROR(flopspack_stats_merge(sa.get(), plain.get(), &bad),
                         FLOPSPACK_INVALID_ARGUMENT, "without one");
  flopspack_stats_destroy(ab);
  flopspack_stats_destroy(abc);
  flopspack_stats_destroy(shipped);
  flopspack_cost_model_destroy(model);
  flopspack_cost_model_destroy(twin);
  flopspack_cost_model_destroy(other);
}

TEST(StatsCapiTest, CompareNamesTheTail) {
  std::vector<int64_t> a, b;
  for (int64_t i = 0; i < 20000; ++i) {
    const int64_t body = 100 + (i * 37) % 2000;
    a.push_back(body);
    b.push_back(i % 100 == 0 ? 12288 + (i * 13) % 4096 : body);
  }
  StatsPtr sa = Make(a), sb = Make(b);
  flopspack_stats_comparison c;
  c.struct_size = sizeof(c);
  ASSERT_EQ(flopspack_stats_compare(sa.get(), sb.get(), &c), FLOPSPACK_OK);
  EXPECT_NEAR(c.ks_distance, 0.01, 0.002);
  EXPECT_GT(c.ks_distance_tokens, 0.05);
  EXPECT_EQ(c.levels[3], 0.99);
  EXPECT_EQ(c.first_divergent_level, 0.999);  // 1% extra mass: p99 stays, p99.9 moves
  EXPECT_GE(c.quantiles_b[4], 12288);
  EXPECT_LT(c.quantiles_a[4], 2100);
  double d = -1;
  int64_t at = -1;
  ASSERT_EQ(flopspack_stats_ks_distance_weighted(sa.get(), sb.get(), FLOPSPACK_STATS_WEIGHT_TOKENS,
                                                 &d, &at),
            FLOPSPACK_OK);
  EXPECT_EQ(d, c.ks_distance_tokens);
  EXPECT_EQ(at, c.ks_length_tokens);
}

// ---- Bad input (docs/statistics.md, "Errors") ----

TEST(StatsBadInputTest, CreateAndQueries) {
  flopspack_stats* s = nullptr;
  const int64_t bad[3] = {4, 0, 2};
  EXPECT_FLOPSPACK_ERROR(flopspack_stats_create(bad, 3, nullptr, &s), FLOPSPACK_INVALID_ARGUMENT,
                         "lengths[1] = 0");
  EXPECT_EQ(s, nullptr);
  EXPECT_FLOPSPACK_ERROR(flopspack_stats_create(nullptr, 2, nullptr, &s),
                         FLOPSPACK_INVALID_ARGUMENT, "lengths is NULL but its length is 2");
  EXPECT_FLOPSPACK_ERROR(flopspack_stats_create(bad, 1, nullptr, nullptr),
                         FLOPSPACK_INVALID_ARGUMENT, "out must not be NULL");
  EXPECT_FLOPSPACK_ERROR(flopspack_stats_create_from_histogram(bad, nullptr, 1, nullptr, &s),
                         FLOPSPACK_INVALID_ARGUMENT, "counts is NULL");
  const int64_t huge[1] = {INT64_MAX};
  const uint64_t two[1] = {2};
  EXPECT_FLOPSPACK_ERROR(flopspack_stats_create_from_histogram(huge, two, 1, nullptr, &s),
                         FLOPSPACK_OUT_OF_RANGE, "overflows");

  StatsPtr empty = Make({});
  double out = -7;
  EXPECT_FLOPSPACK_ERROR(flopspack_stats_quantile(empty.get(), 0.5, &out),
                         FLOPSPACK_INVALID_ARGUMENT, "empty");
  EXPECT_FLOPSPACK_ERROR(flopspack_stats_expected_max(empty.get(), 10, &out),
                         FLOPSPACK_INVALID_ARGUMENT, "empty");
  StatsPtr one = Make({5, 6});
  EXPECT_FLOPSPACK_ERROR(flopspack_stats_quantile(one.get(), 1.5, &out), FLOPSPACK_INVALID_ARGUMENT,
                         "q = 1.5");
  EXPECT_FLOPSPACK_ERROR(flopspack_stats_expected_max(one.get(), 0, &out),
                         FLOPSPACK_INVALID_ARGUMENT, "draws = 0");
  EXPECT_FLOPSPACK_ERROR(flopspack_stats_weighted_quantile(one.get(), 9, 0.5, &out),
                         FLOPSPACK_INVALID_ARGUMENT, "weighting = 9");
  EXPECT_FLOPSPACK_ERROR(flopspack_stats_cdf(one.get(), FLOPSPACK_STATS_WEIGHT_COST, 5, &out),
                         FLOPSPACK_INVALID_ARGUMENT, "without a cost model");
  EXPECT_FLOPSPACK_ERROR(flopspack_stats_ks_distance(one.get(), empty.get(), &out),
                         FLOPSPACK_INVALID_ARGUMENT, "b is empty");
  EXPECT_FLOPSPACK_ERROR(flopspack_stats_ks_distance(nullptr, one.get(), &out),
                         FLOPSPACK_INVALID_ARGUMENT, "a must not be NULL");
  EXPECT_EQ(out, -7);  // nothing written on failure
  flopspack_stats_summary sum;
  sum.struct_size = 0;
  EXPECT_FLOPSPACK_ERROR(flopspack_stats_summarize(one.get(), &sum), FLOPSPACK_INVALID_ARGUMENT,
                         "struct_size = 0");
  flopspack_stats_destroy(nullptr);
}

TEST(StatsBadInputTest, HistogramOptions) {
  StatsPtr s = Make({1, 2, 3});
  size_t bins = 99;
  flopspack_histogram_options o;
  flopspack_histogram_options_init(&o);
  o.binning = 5;
  EXPECT_FLOPSPACK_ERROR(flopspack_stats_histogram(s.get(), &o, nullptr, nullptr, 0, &bins),
                         FLOPSPACK_INVALID_ARGUMENT, "binning = 5");
  flopspack_histogram_options_init(&o);
  o.width = -3;
  EXPECT_FLOPSPACK_ERROR(flopspack_stats_histogram(s.get(), &o, nullptr, nullptr, 0, &bins),
                         FLOPSPACK_INVALID_ARGUMENT, "width = -3");
  // A newer caller's larger struct with a non-zero unknown tail is refused.
  struct Bigger {
    flopspack_histogram_options o;
    int64_t extra;
  } bigger;
  std::memset(&bigger, 0, sizeof bigger);
  flopspack_histogram_options_init(&bigger.o);
  bigger.o.struct_size = sizeof bigger;
  bigger.extra = 1;
  EXPECT_FLOPSPACK_ERROR(flopspack_stats_histogram(s.get(), &bigger.o, nullptr, nullptr, 0, &bins),
                         FLOPSPACK_INVALID_ARGUMENT, "unknown tail");
  EXPECT_EQ(bins, 99u);
  bigger.extra = 0;
  EXPECT_EQ(flopspack_stats_histogram(s.get(), &bigger.o, nullptr, nullptr, 0, &bins),
            FLOPSPACK_OK);
  EXPECT_EQ(bins, 3u);
  EXPECT_FLOPSPACK_ERROR(flopspack_stats_histogram(s.get(), nullptr, nullptr, nullptr, 0, nullptr),
                         FLOPSPACK_INVALID_ARGUMENT, "num_bins must not be NULL");
}

// Costs as trained through the C ABI: a 2,700,000-token document at a
// sequence length of 8192 is 329 pieces of 8192 and one of 4832; options
// NULL (or cost_capacity 0) is flopspack_stats_create exactly.
TEST(StatsCapiTest, CostCapacityCostsTheTrainedPieces) {
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_polynomial(5, 1, 2, 0.01, &model), FLOPSPACK_OK);
  auto doc = [](double l) { return 1 + 2 * l + 0.01 * l * l; };
  const int64_t lengths[] = {2700000, 100, 8192};
  flopspack_stats_options options;
  flopspack_stats_options_init(&options);
  EXPECT_EQ(options.struct_size, sizeof(options));
  EXPECT_EQ(options.cost_capacity, 0);
  flopspack_stats *plain = nullptr, *null_options = nullptr, *trained = nullptr;
  ASSERT_EQ(flopspack_stats_create(lengths, 3, model, &plain), FLOPSPACK_OK);
  ASSERT_EQ(flopspack_stats_create_with_options(lengths, nullptr, 3, model, nullptr, &null_options),
            FLOPSPACK_OK);
  options.cost_capacity = 8192;
  ASSERT_EQ(flopspack_stats_create_with_options(lengths, nullptr, 3, model, &options, &trained),
            FLOPSPACK_OK);
  flopspack_stats_summary a{}, b{}, t{};
  a.struct_size = b.struct_size = t.struct_size = sizeof(a);
  ASSERT_EQ(flopspack_stats_summarize(plain, &a), FLOPSPACK_OK);
  ASSERT_EQ(flopspack_stats_summarize(null_options, &b), FLOPSPACK_OK);
  ASSERT_EQ(flopspack_stats_summarize(trained, &t), FLOPSPACK_OK);
  EXPECT_EQ(std::memcmp(&a, &b, sizeof(a)), 0);
  const double pieces = 329 * doc(8192) + doc(4832);
  EXPECT_DOUBLE_EQ(t.max_cost, pieces);
  EXPECT_DOUBLE_EQ(t.total_cost, pieces + doc(100) + doc(8192));
  EXPECT_DOUBLE_EQ(a.max_cost, doc(2700000));
  EXPECT_EQ(t.tokens, a.tokens);
  flopspack_stats_tail tail{};
  tail.struct_size = sizeof(tail);
  ASSERT_EQ(flopspack_stats_tail_share(trained, 131072, &tail), FLOPSPACK_OK);
  EXPECT_DOUBLE_EQ(tail.cost, pieces);
  // The histogram form: counts[i] documents of length lengths[i].
  const uint64_t counts[] = {2, 3, 0};
  flopspack_stats* histogram = nullptr;
  ASSERT_EQ(flopspack_stats_create_with_options(lengths, counts, 3, model, &options, &histogram),
            FLOPSPACK_OK);
  flopspack_stats_summary h{};
  h.struct_size = sizeof(h);
  ASSERT_EQ(flopspack_stats_summarize(histogram, &h), FLOPSPACK_OK);
  EXPECT_DOUBLE_EQ(h.total_cost, 2 * pieces + 3 * doc(100));
  for (flopspack_stats* s : {plain, null_options, trained, histogram}) flopspack_stats_destroy(s);
  flopspack_cost_model_destroy(model);
}

}  // namespace
