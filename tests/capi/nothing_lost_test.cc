// Nothing lost: for every algorithm and policy, over random inputs through
// the C ABI, every document is placed (whole or in pieces), truncated,
// deferred or dropped, each of those counted in the metrics and listed, and
// the token sum is preserved: placed + truncated + deferred + dropped =
// input tokens. A wrong implementation that forgets a document, places one
// twice, or miscounts a policy fails here.
#include <algorithm>
#include <numeric>
#include <thread>
#include <vector>

#include "capi_test_util.h"
#include "plan_reader.h"

namespace {

using flopspack_test::ExpectSamePlan;
using flopspack_test::Place;
using flopspack_test::Placement;
using flopspack_test::Random;
using flopspack_test::ReadBack;
using flopspack_test::ReadPlan;

int64_t Sum(const std::vector<int64_t>& v) {
  return std::accumulate(v.begin(), v.end(), int64_t{0});
}

TEST(NothingLostTest, PackEveryAlgorithmAndOverflowPolicy) {
  Random rng(1);
  const int32_t policies[] = {FLOPSPACK_OVERFLOW_ERROR, FLOPSPACK_OVERFLOW_TRUNCATE,
                              FLOPSPACK_OVERFLOW_SPLIT};
  int cases = 0;
  for (int32_t algorithm = 0; algorithm <= 3; ++algorithm) {
    for (int32_t policy : policies) {
      for (int trial = 0; trial < 150; ++trial, ++cases) {
        flopspack_pack_options o;
        flopspack_pack_options_init(&o);
        o.algorithm = algorithm;
        o.overflow = policy;
        o.capacity = rng.Uniform(1, 200);
        o.seed = static_cast<uint64_t>(trial);
        const int64_t hi = policy == FLOPSPACK_OVERFLOW_ERROR ? o.capacity : 3 * o.capacity;
        const std::vector<int64_t> lengths =
            rng.Lengths(static_cast<size_t>(rng.Uniform(0, 80)), hi);
        flopspack_plan* plan = nullptr;
        ASSERT_EQ(flopspack_pack(&o, lengths.data(), lengths.size(), &plan), FLOPSPACK_OK)
            << flopspack_last_error_message();
        const ReadPlan r = ReadBack(plan);
        const Placement p = Place(r, lengths.size());
        uint64_t split = 0, truncated = 0;
        int64_t truncated_tokens = 0;
        for (size_t i = 0; i < lengths.size(); ++i) {
          ASSERT_GE(p.pieces[i], 1) << "document " << i << " lost";
          if (lengths[i] > o.capacity && policy == FLOPSPACK_OVERFLOW_TRUNCATE) {
            EXPECT_EQ(p.tokens[i], o.capacity);
            ++truncated;
            truncated_tokens += lengths[i] - o.capacity;
          } else {
            EXPECT_EQ(p.tokens[i], lengths[i]);
            split += p.pieces[i] > 1 ? 1 : 0;
          }
        }
        for (int64_t real : r.real) EXPECT_LE(real, o.capacity);
        EXPECT_EQ(r.metrics.split_items, split);
        EXPECT_EQ(r.metrics.truncated_items, truncated);
        EXPECT_EQ(r.metrics.truncated_tokens, truncated_tokens);
        EXPECT_EQ(r.metrics.real_tokens + r.metrics.truncated_tokens, Sum(lengths));
        EXPECT_EQ(r.metrics.num_items, lengths.size());
        flopspack_plan_destroy(plan);
      }
    }
  }
  EXPECT_EQ(cases, 4 * 3 * 150);
}

// A corpus shaped like source code: short documents, 2,000 copies of one
// length, a Pareto tail (alpha 1) running to 1,000x the cap and one
// 3M-token document. flopspack_pack keeps its arrays in the calling thread's
// context (docs/planner.md, "Step after step in one context"), so a pack
// reuses storage a previous pack wrote: split packs alternate here with a
// pack of whole documents (whose piece offsets the packer writes as zeros
// in reused storage) and a step plan. Every token of every document is
// placed once (or truncated and counted), pieces tile their document, and
// the same pack on this used thread equals a fresh thread's, so stale
// offsets or positions left in reused storage would fail here.
TEST(NothingLostTest, PackAHeavyTailOnAThreadThatKeepsItsStorage) {
  constexpr int64_t kCap = 4096;
  Random rng(29);
  std::vector<int64_t> heavy;
  for (int i = 0; i < 4000; ++i) heavy.push_back(rng.Uniform(1, 3000));
  for (int i = 0; i < 2000; ++i) heavy.push_back(2411);
  for (int i = 0; i < 120; ++i) {
    // P(length > x cap) = 1 / x from the cap to 1,000x it.
    const double u = static_cast<double>(rng.Uniform(1000, 1000000)) / 1e6;
    heavy.push_back(static_cast<int64_t>(static_cast<double>(kCap) / u));
  }
  heavy.push_back(3'000'000);
  std::swap(heavy[17], heavy.back());  // not last: order must not matter
  const std::vector<int64_t> whole = rng.Lengths(3000, kCap);
  const int64_t heavy_tokens = std::accumulate(heavy.begin(), heavy.end(), int64_t{0});
  ASSERT_GE(*std::max_element(heavy.begin(), heavy.end()), 3'000'000);

  flopspack_cost_model* model = flopspack_test::SmallTransformerModel();
  for (int32_t algorithm = 0; algorithm <= 3; ++algorithm) {
    SCOPED_TRACE(algorithm);
    flopspack_pack_options o;
    flopspack_pack_options_init(&o);
    o.algorithm = algorithm;
    o.capacity = kCap;
    o.seed = 5;
    const auto pack = [&o](const std::vector<int64_t>& lengths, int32_t policy) {
      flopspack_pack_options p = o;
      p.overflow = policy;
      flopspack_plan* plan = nullptr;
      EXPECT_EQ(flopspack_pack(&p, lengths.data(), lengths.size(), &plan), FLOPSPACK_OK)
          << flopspack_last_error_message();
      return plan;
    };

    flopspack_plan* split = pack(heavy, FLOPSPACK_OVERFLOW_SPLIT);
    ASSERT_NE(split, nullptr);
    {
      const ReadPlan r = ReadBack(split);
      const Placement p = Place(r, heavy.size());
      uint64_t split_items = 0;
      for (size_t i = 0; i < heavy.size(); ++i) {
        ASSERT_EQ(p.tokens[i], heavy[i]) << "document " << i;
        EXPECT_EQ(p.pieces[i], (heavy[i] + kCap - 1) / kCap) << "document " << i;
        split_items += p.pieces[i] > 1 ? 1 : 0;
      }
      for (int64_t real : r.real) EXPECT_LE(real, kCap);
      EXPECT_EQ(r.metrics.split_items, split_items);
      EXPECT_EQ(r.metrics.real_tokens, heavy_tokens);
    }

    // Whole documents in the storage the split pack used, while it lives.
    flopspack_plan* plain = pack(whole, FLOPSPACK_OVERFLOW_ERROR);
    ASSERT_NE(plain, nullptr);
    {
      const ReadPlan r = ReadBack(plain);
      const Placement p = Place(r, whole.size());
      for (size_t i = 0; i < whole.size(); ++i) {
        ASSERT_EQ(p.pieces[i], 1) << "document " << i;
        ASSERT_EQ(p.tokens[i], whole[i]) << "document " << i;
      }
      for (const auto& offsets : r.offsets) {
        for (int64_t offset : offsets) ASSERT_EQ(offset, 0);
      }
    }
    flopspack_plan_destroy(split);

    // A step plan between packs, then the truncating pack: counted, never
    // silent.
    flopspack_step_options s;
    flopspack_step_options_init(&s);
    s.num_ranks = 16;
    s.microbatches_per_rank = 4;
    s.max_tokens_per_microbatch = kCap;
    s.overflow = FLOPSPACK_OVERFLOW_DEFER;  // the step holds a tenth of `whole`
    flopspack_plan* step = nullptr;
    ASSERT_EQ(flopspack_plan_step(&s, model, whole.data(), whole.size(), &step), FLOPSPACK_OK);
    flopspack_plan* truncated = pack(heavy, FLOPSPACK_OVERFLOW_TRUNCATE);
    ASSERT_NE(truncated, nullptr);
    {
      const ReadPlan r = ReadBack(truncated);
      const Placement p = Place(r, heavy.size());
      int64_t cut = 0;
      for (size_t i = 0; i < heavy.size(); ++i) {
        ASSERT_EQ(p.tokens[i], std::min(heavy[i], kCap)) << "document " << i;
        cut += heavy[i] - std::min(heavy[i], kCap);
      }
      EXPECT_EQ(r.metrics.truncated_tokens, cut);
      EXPECT_EQ(r.metrics.real_tokens + r.metrics.truncated_tokens, heavy_tokens);
    }

    // The split pack again on this used thread equals a fresh thread's.
    flopspack_plan* again = pack(heavy, FLOPSPACK_OVERFLOW_SPLIT);
    flopspack_plan* fresh = nullptr;
    std::thread([&] { fresh = pack(heavy, FLOPSPACK_OVERFLOW_SPLIT); }).join();
    ASSERT_NE(again, nullptr);
    ASSERT_NE(fresh, nullptr);
    ExpectSamePlan(again, fresh, "split pack: used thread vs fresh thread");
    for (flopspack_plan* p : {plain, step, truncated, again, fresh}) flopspack_plan_destroy(p);
  }
  flopspack_cost_model_destroy(model);
}

TEST(NothingLostTest, BalanceEveryAlgorithmWithAndWithoutCaps) {
  Random rng(2);
  for (int32_t algorithm = 0; algorithm <= 3; ++algorithm) {
    for (int trial = 0; trial < 200; ++trial) {
      flopspack_balance_options o;
      flopspack_balance_options_init(&o);
      o.algorithm = algorithm;
      o.num_groups = rng.Uniform(1, 9);
      o.equal_count = static_cast<int32_t>(rng.Uniform(0, 1));
      o.refine = static_cast<int32_t>(rng.Uniform(0, 1));
      o.seed = static_cast<uint64_t>(trial);
      const size_t n = static_cast<size_t>(rng.Uniform(0, 120));
      std::vector<double> costs(n);
      std::vector<int64_t> tokens = rng.Lengths(n, 100);
      for (size_t i = 0; i < n; ++i) costs[i] = static_cast<double>(rng.Uniform(0, 1000)) / 8;
      // A loose cap (always feasible: the largest item or an even share
      // with room) on half of the cases.
      const bool capped = trial % 2 == 0;
      if (capped) {
        const int64_t total = Sum(tokens);
        o.max_tokens_per_group = std::max<int64_t>(100, 2 * (total / o.num_groups + 100));
        o.equal_count = 0;
      }
      flopspack_plan* plan = nullptr;
      ASSERT_EQ(flopspack_balance(&o, costs.data(), tokens.data(), n, &plan), FLOPSPACK_OK)
          << flopspack_last_error_message();
      const ReadPlan r = ReadBack(plan);
      ASSERT_EQ(r.items.size(), static_cast<size_t>(o.num_groups));
      const Placement p = Place(r, n);
      for (size_t i = 0; i < n; ++i) {
        EXPECT_EQ(p.pieces[i], 1) << "item " << i << " placed " << p.pieces[i] << " times";
        EXPECT_EQ(p.tokens[i], tokens[i]);
      }
      if (capped) {
        for (int64_t real : r.real) EXPECT_LE(real, o.max_tokens_per_group);
      }
      EXPECT_EQ(r.metrics.real_tokens, Sum(tokens));
      EXPECT_EQ(r.metrics.num_items, n);
      flopspack_plan_destroy(plan);
    }
  }
}

TEST(NothingLostTest, PlanStepEveryAlgorithmAndOverflowPolicy) {
  Random rng(3);
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_polynomial(1, 0, 1, 0.01, &model), FLOPSPACK_OK);
  const int32_t policies[] = {FLOPSPACK_OVERFLOW_ERROR, FLOPSPACK_OVERFLOW_SPLIT,
                              FLOPSPACK_OVERFLOW_DEFER};
  int deferred_seen = 0, split_seen = 0;
  for (int32_t algorithm = 0; algorithm <= 3; ++algorithm) {
    for (int32_t policy : policies) {
      for (int trial = 0; trial < 120; ++trial) {
        flopspack_step_options o;
        flopspack_step_options_init(&o);
        o.algorithm = algorithm;
        o.overflow = policy;
        o.num_ranks = static_cast<uint32_t>(rng.Uniform(1, 6));
        o.max_tokens_per_microbatch = rng.Uniform(20, 300);
        o.ordering = static_cast<int32_t>(rng.Uniform(0, 2));
        o.seed = static_cast<uint64_t>(trial);
        // ERROR needs a batch that fits: M = 0 (as many as needed) and
        // documents within the cap; the others get a fixed, tight M.
        const bool error = policy == FLOPSPACK_OVERFLOW_ERROR;
        o.microbatches_per_rank = error ? 0 : static_cast<uint32_t>(rng.Uniform(0, 3));
        const int64_t cap = o.max_tokens_per_microbatch;
        const std::vector<int64_t> lengths =
            rng.Lengths(static_cast<size_t>(rng.Uniform(0, 60)), error ? cap : 2 * cap);
        const int64_t total = Sum(lengths);
        if (policy == FLOPSPACK_OVERFLOW_SPLIT && o.microbatches_per_rank > 0 &&
            total > static_cast<int64_t>(o.num_ranks) * o.microbatches_per_rank * cap) {
          o.microbatches_per_rank = 0;  // SPLIT cannot place more than R x M x cap
        }
        flopspack_plan* plan = nullptr;
        ASSERT_EQ(flopspack_plan_step(&o, model, lengths.data(), lengths.size(), &plan),
                  FLOPSPACK_OK)
            << flopspack_last_error_message();
        const ReadPlan r = ReadBack(plan);
        const Placement p = Place(r, lengths.size());
        int64_t deferred_tokens = 0;
        uint64_t split = 0;
        for (size_t i = 0; i < lengths.size(); ++i) {
          if (p.deferred[i] > 0) {
            EXPECT_EQ(policy, FLOPSPACK_OVERFLOW_DEFER);
            EXPECT_EQ(p.deferred[i], 1);
            EXPECT_EQ(p.pieces[i], 0) << "a deferred document is also placed";
            deferred_tokens += lengths[i];
          } else {
            EXPECT_EQ(p.tokens[i], lengths[i]) << "document " << i << " lost or cut";
          }
          split += p.pieces[i] > 1 ? 1 : 0;
        }
        for (int64_t real : r.real) EXPECT_LE(real, cap);
        EXPECT_EQ(r.metrics.deferred_items, r.deferred.size());
        EXPECT_EQ(r.metrics.deferred_tokens, deferred_tokens);
        EXPECT_EQ(r.metrics.split_items, split);
        EXPECT_EQ(r.metrics.real_tokens + deferred_tokens, total);
        deferred_seen += static_cast<int>(r.deferred.size());
        split_seen += static_cast<int>(split);
        flopspack_plan_destroy(plan);
      }
    }
  }
  // The random inputs do exercise both escape routes.
  EXPECT_GT(deferred_seen, 0);
  EXPECT_GT(split_seen, 0);
  flopspack_cost_model_destroy(model);
}

// Drives a stateful planner through random pushes and steps, then drains
// it: each document is placed in exactly one step, in full, and pending
// counts always equal pushed minus placed.
void RunStatefulPlanner(const flopspack_step_options& o, const flopspack_step_planner_options& s,
                        Random& rng, int64_t max_length) {
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_polynomial(0, 1, 1, 0.001, &model), FLOPSPACK_OK);
  flopspack_step_planner* planner = nullptr;
  ASSERT_EQ(flopspack_step_planner_create(&o, &s, model, &planner), FLOPSPACK_OK)
      << flopspack_last_error_message();
  std::vector<int64_t> length, placed, steps_placed;
  auto step = [&] {
    flopspack_plan* plan = nullptr;
    ASSERT_EQ(flopspack_step_planner_next(planner, &plan), FLOPSPACK_OK)
        << flopspack_last_error_message();
    const ReadPlan r = ReadBack(plan);
    const Placement p = Place(r, length.size());
    for (size_t id = 0; id < length.size(); ++id) {
      if (p.pieces[id] == 0) continue;
      EXPECT_EQ(steps_placed[id], 0) << "document " << id << " placed in two steps";
      EXPECT_EQ(p.tokens[id], length[id]) << "document " << id << " placed in part";
      ++steps_placed[id];
      placed[id] += p.tokens[id];
    }
    for (size_t id = 0; id < length.size(); ++id) {
      if (p.deferred[id] > 0) {
        EXPECT_EQ(steps_placed[id], 0) << "placed and deferred";
      }
    }
    flopspack_plan_destroy(plan);
  };
  auto check_pending = [&] {
    uint64_t documents = 0;
    int64_t tokens = 0;
    ASSERT_EQ(flopspack_step_planner_pending(planner, &documents, &tokens, nullptr), FLOPSPACK_OK);
    uint64_t expected_docs = 0;
    int64_t expected_tokens = 0;
    for (size_t id = 0; id < length.size(); ++id) {
      if (steps_placed[id] != 0) continue;
      ++expected_docs;
      expected_tokens += length[id];
    }
    EXPECT_EQ(documents, expected_docs);
    EXPECT_EQ(tokens, expected_tokens);
  };
  for (int round = 0; round < 12; ++round) {
    const std::vector<int64_t> batch =
        rng.Lengths(static_cast<size_t>(rng.Uniform(0, 25)), max_length);
    int64_t first = -1;
    ASSERT_EQ(flopspack_step_planner_push(planner, batch.data(), batch.size(), &first),
              FLOPSPACK_OK)
        << flopspack_last_error_message();
    EXPECT_EQ(first, static_cast<int64_t>(length.size()));
    length.insert(length.end(), batch.begin(), batch.end());
    placed.resize(length.size(), 0);
    steps_placed.resize(length.size(), 0);
    step();
    check_pending();
  }
  for (int k = 0; k < 1000; ++k) {
    uint64_t documents = 0;
    ASSERT_EQ(flopspack_step_planner_pending(planner, &documents, nullptr, nullptr), FLOPSPACK_OK);
    if (documents == 0) break;
    step();
  }
  check_pending();
  for (size_t id = 0; id < length.size(); ++id) {
    EXPECT_EQ(placed[id], length[id]) << "document " << id << " never placed";
  }
  flopspack_step_planner_destroy(planner);
  flopspack_cost_model_destroy(model);
}

TEST(NothingLostTest, StatefulPlannerPlacesEveryDocumentOnce) {
  Random rng(4);
  const int32_t policies[] = {FLOPSPACK_OVERFLOW_ERROR, FLOPSPACK_OVERFLOW_SPLIT,
                              FLOPSPACK_OVERFLOW_DEFER};
  for (int32_t algorithm = 0; algorithm <= 3; ++algorithm) {
    for (int32_t policy : policies) {
      for (int trial = 0; trial < 8; ++trial) {
        SCOPED_TRACE(testing::Message()
                     << "algorithm " << algorithm << " policy " << policy << " trial " << trial);
        flopspack_step_options o;
        flopspack_step_options_init(&o);
        o.algorithm = algorithm;
        o.overflow = policy;
        o.num_ranks = static_cast<uint32_t>(rng.Uniform(1, 4));
        o.microbatches_per_rank = static_cast<uint32_t>(rng.Uniform(1, 3));
        o.max_tokens_per_microbatch = rng.Uniform(50, 200);
        o.seed = static_cast<uint64_t>(trial);
        flopspack_step_planner_options s;
        flopspack_step_planner_options_init(&s);
        s.max_defer_steps = static_cast<uint32_t>(rng.Uniform(0, 3));
        if (trial % 2 == 1) s.outlier_min_tokens = o.max_tokens_per_microbatch / 2;
        // Push takes documents within the cap (or, under SPLIT, within a
        // step of R x M x cap tokens).
        const int64_t step_tokens = static_cast<int64_t>(o.num_ranks) * o.microbatches_per_rank *
                                    o.max_tokens_per_microbatch;
        const int64_t max_length = policy == FLOPSPACK_OVERFLOW_SPLIT
                                       ? std::min(2 * o.max_tokens_per_microbatch, step_tokens)
                                       : o.max_tokens_per_microbatch;
        RunStatefulPlanner(o, s, rng, max_length);
      }
    }
  }
}

// Regression: with M = 0 a step's token budget may be smaller than an
// outlier; such an outlier used to wait forever (pending never drained).
TEST(NothingLostTest, StatefulPlannerPlacesAnOutlierLongerThanAStep) {
  flopspack_step_options o;
  flopspack_step_options_init(&o);
  o.num_ranks = 4;
  o.microbatches_per_rank = 0;
  o.algorithm = FLOPSPACK_STEP_RANDOM;
  o.max_tokens_per_microbatch = 165;
  o.overflow = FLOPSPACK_OVERFLOW_SPLIT;
  flopspack_step_planner_options s;
  flopspack_step_planner_options_init(&s);
  s.tokens_per_step = 199;
  s.outlier_min_tokens = 164;
  s.max_defer_steps = 1;
  Random rng(5);
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_tokens(&model), FLOPSPACK_OK);
  flopspack_step_planner* planner = nullptr;
  ASSERT_EQ(flopspack_step_planner_create(&o, &s, model, &planner), FLOPSPACK_OK);
  const int64_t outlier = 258;
  ASSERT_EQ(flopspack_step_planner_push(planner, &outlier, 1, nullptr), FLOPSPACK_OK);
  uint64_t documents = 1;
  for (int k = 0; k < 5 && documents > 0; ++k) {
    flopspack_plan* plan = nullptr;
    ASSERT_EQ(flopspack_step_planner_next(planner, &plan), FLOPSPACK_OK);
    flopspack_plan_destroy(plan);
    ASSERT_EQ(flopspack_step_planner_pending(planner, &documents, nullptr, nullptr), FLOPSPACK_OK);
  }
  EXPECT_EQ(documents, 0u) << "the outlier was never planned";
  flopspack_step_planner_destroy(planner);
  // And in a random stream of such outliers.
  for (int trial = 0; trial < 20; ++trial) RunStatefulPlanner(o, s, rng, 600);
  flopspack_cost_model_destroy(model);
}

TEST(NothingLostTest, BucketSamplerPadLastAndDropLast) {
  Random rng(6);
  int dropped_seen = 0;
  for (int32_t drop_last = 0; drop_last <= 1; ++drop_last) {
    for (int trial = 0; trial < 150; ++trial) {
      flopspack_bucket_sampler_options o;
      flopspack_bucket_sampler_options_init(&o);
      o.drop_last = drop_last;
      o.num_buckets = static_cast<uint32_t>(rng.Uniform(1, 8));
      o.max_padded_tokens = rng.Uniform(300, 2000);
      o.num_ranks = static_cast<uint64_t>(rng.Uniform(1, 4));
      o.accumulation_steps = static_cast<uint64_t>(rng.Uniform(1, 3));
      o.seed = static_cast<uint64_t>(trial);
      const std::vector<int64_t> lengths =
          rng.Lengths(static_cast<size_t>(rng.Uniform(40, 300)), 300);
      flopspack_bucket_sampler* sampler = nullptr;
      const flopspack_status s =
          flopspack_bucket_sampler_create(&o, nullptr, lengths.data(), lengths.size(), &sampler);
      if (s == FLOPSPACK_INFEASIBLE) continue;  // too few samples for one step: documented
      ASSERT_EQ(s, FLOPSPACK_OK) << flopspack_last_error_message();
      for (uint64_t epoch = 0; epoch < 2; ++epoch) {
        flopspack_plan* plan = nullptr;
        ASSERT_EQ(flopspack_bucket_sampler_epoch(sampler, epoch, &plan), FLOPSPACK_OK);
        const ReadPlan r = ReadBack(plan);
        const Placement p = Place(r, lengths.size());
        int64_t dropped_tokens = 0;
        for (size_t i = 0; i < lengths.size(); ++i) {
          EXPECT_EQ(p.pieces[i] + p.dropped[i], 1) << "sample " << i;
          if (p.dropped[i] == 1) dropped_tokens += lengths[i];
          if (p.pieces[i] == 1) {
            EXPECT_EQ(p.tokens[i], lengths[i]);
          }
        }
        if (drop_last == 0) {
          EXPECT_TRUE(r.dropped.empty());
        }
        EXPECT_EQ(r.metrics.dropped_items, r.dropped.size());
        EXPECT_EQ(r.metrics.dropped_tokens, dropped_tokens);
        EXPECT_EQ(r.metrics.real_tokens + dropped_tokens, Sum(lengths));
        for (size_t g = 0; g < r.items.size(); ++g) {
          EXPECT_LE(r.computed[g], o.max_padded_tokens);
        }
        dropped_seen += static_cast<int>(r.dropped.size());
        flopspack_plan_destroy(plan);
      }
      flopspack_bucket_sampler_destroy(sampler);
    }
  }
  EXPECT_GT(dropped_seen, 0);
}

TEST(NothingLostTest, StreamPackerSplitAndTruncate) {
  Random rng(7);
  int split_across_takes = 0;  // documents whose pieces came in two takes
  const int32_t policies[] = {FLOPSPACK_OVERFLOW_ERROR, FLOPSPACK_OVERFLOW_TRUNCATE,
                              FLOPSPACK_OVERFLOW_SPLIT};
  for (int32_t policy : policies) {
    for (int trial = 0; trial < 60; ++trial) {
      flopspack_stream_options o;
      flopspack_stream_options_init(&o);
      o.capacity = rng.Uniform(10, 500);
      o.window = static_cast<uint64_t>(rng.Uniform(1, 64));
      o.overflow = policy;
      o.seed = static_cast<uint64_t>(trial);
      flopspack_stream_packer* packer = nullptr;
      ASSERT_EQ(flopspack_stream_packer_create(&o, nullptr, &packer), FLOPSPACK_OK);
      std::vector<int64_t> lengths, placed;
      std::vector<std::vector<std::pair<int64_t, int64_t>>> spans;  // over every take
      std::vector<int> takes_of;  // takes holding a piece of the document
      auto take = [&] {
        flopspack_plan* plan = nullptr;
        ASSERT_EQ(flopspack_stream_packer_take(packer, &plan), FLOPSPACK_OK);
        const ReadPlan r = ReadBack(plan);
        const Placement p = Place(r, lengths.size(), /*check_tiling=*/false);
        for (size_t i = 0; i < lengths.size(); ++i) {
          placed[i] += p.tokens[i];
          spans[i].insert(spans[i].end(), p.spans[i].begin(), p.spans[i].end());
          takes_of[i] += p.pieces[i] > 0 ? 1 : 0;
        }
        for (int64_t real : r.real) EXPECT_LE(real, o.capacity);
        flopspack_plan_destroy(plan);
      };
      const int64_t hi = policy == FLOPSPACK_OVERFLOW_ERROR ? o.capacity : 3 * o.capacity;
      for (int round = 0; round < 10; ++round) {
        const std::vector<int64_t> batch = rng.Lengths(static_cast<size_t>(rng.Uniform(0, 40)), hi);
        ASSERT_EQ(flopspack_stream_packer_push(packer, batch.data(), batch.size()), FLOPSPACK_OK);
        lengths.insert(lengths.end(), batch.begin(), batch.end());
        placed.resize(lengths.size(), 0);
        spans.resize(lengths.size());
        takes_of.resize(lengths.size(), 0);
        if (round % 3 == 0) take();
      }
      ASSERT_EQ(flopspack_stream_packer_flush(packer), FLOPSPACK_OK);
      take();
      flopspack_stream_totals totals;
      totals.struct_size = sizeof(totals);
      ASSERT_EQ(flopspack_stream_packer_totals(packer, &totals), FLOPSPACK_OK);
      int64_t truncated_tokens = 0;
      uint64_t truncated = 0;
      for (size_t i = 0; i < lengths.size(); ++i) {
        if (policy == FLOPSPACK_OVERFLOW_TRUNCATE && lengths[i] > o.capacity) {
          EXPECT_EQ(placed[i], o.capacity);
          truncated_tokens += lengths[i] - o.capacity;
          ++truncated;
        } else {
          EXPECT_EQ(placed[i], lengths[i]) << "document " << i;
        }
        // Pieces taken in different plans still tile the document (a
        // truncated one: its first capacity tokens).
        EXPECT_EQ(flopspack_test::TilingEnd(spans[i]), placed[i]) << "document " << i;
      }
      for (size_t i = 0; i < lengths.size(); ++i) split_across_takes += takes_of[i] > 1 ? 1 : 0;
      EXPECT_EQ(totals.documents_pushed, lengths.size());
      EXPECT_EQ(totals.pieces_held, 0u);
      EXPECT_EQ(totals.truncated_documents, truncated);
      EXPECT_EQ(totals.truncated_tokens, truncated_tokens);
      EXPECT_EQ(totals.tokens_emitted + truncated_tokens, Sum(lengths));
      flopspack_stream_packer_destroy(packer);
    }
  }
  // The offsets are tested where they matter: pieces of one document in
  // different plans.
  EXPECT_GT(split_across_takes, 0);
}

}  // namespace
