// The step context flopspack_plan_step keeps per thread (issue 19): plans are
// the same bit for bit whatever the thread planned before and whichever
// thread plans them, a plan outlives the thread that made it, and threads
// planning at once (destroying each other's plans) do not interfere. The
// suite's name holds "Thread", so scripts/test.sh runs it under
// ThreadSanitizer.
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "capi_test_util.h"
#include "plan_reader.h"

namespace {

uint64_t TcNext(uint64_t& x) {
  x = x * 6364136223846793005ull + 1442695040888963407ull;
  return x >> 33;
}

// One random step: options, lengths and (every other case) extra costs.
struct TcStep {
  flopspack_step_options options;
  std::vector<int64_t> lengths;
  std::vector<double> extra;  // empty = the plain call without extra costs
};

TcStep TcRandomStep(uint64_t seed) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  TcStep s;
  flopspack_step_options_init(&s.options);
  s.options.num_ranks = 1 + static_cast<uint32_t>(TcNext(x) % 48);
  s.options.microbatches_per_rank = static_cast<uint32_t>(TcNext(x) % 5);
  s.options.max_tokens_per_microbatch = 256 + static_cast<int64_t>(TcNext(x) % 4000);
  s.options.algorithm = static_cast<decltype(s.options.algorithm)>(TcNext(x) % 4);
  s.options.overflow = static_cast<decltype(s.options.overflow)>(TcNext(x) % 3);
  s.options.sync = static_cast<decltype(s.options.sync)>(TcNext(x) % 2);
  s.options.seed = seed;
  const uint64_t slots =
      s.options.num_ranks *
      (s.options.microbatches_per_rank == 0 ? 1 : s.options.microbatches_per_rank);
  // Up to about 90% of the slots' tokens, a few documents over the cap.
  const size_t n = 1 + static_cast<size_t>(TcNext(x) % (slots * 3));
  const int64_t cap = s.options.max_tokens_per_microbatch;
  for (size_t i = 0; i < n; ++i) {
    const int64_t max_length = TcNext(x) % 20 == 0 ? cap + 300 : cap / 2;
    s.lengths.push_back(1 + static_cast<int64_t>(TcNext(x) % static_cast<uint64_t>(max_length)));
  }
  if (seed % 2 == 1) {
    for (size_t i = 0; i < n; ++i) s.extra.push_back(static_cast<double>(TcNext(x) % 1000) * 1e6);
  }
  return s;
}

flopspack_status TcPlan(const TcStep& s, const flopspack_cost_model* model, flopspack_plan** out) {
  if (s.extra.empty()) {
    return flopspack_plan_step(&s.options, model, s.lengths.data(), s.lengths.size(), out);
  }
  return flopspack_plan_step_with_extra_costs(&s.options, model, s.lengths.data(), s.extra.data(),
                                              s.lengths.size(), out);
}

// The plan of a thread that never planned before (its context empty).
flopspack_status TcPlanOnFreshThread(const TcStep& s, const flopspack_cost_model* model,
                                     flopspack_plan** out) {
  flopspack_status status = FLOPSPACK_OK;
  std::thread t([&] { status = TcPlan(s, model, out); });
  t.join();
  return status;
}

// Random steps (every algorithm, overflow policy, sync model, M = 0, extra
// costs or none), each planned three ways: by a fresh thread (empty thread
// context), by this thread (its context holding whatever the earlier,
// differently shaped steps left, some of their plans still alive), and in
// an explicit step context. All three agree bit for bit, errors included.
TEST(StepThreadContextTest, PlainCallsEqualFreshThreadAndContextPlans) {
  flopspack_cost_model* model = flopspack_test::SmallTransformerModel();
  flopspack_step_context* context = nullptr;
  ASSERT_EQ(flopspack_step_context_create(&context), FLOPSPACK_OK);
  std::vector<flopspack_plan*> alive;
  int planned = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const TcStep s = TcRandomStep(seed);
    flopspack_plan* fresh = nullptr;
    flopspack_plan* plain = nullptr;
    const flopspack_status status = TcPlanOnFreshThread(s, model, &fresh);
    ASSERT_EQ(TcPlan(s, model, &plain), status) << "seed " << seed;
    if (s.extra.empty()) {
      flopspack_plan* in_context = nullptr;
      ASSERT_EQ(flopspack_plan_step_in_context(context, &s.options, model, s.lengths.data(),
                                               s.lengths.size(), &in_context),
                status);
      if (status == FLOPSPACK_OK) flopspack_test::ExpectSamePlan(fresh, in_context);
      flopspack_plan_destroy(in_context);
    }
    if (status != FLOPSPACK_OK) continue;
    ++planned;
    flopspack_test::ExpectSamePlan(fresh, plain);
    flopspack_plan_destroy(fresh);
    // Keep every third plain plan alive for a while: later calls then run
    // while some storage is out of the context.
    if (seed % 3 == 0) {
      alive.push_back(plain);
    } else {
      flopspack_plan_destroy(plain);
    }
    if (alive.size() == 4) {
      for (flopspack_plan* p : alive) flopspack_plan_destroy(p);
      alive.clear();
    }
  }
  EXPECT_GE(planned, 20);  // most random steps are feasible
  for (flopspack_plan* p : alive) flopspack_plan_destroy(p);
  flopspack_step_context_destroy(context);
  flopspack_cost_model_destroy(model);
}

// A plan made on a thread that has exited since (its context freed with
// it, but for what the plan holds) is read and destroyed on this thread;
// ASan and the leak checker see that storage freed exactly once.
TEST(StepThreadContextTest, PlanOutlivesTheThreadThatMadeIt) {
  flopspack_cost_model* model = flopspack_test::SmallTransformerModel();
  for (uint64_t seed : {4, 7}) {  // without and with extra costs
    TcStep s = TcRandomStep(seed);
    s.options.overflow = FLOPSPACK_OVERFLOW_SPLIT;
    flopspack_plan* expected = nullptr;
    ASSERT_EQ(TcPlan(s, model, &expected), FLOPSPACK_OK) << flopspack_last_error_message();
    flopspack_plan* first = nullptr;
    flopspack_plan* second = nullptr;
    std::thread t([&] {
      // Two plans: the first destroyed before the thread exits (its arrays go
      // to the thread's context), the second left to outlive it.
      ASSERT_EQ(TcPlan(s, model, &first), FLOPSPACK_OK);
      flopspack_plan_destroy(first);
      ASSERT_EQ(TcPlan(s, model, &second), FLOPSPACK_OK);
    });
    t.join();
    ASSERT_NE(second, nullptr);
    flopspack_test::ExpectSamePlan(expected, second);
    flopspack_plan_destroy(second);
    flopspack_plan_destroy(expected);
  }
  flopspack_cost_model_destroy(model);
}

// Two threads plan steps at once with the plain calls; the plans of the
// first are destroyed by the second (giving their arrays back to the first
// thread's context while it plans). Every plan equals the one planned alone.
TEST(StepThreadContextTest, TwoThreadsPlanConcurrently) {
  flopspack_cost_model* model = flopspack_test::SmallTransformerModel();
  constexpr int kSteps = 12;
  std::vector<TcStep> steps;
  std::vector<flopspack_plan*> expected;
  for (uint64_t seed = 100; steps.size() < kSteps; ++seed) {
    TcStep s = TcRandomStep(seed);
    s.options.overflow = FLOPSPACK_OVERFLOW_SPLIT;
    flopspack_plan* plan = nullptr;
    if (TcPlan(s, model, &plan) != FLOPSPACK_OK) continue;
    steps.push_back(std::move(s));
    expected.push_back(plan);
  }
  std::mutex mu;
  std::vector<flopspack_plan*> handed_over;  // made by thread 0, destroyed by 1
  int handed_done = 0;
  std::thread threads[2];
  for (int t = 0; t < 2; ++t) {
    threads[t] = std::thread([&, t] {
      for (int round = 0; round < 3; ++round) {
        for (int k = 0; k < kSteps; ++k) {
          const int i = t == 0 ? k : kSteps - 1 - k;  // different shapes at once
          flopspack_plan* plan = nullptr;
          ASSERT_EQ(TcPlan(steps[i], model, &plan), FLOPSPACK_OK);
          flopspack_test::ExpectSamePlan(expected[i], plan);
          if (t == 0) {
            std::lock_guard<std::mutex> lock(mu);
            handed_over.push_back(plan);
          } else {
            flopspack_plan_destroy(plan);
            std::vector<flopspack_plan*> theirs;
            {
              std::lock_guard<std::mutex> lock(mu);
              theirs.swap(handed_over);
            }
            for (flopspack_plan* p : theirs) flopspack_plan_destroy(p);
            std::lock_guard<std::mutex> lock(mu);
            handed_done += static_cast<int>(theirs.size());
          }
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (flopspack_plan* p : handed_over) flopspack_plan_destroy(p);
  EXPECT_LE(handed_done, 3 * kSteps);
  for (flopspack_plan* p : expected) flopspack_plan_destroy(p);
  flopspack_cost_model_destroy(model);
}

// flopspack_pack takes its plan's arrays from the same per-thread context:
// packs on this thread (between steps, some of both kinds of plans still
// alive) equal a fresh thread's, for every algorithm and overflow policy,
// with and without extra costs, errors included.
TEST(StepThreadContextTest, PackSharesTheThreadContext) {
  flopspack_cost_model* model = flopspack_test::SmallTransformerModel();
  std::vector<flopspack_plan*> alive;
  int packed = 0;
  for (uint64_t seed = 1; seed <= 32; ++seed) {
    const TcStep s = TcRandomStep(seed);
    flopspack_plan* step = nullptr;
    if (TcPlan(s, model, &step) == FLOPSPACK_OK) alive.push_back(step);
    flopspack_pack_options o;
    flopspack_pack_options_init(&o);
    o.capacity = s.options.max_tokens_per_microbatch;
    o.algorithm = static_cast<decltype(o.algorithm)>(seed % 4);
    o.overflow = static_cast<decltype(o.overflow)>(seed / 4 % 3);
    o.seed = seed;
    o.cost_model = seed % 3 == 0 ? model : nullptr;
    const double* extra = s.extra.empty() ? nullptr : s.extra.data();
    auto pack = [&](flopspack_plan** out) {
      return flopspack_pack_with_extra_costs(&o, s.lengths.data(), extra, s.lengths.size(), out);
    };
    flopspack_plan* fresh = nullptr;
    flopspack_status status = FLOPSPACK_OK;
    std::thread t([&] { status = pack(&fresh); });
    t.join();
    flopspack_plan* here = nullptr;
    ASSERT_EQ(pack(&here), status) << "seed " << seed;
    if (status != FLOPSPACK_OK) continue;
    ++packed;
    flopspack_test::ExpectSamePlan(fresh, here);
    flopspack_plan_destroy(fresh);
    alive.push_back(here);
    if (alive.size() >= 5) {
      for (flopspack_plan* p : alive) flopspack_plan_destroy(p);
      alive.clear();
    }
  }
  EXPECT_GE(packed, 16);
  for (flopspack_plan* p : alive) flopspack_plan_destroy(p);
  flopspack_cost_model_destroy(model);
}

}  // namespace
