// Length buckets and the bucket sampler through the shared library: results,
// the options struct rules, and the bad-input rows of docs/buckets.md.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <numeric>
#include <vector>

#include "capi_test_util.h"

namespace {

std::vector<int64_t> BucketLengths(size_t n) {
  // Deterministic mix of short and long samples, 1 .. 2000.
  std::vector<int64_t> lengths(n);
  uint64_t x = 12345;
  for (int64_t& l : lengths) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const double u = static_cast<double>(x >> 11) * 0x1.0p-53;
    l = 1 + static_cast<int64_t>(1999 * u * u * u);
  }
  return lengths;
}

flopspack_bucket_sampler_options BucketOptions() {
  flopspack_bucket_sampler_options o;
  flopspack_bucket_sampler_options_init(&o);
  o.num_buckets = 8;
  o.max_padded_tokens = 8000;
  o.num_ranks = 4;
  o.accumulation_steps = 2;
  o.seed = 5;
  return o;
}

TEST(BucketsCapiTest, OptimizeAndPadding) {
  const std::vector<int64_t> lengths = {1, 2, 3, 10, 11, 12};
  std::vector<int64_t> bounds(2, -1);
  ASSERT_EQ(flopspack_buckets_optimize(lengths.data(), lengths.size(), 2, bounds.data()),
            FLOPSPACK_OK);
  EXPECT_EQ(bounds, (std::vector<int64_t>{3, 12}));
  int64_t padding = -1;
  ASSERT_EQ(flopspack_buckets_padding(lengths.data(), lengths.size(), bounds.data(), 2, &padding),
            FLOPSPACK_OK);
  EXPECT_EQ(padding, 2 + 1 + 2 + 1);
  // Fewer distinct lengths than buckets: the longest repeats.
  std::vector<int64_t> many(5, -1);
  ASSERT_EQ(flopspack_buckets_optimize(lengths.data(), 3, 5, many.data()), FLOPSPACK_OK);
  EXPECT_EQ(many, (std::vector<int64_t>{1, 2, 3, 3, 3}));
}

TEST(BucketsCapiTest, OptimizeBadInputLeavesOutputAlone) {
  const std::vector<int64_t> lengths = {4, 0, 5};
  std::vector<int64_t> bounds(2, -7);
  EXPECT_FLOPSPACK_ERROR(flopspack_buckets_optimize(lengths.data(), 3, 2, bounds.data()),
                         FLOPSPACK_INVALID_ARGUMENT, "lengths[1] = 0");
  EXPECT_EQ(bounds, (std::vector<int64_t>(2, -7)));
  EXPECT_FLOPSPACK_ERROR(flopspack_buckets_optimize(lengths.data(), 1, 0, bounds.data()),
                         FLOPSPACK_INVALID_ARGUMENT, "num_buckets = 0");
  EXPECT_FLOPSPACK_ERROR(flopspack_buckets_optimize(nullptr, 3, 2, bounds.data()),
                         FLOPSPACK_INVALID_ARGUMENT, "lengths is NULL");
  EXPECT_FLOPSPACK_ERROR(flopspack_buckets_optimize(lengths.data(), 1, 2, nullptr),
                         FLOPSPACK_INVALID_ARGUMENT, "upper_bounds is NULL");
  EXPECT_FLOPSPACK_ERROR(flopspack_buckets_optimize(nullptr, 0, 2, bounds.data()),
                         FLOPSPACK_INVALID_ARGUMENT, "lengths is empty");
  int64_t padding = -3;
  const int64_t small[] = {3};
  EXPECT_FLOPSPACK_ERROR(flopspack_buckets_padding(lengths.data(), 1, small, 1, &padding),
                         FLOPSPACK_INVALID_ARGUMENT, "exceeds the largest upper bound 3");
  EXPECT_EQ(padding, -3);
  EXPECT_FLOPSPACK_ERROR(flopspack_buckets_padding(small, 1, small, 1, nullptr),
                         FLOPSPACK_INVALID_ARGUMENT, "out_padding");
}

TEST(BucketsCapiTest, SamplerEpochStepsAndSlots) {
  const std::vector<int64_t> lengths = BucketLengths(4000);
  const flopspack_bucket_sampler_options o = BucketOptions();
  flopspack_bucket_sampler* sampler = nullptr;
  ASSERT_EQ(flopspack_bucket_sampler_create(&o, nullptr, lengths.data(), lengths.size(), &sampler),
            FLOPSPACK_OK)
      << flopspack_last_error_message();
  uint64_t steps = 0;
  ASSERT_EQ(flopspack_bucket_sampler_steps_per_epoch(sampler, &steps), FLOPSPACK_OK);
  ASSERT_GT(steps, 0u);
  const int64_t* bounds = nullptr;
  size_t num_bounds = 0;
  ASSERT_EQ(flopspack_bucket_sampler_upper_bounds(sampler, &bounds, &num_bounds), FLOPSPACK_OK);
  ASSERT_EQ(num_bounds, 8u);
  EXPECT_EQ(bounds[7], *std::max_element(lengths.begin(), lengths.end()));

  flopspack_plan* plan = nullptr;
  ASSERT_EQ(flopspack_bucket_sampler_epoch(sampler, 3, &plan), FLOPSPACK_OK);
  ASSERT_EQ(flopspack_plan_group_count(plan), steps * 8);
  std::vector<int> seen(lengths.size(), 0);
  for (size_t g = 0; g < flopspack_plan_group_count(plan); ++g) {
    size_t rank = 99, slot = 99;
    ASSERT_EQ(flopspack_plan_group_slot(plan, g, &rank, &slot), FLOPSPACK_OK);
    EXPECT_EQ(rank, (g % 8) / 2);
    EXPECT_EQ(slot, (g / 8) * 2 + g % 2);
    const int64_t* items = nullptr;
    size_t n = 0;
    ASSERT_EQ(flopspack_plan_group(plan, g, &items, nullptr, &n), FLOPSPACK_OK);
    int64_t real = 0, computed = 0, longest = 0;
    for (size_t k = 0; k < n; ++k) {
      ++seen[items[k]];
      longest = std::max(longest, lengths[items[k]]);
    }
    ASSERT_EQ(flopspack_plan_group_info(plan, g, &real, &computed, nullptr), FLOPSPACK_OK);
    EXPECT_EQ(computed, static_cast<int64_t>(n) * longest);
    EXPECT_LE(computed, o.max_padded_tokens);
  }
  for (int s : seen) EXPECT_EQ(s, 1);
  struct flopspack_plan_metrics m;
  m.struct_size = sizeof(m);
  ASSERT_EQ(flopspack_plan_metrics(plan, &m), FLOPSPACK_OK);
  EXPECT_EQ(m.num_steps, steps);
  EXPECT_EQ(m.num_ranks, 4u);
  EXPECT_EQ(m.dropped_items, 0u);
  EXPECT_GT(m.padding_efficiency, 0.8);
  EXPECT_GT(m.balance_efficiency, 0.5);
  EXPECT_LE(m.balance_efficiency, 1.0);

  // Per-step diversity: a size query, a too-small buffer, then the values,
  // whose mean is the plan's metric.
  size_t num_steps = 0;
  ASSERT_EQ(flopspack_bucket_sampler_step_diversity(sampler, plan, nullptr, nullptr, 0, &num_steps),
            FLOPSPACK_OK);
  ASSERT_EQ(num_steps, steps);
  std::vector<double> tokens(num_steps, -1), samples(num_steps, -1);
  size_t unchanged = 12345;
  EXPECT_FLOPSPACK_ERROR(flopspack_bucket_sampler_step_diversity(
                             sampler, plan, tokens.data(), nullptr, num_steps - 1, &unchanged),
                         FLOPSPACK_BUFFER_TOO_SMALL, "capacity");
  EXPECT_EQ(unchanged, 12345u);
  ASSERT_EQ(flopspack_bucket_sampler_step_diversity(sampler, plan, tokens.data(), samples.data(),
                                                    num_steps, &num_steps),
            FLOPSPACK_OK);
  const double mean = std::accumulate(tokens.begin(), tokens.end(), 0.0) / num_steps;
  EXPECT_NEAR(mean, m.diversity_distance, 1e-12);
  for (double d : samples) {
    EXPECT_GE(d, 0);
    EXPECT_LE(d, 1);
  }

  // A step plan holds exactly that step's groups, with the same slots.
  flopspack_plan* step = nullptr;
  ASSERT_EQ(flopspack_bucket_sampler_step(sampler, 3, 1, &step), FLOPSPACK_OK);
  ASSERT_EQ(flopspack_plan_group_count(step), 8u);
  for (size_t k = 0; k < 8; ++k) {
    const int64_t *a = nullptr, *b = nullptr;
    size_t na = 0, nb = 0, ra = 0, sa = 0, rb = 0, sb = 0;
    ASSERT_EQ(flopspack_plan_group(step, k, &a, nullptr, &na), FLOPSPACK_OK);
    ASSERT_EQ(flopspack_plan_group(plan, 8 + k, &b, nullptr, &nb), FLOPSPACK_OK);
    ASSERT_EQ(na, nb);
    EXPECT_TRUE(std::equal(a, a + na, b));
    ASSERT_EQ(flopspack_plan_group_slot(step, k, &ra, &sa), FLOPSPACK_OK);
    ASSERT_EQ(flopspack_plan_group_slot(plan, 8 + k, &rb, &sb), FLOPSPACK_OK);
    EXPECT_EQ(ra, rb);
    EXPECT_EQ(sa, sb);
  }
  ASSERT_EQ(
      flopspack_bucket_sampler_step_diversity(sampler, step, tokens.data(), nullptr, 1, &num_steps),
      FLOPSPACK_OK);
  EXPECT_EQ(num_steps, 1u);
  struct flopspack_plan_metrics sm;
  sm.struct_size = sizeof(sm);
  ASSERT_EQ(flopspack_plan_metrics(step, &sm), FLOPSPACK_OK);
  EXPECT_EQ(sm.num_steps, 1u);
  EXPECT_DOUBLE_EQ(tokens[0], sm.diversity_distance);
  flopspack_plan* untouched = reinterpret_cast<flopspack_plan*>(0x1);
  EXPECT_FLOPSPACK_ERROR(flopspack_bucket_sampler_step(sampler, 3, steps, &untouched),
                         FLOPSPACK_OUT_OF_RANGE, "out of range");
  EXPECT_EQ(untouched, reinterpret_cast<flopspack_plan*>(0x1));

  flopspack_plan_destroy(step);
  flopspack_plan_destroy(plan);
  flopspack_bucket_sampler_destroy(sampler);
  flopspack_bucket_sampler_destroy(nullptr);
}

TEST(BucketsCapiTest, DropLastListsDroppedSamples) {
  const std::vector<int64_t> lengths = BucketLengths(1001);
  flopspack_bucket_sampler_options o = BucketOptions();
  o.drop_last = 1;
  o.num_ranks = 7;
  o.accumulation_steps = 3;
  flopspack_bucket_sampler* sampler = nullptr;
  ASSERT_EQ(flopspack_bucket_sampler_create(&o, nullptr, lengths.data(), lengths.size(), &sampler),
            FLOPSPACK_OK);
  flopspack_plan* plan = nullptr;
  ASSERT_EQ(flopspack_bucket_sampler_epoch(sampler, 0, &plan), FLOPSPACK_OK);
  const int64_t* dropped = nullptr;
  size_t num_dropped = 0;
  ASSERT_EQ(flopspack_plan_dropped(plan, &dropped, &num_dropped), FLOPSPACK_OK);
  struct flopspack_plan_metrics m;
  m.struct_size = sizeof(m);
  ASSERT_EQ(flopspack_plan_metrics(plan, &m), FLOPSPACK_OK);
  EXPECT_EQ(m.dropped_items, num_dropped);
  size_t placed = 0;
  for (size_t g = 0; g < flopspack_plan_group_count(plan); ++g) {
    size_t n = 0;
    ASSERT_EQ(flopspack_plan_group(plan, g, nullptr, nullptr, &n), FLOPSPACK_OK);
    placed += n;
  }
  EXPECT_EQ(placed + num_dropped, lengths.size());
  EXPECT_EQ(flopspack_plan_group_count(plan) % 21, 0u);
  flopspack_plan_destroy(plan);
  flopspack_bucket_sampler_destroy(sampler);
}

TEST(BucketsCapiTest, CostBudgetKeepsItsOwnModelReference) {
  const std::vector<int64_t> lengths = BucketLengths(2000);
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_polynomial(10, 0, 1, 0.001, &model), FLOPSPACK_OK);
  flopspack_bucket_sampler_options o = BucketOptions();
  o.budget_kind = FLOPSPACK_BUCKET_BUDGET_COST;
  o.max_batch_cost = 20000;
  flopspack_bucket_sampler* sampler = nullptr;
  ASSERT_EQ(flopspack_bucket_sampler_create(&o, model, lengths.data(), lengths.size(), &sampler),
            FLOPSPACK_OK)
      << flopspack_last_error_message();
  flopspack_cost_model_destroy(model);  // the sampler holds its own reference
  flopspack_plan* plan = nullptr;
  ASSERT_EQ(flopspack_bucket_sampler_epoch(sampler, 1, &plan), FLOPSPACK_OK);
  for (size_t g = 0; g < flopspack_plan_group_count(plan); ++g) {
    const int64_t* items = nullptr;
    size_t n = 0;
    double cost = 0;
    ASSERT_EQ(flopspack_plan_group(plan, g, &items, nullptr, &n), FLOPSPACK_OK);
    ASSERT_EQ(flopspack_plan_group_info(plan, g, nullptr, nullptr, &cost), FLOPSPACK_OK);
    int64_t longest = 0;
    for (size_t k = 0; k < n; ++k) longest = std::max(longest, lengths[items[k]]);
    const double l = static_cast<double>(longest);
    EXPECT_DOUBLE_EQ(cost, static_cast<double>(n) * (10 + l + 0.001 * l * l));
    EXPECT_LE(cost, 20000);
  }
  flopspack_plan_destroy(plan);
  flopspack_bucket_sampler_destroy(sampler);
}

// Costs a sequence by its length, but fails once `calls` reaches zero.
int BucketCountdownCost(void* user_data, const int64_t* lengths, size_t n, double* out_cost) {
  int* calls = static_cast<int*>(user_data);
  if ((*calls)-- <= 0) return 42;
  double total = 0;
  for (size_t i = 0; i < n; ++i) total += static_cast<double>(lengths[i]);
  *out_cost = total;
  return 0;
}

TEST(BucketsCapiTest, FailingCostCallbackIsReported) {
  const std::vector<int64_t> lengths = BucketLengths(300);
  int calls = 1000000;
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_custom(BucketCountdownCost, &calls, &model), FLOPSPACK_OK);
  flopspack_bucket_sampler_options o = BucketOptions();
  flopspack_bucket_sampler* sampler = nullptr;
  ASSERT_EQ(flopspack_bucket_sampler_create(&o, model, lengths.data(), lengths.size(), &sampler),
            FLOPSPACK_OK);
  calls = 0;  // every further call fails: epoch 0 is not cached yet
  flopspack_plan* plan = reinterpret_cast<flopspack_plan*>(0x1);
  EXPECT_FLOPSPACK_ERROR(flopspack_bucket_sampler_epoch(sampler, 0, &plan),
                         FLOPSPACK_CALLBACK_FAILED, "returned 42");
  EXPECT_EQ(plan, reinterpret_cast<flopspack_plan*>(0x1));
  calls = 1000000;  // a failed epoch is not cached: it works once the callback does
  ASSERT_EQ(flopspack_bucket_sampler_epoch(sampler, 0, &plan), FLOPSPACK_OK);
  flopspack_plan_destroy(plan);
  calls = 0;  // creation with a cost budget calls the model too
  o.budget_kind = FLOPSPACK_BUCKET_BUDGET_COST;
  o.max_batch_cost = 1e6;
  flopspack_bucket_sampler* failed = reinterpret_cast<flopspack_bucket_sampler*>(0x1);
  EXPECT_FLOPSPACK_ERROR(
      flopspack_bucket_sampler_create(&o, model, lengths.data(), lengths.size(), &failed),
      FLOPSPACK_CALLBACK_FAILED, "returned 42");
  EXPECT_EQ(failed, reinterpret_cast<flopspack_bucket_sampler*>(0x1));
  flopspack_bucket_sampler_destroy(sampler);
  flopspack_cost_model_destroy(model);
}

TEST(BucketsCapiTest, OptionsStructRules) {
  const std::vector<int64_t> lengths = BucketLengths(500);
  flopspack_bucket_sampler* sampler = nullptr;
  // An older caller that stops before `seed` gets the default seed 0.
  flopspack_bucket_sampler_options older = BucketOptions();
  older.struct_size = offsetof(flopspack_bucket_sampler_options, seed);
  older.seed = 777;  // beyond the caller's struct_size: must be ignored
  ASSERT_EQ(
      flopspack_bucket_sampler_create(&older, nullptr, lengths.data(), lengths.size(), &sampler),
      FLOPSPACK_OK);
  flopspack_bucket_sampler_options zero_seed = BucketOptions();
  zero_seed.seed = 0;
  flopspack_bucket_sampler* reference = nullptr;
  ASSERT_EQ(flopspack_bucket_sampler_create(&zero_seed, nullptr, lengths.data(), lengths.size(),
                                            &reference),
            FLOPSPACK_OK);
  flopspack_plan *a = nullptr, *b = nullptr;
  ASSERT_EQ(flopspack_bucket_sampler_epoch(sampler, 0, &a), FLOPSPACK_OK);
  ASSERT_EQ(flopspack_bucket_sampler_epoch(reference, 0, &b), FLOPSPACK_OK);
  ASSERT_EQ(flopspack_plan_group_count(a), flopspack_plan_group_count(b));
  for (size_t g = 0; g < flopspack_plan_group_count(a); ++g) {
    const int64_t *ia = nullptr, *ib = nullptr;
    size_t na = 0, nb = 0;
    ASSERT_EQ(flopspack_plan_group(a, g, &ia, nullptr, &na), FLOPSPACK_OK);
    ASSERT_EQ(flopspack_plan_group(b, g, &ib, nullptr, &nb), FLOPSPACK_OK);
    ASSERT_EQ(na, nb);
    EXPECT_TRUE(std::equal(ia, ia + na, ib));
  }
  flopspack_plan_destroy(a);
  flopspack_plan_destroy(b);
  flopspack_bucket_sampler_destroy(reference);
  flopspack_bucket_sampler_destroy(sampler);

  // A newer caller's non-zero unknown tail is refused.
  struct Newer {
    flopspack_bucket_sampler_options known;
    uint64_t future;
  } newer;
  std::memset(&newer, 0, sizeof(newer));
  newer.known = BucketOptions();
  newer.known.struct_size = sizeof(newer);
  newer.future = 1;
  sampler = reinterpret_cast<flopspack_bucket_sampler*>(0x1);
  EXPECT_FLOPSPACK_ERROR(flopspack_bucket_sampler_create(&newer.known, nullptr, lengths.data(),
                                                         lengths.size(), &sampler),
                         FLOPSPACK_INVALID_ARGUMENT, "unknown tail");
  EXPECT_EQ(sampler, reinterpret_cast<flopspack_bucket_sampler*>(0x1));
  newer.future = 0;
  EXPECT_EQ(flopspack_bucket_sampler_create(&newer.known, nullptr, lengths.data(), lengths.size(),
                                            &sampler),
            FLOPSPACK_OK);
  flopspack_bucket_sampler_destroy(sampler);
}

TEST(BucketsCapiTest, SamplerBadInput) {
  const std::vector<int64_t> lengths = {10, 20, 30, 40, 50, 60, 70, 80};
  flopspack_bucket_sampler* out = reinterpret_cast<flopspack_bucket_sampler*>(0x1);
  auto create = [&](const flopspack_bucket_sampler_options& o, const flopspack_cost_model* model) {
    return flopspack_bucket_sampler_create(&o, model, lengths.data(), lengths.size(), &out);
  };
  flopspack_bucket_sampler_options o = BucketOptions();
  o.num_ranks = 1;
  o.accumulation_steps = 1;
  o.max_padded_tokens = 200;
  flopspack_bucket_sampler_options bad = o;
  bad.num_buckets = 0;
  EXPECT_FLOPSPACK_ERROR(create(bad, nullptr), FLOPSPACK_INVALID_ARGUMENT, "num_buckets = 0");
  bad = o;
  bad.max_padded_tokens = 50;
  EXPECT_FLOPSPACK_ERROR(create(bad, nullptr), FLOPSPACK_INFEASIBLE,
                         "lengths[5] = 60 exceeds max_padded_tokens = 50");
  bad = o;
  bad.max_padded_tokens = 0;
  EXPECT_FLOPSPACK_ERROR(create(bad, nullptr), FLOPSPACK_INVALID_ARGUMENT, "max_padded_tokens = 0");
  bad = o;
  bad.budget_kind = 7;
  EXPECT_FLOPSPACK_ERROR(create(bad, nullptr), FLOPSPACK_INVALID_ARGUMENT, "budget_kind = 7");
  bad = o;
  bad.budget_kind = FLOPSPACK_BUCKET_BUDGET_COST;
  bad.max_batch_cost = 100;
  EXPECT_FLOPSPACK_ERROR(create(bad, nullptr), FLOPSPACK_INVALID_ARGUMENT, "model is NULL");
  bad = o;
  bad.drop_last = 2;
  EXPECT_FLOPSPACK_ERROR(create(bad, nullptr), FLOPSPACK_INVALID_ARGUMENT, "drop_last = 2");
  bad = o;
  bad.num_ranks = 0;
  EXPECT_FLOPSPACK_ERROR(create(bad, nullptr), FLOPSPACK_INVALID_ARGUMENT, "num_ranks = 0");
  bad = o;
  bad.num_ranks = 5;
  bad.accumulation_steps = 2;
  EXPECT_FLOPSPACK_ERROR(create(bad, nullptr), FLOPSPACK_INFEASIBLE, "pad_last");
  bad = o;
  bad.num_upper_bounds = 3;
  EXPECT_FLOPSPACK_ERROR(create(bad, nullptr), FLOPSPACK_INVALID_ARGUMENT,
                         "options->upper_bounds is NULL");
  const int64_t short_bounds[] = {20, 40};
  bad.upper_bounds = short_bounds;
  bad.num_upper_bounds = 2;
  EXPECT_FLOPSPACK_ERROR(create(bad, nullptr), FLOPSPACK_INVALID_ARGUMENT,
                         "exceeds the largest upper bound 40");
  bad = o;
  bad.struct_size = 0;
  EXPECT_FLOPSPACK_ERROR(create(bad, nullptr), FLOPSPACK_INVALID_ARGUMENT, "struct_size = 0");
  EXPECT_FLOPSPACK_ERROR(
      flopspack_bucket_sampler_create(nullptr, nullptr, lengths.data(), lengths.size(), &out),
      FLOPSPACK_INVALID_ARGUMENT, "options must not be NULL");
  EXPECT_FLOPSPACK_ERROR(flopspack_bucket_sampler_create(&o, nullptr, nullptr, 3, &out),
                         FLOPSPACK_INVALID_ARGUMENT, "lengths is NULL");
  EXPECT_EQ(out, reinterpret_cast<flopspack_bucket_sampler*>(0x1));
  EXPECT_FLOPSPACK_ERROR(flopspack_bucket_sampler_epoch(nullptr, 0, nullptr),
                         FLOPSPACK_INVALID_ARGUMENT, "sampler must not be NULL");
  uint64_t steps = 0;
  EXPECT_FLOPSPACK_ERROR(flopspack_bucket_sampler_steps_per_epoch(nullptr, &steps),
                         FLOPSPACK_INVALID_ARGUMENT, "sampler");
}

}  // namespace

namespace {

TEST(BucketsCapiTest, StreamPlacesEverySampleOnceThroughTheLibrary) {
  // 2,003 samples, buffer 500: four full chunks and a tail of 3 samples, too
  // small for a step of 8 batches (listed as leftover).
  const std::vector<int64_t> lengths = BucketLengths(2003);
  flopspack_bucket_sampler_options o = BucketOptions();
  flopspack_bucket_stream* stream = nullptr;
  ASSERT_EQ(flopspack_bucket_stream_create(&o, nullptr, 500, &stream), FLOPSPACK_OK);
  std::vector<int> seen(lengths.size(), 0);
  size_t at = 0;
  uint64_t taken = 0;
  auto drain = [&] {
    uint64_t ready = 0;
    ASSERT_EQ(flopspack_bucket_stream_ready(stream, &ready), FLOPSPACK_OK);
    for (; ready > 0; --ready) {
      flopspack_plan* plan = nullptr;
      ASSERT_EQ(flopspack_bucket_stream_take(stream, &plan), FLOPSPACK_OK);
      ASSERT_EQ(flopspack_plan_group_count(plan), 8u);
      for (size_t g = 0; g < 8; ++g) {
        const int64_t* items = nullptr;
        size_t n = 0;
        ASSERT_EQ(flopspack_plan_group(plan, g, &items, nullptr, &n), FLOPSPACK_OK);
        for (size_t k = 0; k < n; ++k) ++seen[items[k]];
        size_t rank = 0, slot = 0;
        ASSERT_EQ(flopspack_plan_group_slot(plan, g, &rank, &slot), FLOPSPACK_OK);
        EXPECT_EQ(slot / 2, taken);  // slots count steps over the whole stream
      }
      flopspack_plan_destroy(plan);
      ++taken;
      ASSERT_EQ(flopspack_bucket_stream_ready(stream, &ready), FLOPSPACK_OK);
      ++ready;
    }
  };
  while (at < lengths.size()) {
    size_t accepted = 0;
    const size_t n = std::min<size_t>(300, lengths.size() - at);
    ASSERT_EQ(flopspack_bucket_stream_push(stream, lengths.data() + at, n, &accepted),
              FLOPSPACK_OK);
    at += accepted;
    drain();
  }
  ASSERT_EQ(flopspack_bucket_stream_flush(stream), FLOPSPACK_OK);
  drain();
  const int64_t* items = nullptr;
  size_t n = 0;
  ASSERT_EQ(flopspack_bucket_stream_leftover(stream, &items, &n), FLOPSPACK_OK);
  ASSERT_EQ(n, 3u);
  for (size_t k = 0; k < n; ++k) {
    EXPECT_EQ(items[k], static_cast<int64_t>(2000 + k));
    ++seen[items[k]];
  }
  ASSERT_EQ(flopspack_bucket_stream_deferred(stream, &items, &n), FLOPSPACK_OK);
  EXPECT_EQ(n, 0u);
  for (size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i], 1) << "sample " << i;
  flopspack_plan* none = reinterpret_cast<flopspack_plan*>(uintptr_t{0x1});
  EXPECT_EQ(flopspack_bucket_stream_take(stream, &none), FLOPSPACK_OUT_OF_RANGE);
  EXPECT_EQ(none, reinterpret_cast<flopspack_plan*>(uintptr_t{0x1}));
  flopspack_bucket_stream_destroy(stream);
  flopspack_bucket_stream_destroy(nullptr);
}

TEST(BucketsCapiTest, DiagnoseThroughTheLibrary) {
  const std::vector<int64_t> lengths = BucketLengths(3000);
  flopspack_bucket_sampler_options o = BucketOptions();
  flopspack_bucket_sampler* sampler = nullptr;
  ASSERT_EQ(flopspack_bucket_sampler_create(&o, nullptr, lengths.data(), lengths.size(), &sampler),
            FLOPSPACK_OK);
  flopspack_plan* plan = nullptr;
  ASSERT_EQ(flopspack_bucket_sampler_epoch(sampler, 1, &plan), FLOPSPACK_OK);
  struct flopspack_plan_metrics m;
  m.struct_size = sizeof(m);
  ASSERT_EQ(flopspack_plan_metrics(plan, &m), FLOPSPACK_OK);
  flopspack_bucket_sampler_diagnostics d;
  d.struct_size = sizeof(d);
  // Impossible targets: every bit set, shortfalls equal to the gaps.
  ASSERT_EQ(flopspack_bucket_sampler_diagnose(sampler, 1, 1.0, 1.0, 0.0, &d), FLOPSPACK_OK);
  EXPECT_EQ(d.balance_efficiency, m.balance_efficiency);
  EXPECT_EQ(d.padding_efficiency, m.padding_efficiency);
  EXPECT_EQ(d.diversity_distance, m.diversity_distance);
  EXPECT_EQ(d.unmet, static_cast<uint32_t>(FLOPSPACK_BUCKET_TARGET_BALANCE |
                                           FLOPSPACK_BUCKET_TARGET_PADDING |
                                           FLOPSPACK_BUCKET_TARGET_DIVERSITY));
  EXPECT_DOUBLE_EQ(d.balance_shortfall, 1.0 - m.balance_efficiency);
  EXPECT_DOUBLE_EQ(d.diversity_excess, m.diversity_distance);
  EXPECT_DOUBLE_EQ(d.diversity_floor, 0.5 / 8);
  // Trivial targets: nothing unmet.
  ASSERT_EQ(flopspack_bucket_sampler_diagnose(sampler, 1, 0.0, 0.0, 1.0, &d), FLOPSPACK_OK);
  EXPECT_EQ(d.unmet, 0u);
  EXPECT_EQ(d.balance_shortfall, 0.0);
  // An older, smaller struct gets only its fields.
  struct {
    flopspack_bucket_sampler_diagnostics d;
  } small;
  std::memset(&small, 0x7F, sizeof(small));
  small.d.struct_size = offsetof(flopspack_bucket_sampler_diagnostics, balance_shortfall);
  ASSERT_EQ(flopspack_bucket_sampler_diagnose(sampler, 1, 1.0, 1.0, 0.0, &small.d), FLOPSPACK_OK);
  EXPECT_EQ(small.d.balance_efficiency, m.balance_efficiency);
  unsigned char after;
  std::memcpy(&after, &small.d.balance_shortfall, 1);
  EXPECT_EQ(after, 0x7F);
  flopspack_plan_destroy(plan);
  flopspack_bucket_sampler_destroy(sampler);
}

}  // namespace
