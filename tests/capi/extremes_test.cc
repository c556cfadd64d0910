// Extreme but legal values at every entry point (issue 21): INT64_MAX caps
// and lengths, near-maximum counts, costs near DBL_MAX. Each test is the
// regression test of one finding: the call either succeeds with a valid
// plan (checked: every token placed once, no microbatch over its cap) or
// fails at once with FLOPSPACK_OUT_OF_RANGE and a message naming the
// argument, never with a crash, a wedge or inf/NaN metrics. Run under
// ASan + UBSan in CI.
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "capi_test_util.h"
#include "plan_reader.h"

namespace {

using flopspack_test::Place;
using flopspack_test::Placement;
using flopspack_test::ReadBack;
using flopspack_test::ReadPlan;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

flopspack_cost_model* Tokens() {
  static flopspack_cost_model* model = [] {
    flopspack_cost_model* m = nullptr;
    EXPECT_EQ(flopspack_cost_model_tokens(&m), FLOPSPACK_OK);
    return m;
  }();
  return model;
}

flopspack_step_options Step(uint32_t ranks, uint32_t m, int64_t cap, int32_t algorithm,
                            int32_t overflow = FLOPSPACK_OVERFLOW_SPLIT) {
  flopspack_step_options o;
  flopspack_step_options_init(&o);
  o.num_ranks = ranks;
  o.microbatches_per_rank = m;
  o.max_tokens_per_microbatch = cap;
  o.algorithm = algorithm;
  o.overflow = overflow;
  return o;
}

// Every document's tokens placed exactly once and no group over the cap.
void ExpectStepPlanValid(const flopspack_plan* plan, const std::vector<int64_t>& lengths,
                         int64_t cap) {
  const ReadPlan r = ReadBack(plan);
  const Placement p = Place(r, lengths.size());
  for (size_t i = 0; i < lengths.size(); ++i) {
    EXPECT_EQ(p.tokens[i], lengths[i]) << "document " << i;
  }
  for (size_t g = 0; g < r.real.size(); ++g) EXPECT_LE(r.real[g], cap) << "group " << g;
  EXPECT_TRUE(std::isfinite(r.metrics.rank_balance_efficiency));
  EXPECT_TRUE(std::isfinite(r.metrics.max_rank_cost));
}

// Issue 21 item 1: cap = INT64_MAX made the document planner pick no
// microbatch (an empty one has INT64_MAX free, never below the INT64_MAX
// sentinel) and write mb_tokens[-1]: heap corruption.
TEST(ExtremesTest, StepCapInt64MaxPlansEveryDocument) {
  const std::vector<int64_t> lengths = {5, 7};
  for (int32_t algorithm : {FLOPSPACK_STEP_DOCUMENTS, FLOPSPACK_STEP_TOKENS, FLOPSPACK_STEP_RANDOM,
                            FLOPSPACK_STEP_SEQUENCES}) {
    for (uint32_t m : {0u, 1u, 3u}) {
      for (uint32_t ranks : {1u, 2u}) {
        SCOPED_TRACE(testing::Message()
                     << "algorithm " << algorithm << " M " << m << " R " << ranks);
        flopspack_step_options o = Step(ranks, m, kMax, algorithm);
        flopspack_plan* plan = nullptr;
        if (ranks * m > 1) {
          // R x M x cap must fit int64 (the step's total room).
          EXPECT_FLOPSPACK_ERROR(
              flopspack_plan_step(&o, Tokens(), lengths.data(), lengths.size(), &plan),
              FLOPSPACK_OUT_OF_RANGE, "overflows");
          continue;
        }
        ASSERT_EQ(flopspack_plan_step(&o, Tokens(), lengths.data(), lengths.size(), &plan),
                  FLOPSPACK_OK)
            << flopspack_last_error_message();
        ExpectStepPlanValid(plan, lengths, kMax);
        flopspack_plan_destroy(plan);
      }
    }
  }
  // A document of INT64_MAX tokens at cap INT64_MAX is one item.
  const std::vector<int64_t> one = {kMax};
  flopspack_step_options o = Step(1, 1, kMax, FLOPSPACK_STEP_DOCUMENTS);
  flopspack_plan* plan = nullptr;
  ASSERT_EQ(flopspack_plan_step(&o, Tokens(), one.data(), 1, &plan), FLOPSPACK_OK);
  ExpectStepPlanValid(plan, one, kMax);
  flopspack_plan_destroy(plan);
}

// The same through the stateful planner, and through a state saved with
// that cap and restored (it restored, then corrupted the heap on next()).
TEST(ExtremesTest, StepPlannerCapInt64MaxSurvivesSaveRestore) {
  flopspack_step_options o = Step(1, 0, kMax, FLOPSPACK_STEP_DOCUMENTS);
  flopspack_step_planner_options po;
  flopspack_step_planner_options_init(&po);
  po.tokens_per_step = kMax;
  flopspack_step_planner* planner = nullptr;
  ASSERT_EQ(flopspack_step_planner_create(&o, &po, Tokens(), &planner), FLOPSPACK_OK);
  const std::vector<int64_t> lengths = {5, 7};
  ASSERT_EQ(flopspack_step_planner_push(planner, lengths.data(), 2, nullptr), FLOPSPACK_OK);
  size_t size = 0;
  ASSERT_EQ(flopspack_step_planner_save_size(planner, &size), FLOPSPACK_OK);
  std::vector<char> bytes(size);
  ASSERT_EQ(flopspack_step_planner_save(planner, bytes.data(), size, &size), FLOPSPACK_OK);
  flopspack_step_planner* restored = nullptr;
  ASSERT_EQ(flopspack_step_planner_restore(bytes.data(), size, Tokens(), &restored), FLOPSPACK_OK);
  for (flopspack_step_planner* p : {planner, restored}) {
    flopspack_plan* plan = nullptr;
    ASSERT_EQ(flopspack_step_planner_next(p, &plan), FLOPSPACK_OK)
        << flopspack_last_error_message();
    ExpectStepPlanValid(plan, lengths, kMax);
    flopspack_plan_destroy(plan);
  }
  flopspack_step_planner_destroy(planner);
  flopspack_step_planner_destroy(restored);
}

// Issue 21 item 7: `total / cap + n` overflowed for [INT64_MAX] at cap 1
// (UB), then the planner allocated for 18 s until OUT_OF_MEMORY. Now the
// item count and the microbatch count are checked before anything is made.
TEST(ExtremesTest, PlanStepHugeSplitFailsAtOnce) {
  const int64_t lengths[] = {kMax};
  for (int32_t algorithm : {FLOPSPACK_STEP_DOCUMENTS, FLOPSPACK_STEP_TOKENS, FLOPSPACK_STEP_RANDOM,
                            FLOPSPACK_STEP_SEQUENCES}) {
    flopspack_step_options o = Step(1, 0, 1, algorithm);
    flopspack_plan* plan = nullptr;
    EXPECT_FLOPSPACK_ERROR(flopspack_plan_step(&o, Tokens(), lengths, 1, &plan),
                           FLOPSPACK_OUT_OF_RANGE, "max_tokens_per_microbatch = 1");
    EXPECT_EQ(plan, nullptr);
  }
  // Within the item limit but over the microbatch limit with M = 0.
  const int64_t big[] = {int64_t{1} << 30};
  flopspack_step_options o = Step(4, 0, 1, FLOPSPACK_STEP_DOCUMENTS);
  flopspack_plan* plan = nullptr;
  EXPECT_FLOPSPACK_ERROR(flopspack_plan_step(&o, Tokens(), big, 1, &plan), FLOPSPACK_OUT_OF_RANGE,
                         "the batch needs num_ranks x microbatches_per_rank = 4 x 268435456 "
                         "microbatches of 1 tokens: at most 16777216 per step");
  // With M fixed the same batch simply does not fit.
  o = Step(4, 2, 1, FLOPSPACK_STEP_DOCUMENTS);
  EXPECT_EQ(flopspack_plan_step(&o, Tokens(), big, 1, &plan), FLOPSPACK_INFEASIBLE);
  // Deferred instead of split: nothing is cut, the plan is valid.
  o = Step(1, 0, 1, FLOPSPACK_STEP_DOCUMENTS, FLOPSPACK_OVERFLOW_DEFER);
  const int64_t mixed[] = {kMax - 1, 1};
  ASSERT_EQ(flopspack_plan_step(&o, Tokens(), mixed, 2, &plan), FLOPSPACK_OK);
  const ReadPlan r = ReadBack(plan);
  EXPECT_EQ(r.deferred, std::vector<int64_t>{0});
  EXPECT_EQ(r.metrics.deferred_tokens, kMax - 1);
  EXPECT_EQ(r.metrics.real_tokens, 1);
  flopspack_plan_destroy(plan);
}

// One token more than 2^24 microbatches of cap 1 hold (M = 0) is rejected
// before anything is allocated. (A plan at the limit itself, 2^24
// microbatches, takes about 1.5 GB and seconds to build: measured in
// docs/errors.md, Limits, not run here.)
TEST(ExtremesTest, PlanStepOverTheMicrobatchLimit) {
  const int64_t over[] = {(int64_t{1} << 24) + 1};
  flopspack_step_options o = Step(1 << 12, 0, 1, FLOPSPACK_STEP_TOKENS);
  flopspack_plan* plan = nullptr;
  EXPECT_FLOPSPACK_ERROR(flopspack_plan_step(&o, Tokens(), over, 1, &plan), FLOPSPACK_OUT_OF_RANGE,
                         "4096 x 4097 microbatches of 1 tokens");
  EXPECT_EQ(plan, nullptr);
  // 10^8 ranks (issue 21 item 12: 102 s to OUT_OF_MEMORY) are out of range.
  o = Step(100000000, 0, 4096, FLOPSPACK_STEP_DOCUMENTS);
  const int64_t one[] = {5};
  EXPECT_FLOPSPACK_ERROR(flopspack_plan_step(&o, Tokens(), one, 1, &plan),
                         FLOPSPACK_INVALID_ARGUMENT,
                         "num_ranks = 100000000: must be between 1 and 16777216");
}

// Issue 21 item 6: R = 1, M = 0, cap 1, SPLIT, tokens_per_step 1: pushing
// [2^40, 5] succeeded, then every next() failed ("too many items for one
// step") and the document behind it never ran. The document is rejected at
// push (all or nothing), and documents that each fit but together exceed a
// step's microbatches go in separate steps.
TEST(ExtremesTest, StepPlannerNeverWedges) {
  flopspack_step_options o = Step(1, 0, 1, FLOPSPACK_STEP_DOCUMENTS);
  flopspack_step_planner_options po;
  flopspack_step_planner_options_init(&po);
  po.tokens_per_step = 1;
  flopspack_step_planner* planner = nullptr;
  ASSERT_EQ(flopspack_step_planner_create(&o, &po, Tokens(), &planner), FLOPSPACK_OK);
  const int64_t huge[] = {int64_t{1} << 40, 5};
  EXPECT_FLOPSPACK_ERROR(flopspack_step_planner_push(planner, huge, 2, nullptr),
                         FLOPSPACK_OUT_OF_RANGE, "lengths[0] = 1099511627776");
  uint64_t docs = 7;
  ASSERT_EQ(flopspack_step_planner_pending(planner, &docs, nullptr, nullptr), FLOPSPACK_OK);
  EXPECT_EQ(docs, 0u);  // nothing pushed
  flopspack_step_planner_destroy(planner);

  // A document within the limit is accepted and planned with the one
  // behind it (2^16 tokens at cap 1 on 1024 ranks: 64 microbatches each).
  o.num_ranks = 1024;
  po.tokens_per_step = kMax;
  ASSERT_EQ(flopspack_step_planner_create(&o, &po, Tokens(), &planner), FLOPSPACK_OK);
  const int64_t fits[] = {int64_t{1} << 16, 5};
  ASSERT_EQ(flopspack_step_planner_push(planner, fits, 2, nullptr), FLOPSPACK_OK);
  flopspack_plan* plan = nullptr;
  ASSERT_EQ(flopspack_step_planner_next(planner, &plan), FLOPSPACK_OK)
      << flopspack_last_error_message();
  ExpectStepPlanValid(plan, {int64_t{1} << 16, 5}, 1);
  flopspack_plan_destroy(plan);
  flopspack_step_planner_destroy(planner);
}

}  // namespace
