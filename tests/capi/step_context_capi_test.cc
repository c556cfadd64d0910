// flopspack_step_context: plans made in a context are flopspack_plan_step's,
// bit for bit, whatever the context planned before, and the storage of
// destroyed plans is kept for the next call (issue 19).
#include <cstdint>
#include <string>
#include <vector>

#include "capi_test_util.h"
#include "plan_reader.h"

namespace {

flopspack_step_options ContextOptions(uint32_t ranks, uint32_t microbatches, int64_t cap) {
  flopspack_step_options o;
  flopspack_step_options_init(&o);
  o.num_ranks = ranks;
  o.microbatches_per_rank = microbatches;
  o.max_tokens_per_microbatch = cap;
  return o;
}

// n lengths in [1, max_length], a different batch for each seed.
std::vector<int64_t> Lengths(size_t n, int64_t max_length, uint64_t seed) {
  std::vector<int64_t> lengths(n);
  uint64_t x = seed;
  for (int64_t& l : lengths) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    l = 1 + static_cast<int64_t>((x >> 33) % static_cast<uint64_t>(max_length));
  }
  return lengths;
}

// One context plans a sequence of different steps (sizes up and down, every
// algorithm, overflow policy, sync model, M = 0, splits); each plan equals
// flopspack_plan_step's. Plans are destroyed in turn, so later calls run on
// storage earlier ones left behind.
TEST(StepContextCapiTest, PlansEqualPlanStepBitForBit) {
  flopspack_cost_model* model = flopspack_test::SmallTransformerModel();
  flopspack_step_context* context = nullptr;
  ASSERT_EQ(flopspack_step_context_create(&context), FLOPSPACK_OK);
  struct Case {
    uint32_t ranks, microbatches;
    int64_t cap;
    size_t n;
    int64_t max_length;
    int algorithm, overflow, sync;
  };
  const Case cases[] = {
      {8, 2, 2048, 300, 1500, FLOPSPACK_STEP_DOCUMENTS, FLOPSPACK_OVERFLOW_SPLIT,
       FLOPSPACK_SYNC_STEP},
      {64, 4, 4096, 3000, 4096, FLOPSPACK_STEP_DOCUMENTS, FLOPSPACK_OVERFLOW_DEFER,
       FLOPSPACK_SYNC_STEP},
      {4, 0, 1024, 200, 5000, FLOPSPACK_STEP_DOCUMENTS, FLOPSPACK_OVERFLOW_SPLIT,
       FLOPSPACK_SYNC_STEP},
      {16, 3, 2048, 500, 2048, FLOPSPACK_STEP_DOCUMENTS, FLOPSPACK_OVERFLOW_ERROR,
       FLOPSPACK_SYNC_MICROBATCH},
      {8, 2, 1024, 400, 3000, FLOPSPACK_STEP_RANDOM, FLOPSPACK_OVERFLOW_SPLIT, FLOPSPACK_SYNC_STEP},
      {8, 0, 1024, 400, 1024, FLOPSPACK_STEP_TOKENS, FLOPSPACK_OVERFLOW_SPLIT, FLOPSPACK_SYNC_STEP},
      {8, 4, 1024, 400, 900, FLOPSPACK_STEP_SEQUENCES, FLOPSPACK_OVERFLOW_DEFER,
       FLOPSPACK_SYNC_STEP},
      {128, 4, 8192, 20000, 8192, FLOPSPACK_STEP_DOCUMENTS, FLOPSPACK_OVERFLOW_DEFER,
       FLOPSPACK_SYNC_STEP},
      {2, 1, 512, 1, 100, FLOPSPACK_STEP_DOCUMENTS, FLOPSPACK_OVERFLOW_SPLIT, FLOPSPACK_SYNC_STEP},
  };
  uint64_t seed = 1;
  for (int round = 0; round < 2; ++round) {
    for (const Case& c : cases) {
      flopspack_step_options o = ContextOptions(c.ranks, c.microbatches, c.cap);
      o.algorithm = static_cast<decltype(o.algorithm)>(c.algorithm);
      o.overflow = static_cast<decltype(o.overflow)>(c.overflow);
      o.sync = static_cast<decltype(o.sync)>(c.sync);
      o.seed = seed;
      const std::vector<int64_t> lengths = Lengths(c.n, c.max_length, seed++);
      flopspack_plan* expected = nullptr;
      flopspack_plan* got = nullptr;
      const flopspack_status s =
          flopspack_plan_step(&o, model, lengths.data(), lengths.size(), &expected);
      ASSERT_EQ(
          flopspack_plan_step_in_context(context, &o, model, lengths.data(), lengths.size(), &got),
          s);
      if (s == FLOPSPACK_OK) flopspack_test::ExpectSamePlan(expected, got);
      flopspack_plan_destroy(expected);
      flopspack_plan_destroy(got);
    }
  }
  EXPECT_GT(flopspack_step_context_kept_bytes(context), 0u);
  flopspack_step_context_destroy(context);
  flopspack_cost_model_destroy(model);
}

// Reserve sizes the context; the storage of a destroyed plan comes back.
TEST(StepContextCapiTest, ReserveKeepsStorageAndDestroyedPlansGiveItBack) {
  flopspack_cost_model* model = flopspack_test::SmallTransformerModel();
  flopspack_step_context* context = nullptr;
  ASSERT_EQ(flopspack_step_context_create(&context), FLOPSPACK_OK);
  EXPECT_EQ(flopspack_step_context_kept_bytes(context), 0u);
  const flopspack_step_options o = ContextOptions(32, 4, 4096);
  ASSERT_EQ(flopspack_step_context_reserve(context, &o, model, 5000), FLOPSPACK_OK)
      << flopspack_last_error_message();
  const size_t reserved = flopspack_step_context_kept_bytes(context);
  // At least the plan's item array for 5,000 documents.
  EXPECT_GE(reserved, 5000 * sizeof(int64_t));

  const std::vector<int64_t> lengths = Lengths(3000, 300, 9);  // about 88% full
  flopspack_plan* plan = nullptr;
  ASSERT_EQ(
      flopspack_plan_step_in_context(context, &o, model, lengths.data(), lengths.size(), &plan),
      FLOPSPACK_OK);
  // The plan holds some of the storage while it lives ...
  const size_t while_alive = flopspack_step_context_kept_bytes(context);
  EXPECT_LT(while_alive, reserved);
  flopspack_plan* expected = nullptr;
  ASSERT_EQ(flopspack_plan_step(&o, model, lengths.data(), lengths.size(), &expected),
            FLOPSPACK_OK);
  flopspack_test::ExpectSamePlan(expected, plan);
  // ... and gives it back when destroyed, even after the context is gone.
  flopspack_plan_destroy(plan);
  EXPECT_GT(flopspack_step_context_kept_bytes(context), while_alive);
  ASSERT_EQ(
      flopspack_plan_step_in_context(context, &o, model, lengths.data(), lengths.size(), &plan),
      FLOPSPACK_OK);
  flopspack_step_context_destroy(context);
  flopspack_test::ExpectSamePlan(expected, plan);
  flopspack_plan_destroy(plan);
  flopspack_plan_destroy(expected);
  flopspack_cost_model_destroy(model);
}

TEST(StepContextCapiTest, BadArgumentsAreErrorsAndLeaveOutAlone) {
  flopspack_cost_model* model = flopspack_test::SmallTransformerModel();
  flopspack_step_context* context = nullptr;
  EXPECT_EQ(flopspack_step_context_create(nullptr), FLOPSPACK_INVALID_ARGUMENT);
  ASSERT_EQ(flopspack_step_context_create(&context), FLOPSPACK_OK);
  const std::vector<int64_t> lengths = {5, 7, 9};
  flopspack_step_options o = ContextOptions(2, 1, 16);
  flopspack_plan* sentinel = reinterpret_cast<flopspack_plan*>(&o);
  flopspack_plan* out = sentinel;
  EXPECT_EQ(flopspack_plan_step_in_context(nullptr, &o, model, lengths.data(), 3, &out),
            FLOPSPACK_INVALID_ARGUMENT);
  EXPECT_STREQ(flopspack_last_error_message(), "context must not be NULL");  // docs/errors.md
  EXPECT_EQ(flopspack_plan_step_in_context(context, &o, nullptr, lengths.data(), 3, &out),
            FLOPSPACK_INVALID_ARGUMENT);
  EXPECT_EQ(flopspack_plan_step_in_context(context, &o, model, nullptr, 3, &out),
            FLOPSPACK_INVALID_ARGUMENT);
  EXPECT_EQ(flopspack_plan_step_in_context(context, &o, model, lengths.data(), 3, nullptr),
            FLOPSPACK_INVALID_ARGUMENT);
  o.num_ranks = 0;
  EXPECT_EQ(flopspack_plan_step_in_context(context, &o, model, lengths.data(), 3, &out),
            FLOPSPACK_INVALID_ARGUMENT);
  EXPECT_EQ(flopspack_step_context_reserve(context, &o, model, 10), FLOPSPACK_INVALID_ARGUMENT);
  o.num_ranks = 2;
  // A batch that does not fit under REJECT: the same error as plan_step.
  o.overflow = FLOPSPACK_OVERFLOW_ERROR;
  const std::vector<int64_t> big = {16, 16, 16};
  EXPECT_EQ(flopspack_plan_step_in_context(context, &o, model, big.data(), 3, &out),
            FLOPSPACK_INFEASIBLE);
  EXPECT_EQ(out, sentinel);
  EXPECT_EQ(flopspack_step_context_reserve(nullptr, &o, model, 10), FLOPSPACK_INVALID_ARGUMENT);
  EXPECT_EQ(flopspack_step_context_reserve(context, &o, nullptr, 10), FLOPSPACK_INVALID_ARGUMENT);
  EXPECT_EQ(flopspack_step_context_reserve(context, nullptr, model, 10),
            FLOPSPACK_INVALID_ARGUMENT);
  EXPECT_EQ(flopspack_step_context_reserve(context, &o, model, size_t{1} << 40),
            FLOPSPACK_OUT_OF_RANGE);
  EXPECT_STREQ(flopspack_last_error_message(),
               "documents = 1099511627776: at most 2147483647 documents per step");
  // Reserving for nothing is fine.
  o.overflow = FLOPSPACK_OVERFLOW_SPLIT;
  EXPECT_EQ(flopspack_step_context_reserve(context, &o, model, 0), FLOPSPACK_OK);
  EXPECT_EQ(flopspack_step_context_kept_bytes(nullptr), 0u);
  flopspack_step_context_destroy(context);
  flopspack_step_context_destroy(nullptr);
  flopspack_cost_model_destroy(model);
}

}  // namespace
