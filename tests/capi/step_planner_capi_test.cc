// The step-planning entry points through the shared library: results, the
// stateful planner's save/restore, and the bad-input rows of docs/planner.md.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

#include "capi_test_util.h"
#include "step_test_util.h"

namespace {

flopspack_cost_model* Quadratic() {
  flopspack_cost_model* model = nullptr;
  EXPECT_EQ(flopspack_cost_model_polynomial(0, 0, 1, 1.0 / 1024, &model), FLOPSPACK_OK);
  return model;
}

constexpr auto& Options = flopspack_test::StepOptions;

std::vector<int64_t> Lengths(size_t n) { return flopspack_test::SeededLengths(n, 12345, 400); }

TEST(StepPlannerCapiTest, DefaultsAreDocumented) {
  flopspack_step_options o;
  std::memset(&o, 0xAB, sizeof(o));
  flopspack_step_options_init(&o);
  EXPECT_EQ(o.struct_size, sizeof(o));
  EXPECT_EQ(o.num_ranks, 0u);
  EXPECT_EQ(o.microbatches_per_rank, 0u);
  EXPECT_EQ(o.max_tokens_per_microbatch, 0);
  EXPECT_EQ(o.algorithm, FLOPSPACK_STEP_DOCUMENTS);
  EXPECT_EQ(o.ordering, FLOPSPACK_SLOT_ORDER_DESCENDING);
  EXPECT_EQ(o.overflow, FLOPSPACK_OVERFLOW_SPLIT);
  EXPECT_EQ(o.sync, FLOPSPACK_SYNC_STEP);
  EXPECT_EQ(o.pipeline_stages, 0u);
  EXPECT_EQ(o.pipeline_schedule, FLOPSPACK_PIPELINE_1F1B);
  EXPECT_EQ(o.context_parallel_size, 0u);
  EXPECT_EQ(o.context_parallel_layout, FLOPSPACK_CP_DOCUMENT_HEAD_TAIL);
  // The struct before the CP fields was 56 bytes (52 of fields, 4 of
  // padding): it grew, and the CP fields end past those 56 bytes, so
  // struct_size tells old callers from new.
  EXPECT_GT(sizeof(flopspack_step_options), 56u);
  EXPECT_GT(offsetof(flopspack_step_options, context_parallel_layout), 56u - 4);
  flopspack_step_planner_options p;
  flopspack_step_planner_options_init(&p);
  EXPECT_EQ(p.max_defer_steps, 2u);
  EXPECT_EQ(p.outlier_min_tokens, 0);
}

TEST(StepPlannerCapiTest, ContextParallelOptions) {
  flopspack_cost_model* model = Quadratic();
  const std::vector<int64_t> lengths = {1500, 400, 300, 900, 700, 120};
  flopspack_step_options o = Options(2, 0, 1000);
  o.context_parallel_size = 2;
  o.context_parallel_layout = FLOPSPACK_CP_ADAPTIVE;
  flopspack_plan* plan = nullptr;
  ASSERT_EQ(flopspack_plan_step(&o, model, lengths.data(), lengths.size(), &plan), FLOPSPACK_OK);
  struct flopspack_plan_metrics m;
  m.struct_size = sizeof(m);
  ASSERT_EQ(flopspack_plan_metrics(plan, &m), FLOPSPACK_OK);
  EXPECT_EQ(m.split_items, 0u);  // 1,500 tokens fit a CP group of 2 x 1,000
  flopspack_cp_shard* shard = nullptr;
  ASSERT_EQ(flopspack_plan_shard_context_parallel(plan, model, 2, FLOPSPACK_CP_ADAPTIVE, &shard),
            FLOPSPACK_OK);
  flopspack_cp_metrics cp;
  cp.struct_size = sizeof(cp);
  ASSERT_EQ(flopspack_cp_shard_metrics(shard, &cp), FLOPSPACK_OK);
  EXPECT_DOUBLE_EQ(cp.max_cp_rank_cost, m.max_group_cost);
  flopspack_cp_shard_destroy(shard);
  flopspack_plan_destroy(plan);
  // An older caller's struct is 56 bytes, its last 4 padding that may hold
  // anything (here a CP size of 2): it plans without CP (the 1,500-token
  // document is cut at the cap).
  for (uint32_t size : {uint32_t{52}, uint32_t{56}}) {
    o.struct_size = size;
    ASSERT_EQ(flopspack_plan_step(&o, model, lengths.data(), lengths.size(), &plan), FLOPSPACK_OK);
    ASSERT_EQ(flopspack_plan_metrics(plan, &m), FLOPSPACK_OK);
    EXPECT_GT(m.split_items, 0u) << "struct_size " << size;
    flopspack_plan_destroy(plan);
  }
  flopspack_cost_model_destroy(model);
}

TEST(StepPlannerCapiTest, PlansAStep) {
  flopspack_cost_model* model = Quadratic();
  const std::vector<int64_t> lengths = Lengths(120);  // ~75% of 8 x 4 x 1024
  flopspack_step_options o = Options(8, 4, 1024);
  flopspack_plan* plan = nullptr;
  ASSERT_EQ(flopspack_plan_step(&o, model, lengths.data(), lengths.size(), &plan), FLOPSPACK_OK)
      << flopspack_last_error_message();
  ASSERT_EQ(flopspack_plan_group_count(plan), 32u);
  std::vector<int64_t> seen(lengths.size(), 0);
  for (size_t g = 0; g < 32; ++g) {
    size_t rank = 99, slot = 99, n = 0;
    ASSERT_EQ(flopspack_plan_group_slot(plan, g, &rank, &slot), FLOPSPACK_OK);
    EXPECT_EQ(rank, g / 4);
    EXPECT_EQ(slot, g % 4);
    const int64_t *items = nullptr, *tokens = nullptr;
    ASSERT_EQ(flopspack_plan_group(plan, g, &items, &tokens, &n), FLOPSPACK_OK);
    int64_t sum = 0;
    for (size_t k = 0; k < n; ++k) {
      seen[items[k]] += tokens[k];
      sum += tokens[k];
    }
    EXPECT_LE(sum, 1024);
  }
  for (size_t i = 0; i < lengths.size(); ++i) EXPECT_EQ(seen[i], lengths[i]);
  struct flopspack_plan_metrics m;
  m.struct_size = sizeof(m);
  ASSERT_EQ(flopspack_plan_metrics(plan, &m), FLOPSPACK_OK);
  EXPECT_EQ(m.num_ranks, 8u);
  EXPECT_EQ(m.microbatches_per_rank, 4u);
  EXPECT_GT(m.rank_balance_efficiency, 0.999);
  EXPECT_GE(m.rank_gap_to_lower_bound, 0);
  EXPECT_GT(m.fill, 0.5);
  EXPECT_GT(m.worst_slot_balance, 0);
  // Bit-identical on a second call.
  flopspack_plan* again = nullptr;
  ASSERT_EQ(flopspack_plan_step(&o, model, lengths.data(), lengths.size(), &again), FLOPSPACK_OK);
  for (size_t g = 0; g < 32; ++g) {
    double a = 0, b = 0;
    flopspack_plan_group_info(plan, g, nullptr, nullptr, &a);
    flopspack_plan_group_info(again, g, nullptr, nullptr, &b);
    EXPECT_EQ(std::memcmp(&a, &b, sizeof(a)), 0);
  }
  flopspack_plan_destroy(again);
  flopspack_plan_destroy(plan);
  flopspack_cost_model_destroy(model);
}

// One step of 8 ranks x 1 microbatch (8,192 tokens each, cap 10,240 = 25%
// slack) whose first document is worth far more than a rank's share: the
// document-level plan falls back to the cut to the share.
std::vector<int64_t> HeavyStep() {
  std::vector<int64_t> lengths = {12000};
  int64_t total = 12000;
  while (total < 8 * 8192) {
    lengths.push_back(std::min<int64_t>(1500, 8 * 8192 - total));
    total += lengths.back();
  }
  return lengths;
}

struct flopspack_plan_metrics StepMetrics(const flopspack_plan* plan) {
  struct flopspack_plan_metrics m;
  m.struct_size = sizeof(m);
  EXPECT_EQ(flopspack_plan_metrics(plan, &m), FLOPSPACK_OK);
  return m;
}

TEST(StepPlannerCapiTest, MetricsSayWhichAlgorithmPlanned) {
  flopspack_cost_model* model = Quadratic();
  const std::vector<int64_t> lengths = HeavyStep();
  flopspack_step_options o = Options(8, 1, 10240);
  flopspack_plan *plan = nullptr, *tokens = nullptr, *packed = nullptr;
  ASSERT_EQ(flopspack_plan_step(&o, model, lengths.data(), lengths.size(), &plan), FLOPSPACK_OK);
  o.algorithm = FLOPSPACK_STEP_TOKENS;
  ASSERT_EQ(flopspack_plan_step(&o, model, lengths.data(), lengths.size(), &tokens), FLOPSPACK_OK);
  const struct flopspack_plan_metrics m = StepMetrics(plan), t = StepMetrics(tokens);
  // The document-level plan (below 99%) lost to the cut to the share, which
  // beats the token-balanced baseline; the baseline has no fallbacks.
  EXPECT_EQ(m.planned_by, FLOPSPACK_PLANNED_BY_CUT_TO_SHARE);
  EXPECT_GE(m.rank_balance_efficiency, 0.99);
  EXPECT_GT(m.rank_balance_efficiency, t.rank_balance_efficiency);
  EXPECT_EQ(t.planned_by, FLOPSPACK_PLANNED_BY_NONE);

  // Documents within the cap and a light step: the planner's own plan.
  const std::vector<int64_t> light = Lengths(200);
  o.algorithm = FLOPSPACK_STEP_DOCUMENTS;
  flopspack_plan* own = nullptr;
  ASSERT_EQ(flopspack_plan_step(&o, model, light.data(), light.size(), &own), FLOPSPACK_OK);
  EXPECT_EQ(StepMetrics(own).planned_by, FLOPSPACK_PLANNED_BY_DOCUMENTS);

  // Not a step plan: none.
  flopspack_pack_options p;
  flopspack_pack_options_init(&p);
  p.capacity = 16384;
  ASSERT_EQ(flopspack_pack(&p, lengths.data(), lengths.size(), &packed), FLOPSPACK_OK)
      << flopspack_last_error_message();
  EXPECT_EQ(StepMetrics(packed).planned_by, FLOPSPACK_PLANNED_BY_NONE);

  // An older caller's struct (without the field) is filled up to its end.
  struct flopspack_plan_metrics old;
  std::memset(&old, 0x5a, sizeof(old));
  old.struct_size = offsetof(struct flopspack_plan_metrics, planned_by);
  ASSERT_EQ(flopspack_plan_metrics(plan, &old), FLOPSPACK_OK);
  int32_t untouched;
  std::memset(&untouched, 0x5a, sizeof(untouched));
  EXPECT_EQ(old.planned_by, untouched);

  // The stateful planner reports it too.
  flopspack_step_planner_options sp;
  flopspack_step_planner_options_init(&sp);
  sp.tokens_per_step = 8 * 8192;
  flopspack_step_planner* planner = nullptr;
  ASSERT_EQ(flopspack_step_planner_create(&o, &sp, model, &planner), FLOPSPACK_OK)
      << flopspack_last_error_message();
  int64_t first = -1;
  ASSERT_EQ(flopspack_step_planner_push(planner, lengths.data(), lengths.size(), &first),
            FLOPSPACK_OK);
  flopspack_plan* stepped = nullptr;
  ASSERT_EQ(flopspack_step_planner_next(planner, &stepped), FLOPSPACK_OK)
      << flopspack_last_error_message();
  EXPECT_NE(StepMetrics(stepped).planned_by, FLOPSPACK_PLANNED_BY_NONE);

  for (flopspack_plan* q : {plan, tokens, own, packed, stepped}) flopspack_plan_destroy(q);
  flopspack_step_planner_destroy(planner);
  flopspack_cost_model_destroy(model);
}

// The synchronization model: MICROBATCH balances every slot (a higher
// microbatch-sync efficiency than STEP on the same step), every step plan
// reports the figures, pipelines only with >= 2 stages; a stateful planner
// keeps the model through save and restore.
TEST(StepPlannerCapiTest, SynchronizationModel) {
  flopspack_cost_model* model = Quadratic();
  std::vector<int64_t> lengths = Lengths(130);                       // ~80% of 8 x 4 x 1024
  for (size_t i = 0; i < lengths.size(); i += 13) lengths[i] = 900;  // a tail
  flopspack_step_options o = Options(8, 4, 1024);
  o.overflow = FLOPSPACK_OVERFLOW_DEFER;
  flopspack_plan *step = nullptr, *micro = nullptr, *pipe = nullptr;
  ASSERT_EQ(flopspack_plan_step(&o, model, lengths.data(), lengths.size(), &step), FLOPSPACK_OK);
  o.sync = FLOPSPACK_SYNC_MICROBATCH;
  ASSERT_EQ(flopspack_plan_step(&o, model, lengths.data(), lengths.size(), &micro), FLOPSPACK_OK);
  o.pipeline_stages = 4;
  ASSERT_EQ(flopspack_plan_step(&o, model, lengths.data(), lengths.size(), &pipe), FLOPSPACK_OK);
  const struct flopspack_plan_metrics s = StepMetrics(step), m = StepMetrics(micro),
                                      p = StepMetrics(pipe);
  ASSERT_EQ(s.deferred_items + m.deferred_items, 0u);
  EXPECT_GT(s.microbatch_sync_efficiency, 0);
  EXPECT_GT(m.microbatch_sync_efficiency, s.microbatch_sync_efficiency);
  EXPECT_LE(m.microbatch_sync_efficiency, 1);
  EXPECT_GE(m.mean_slot_balance, m.worst_slot_balance);
  EXPECT_GE(m.microbatch_sync_cost, m.max_rank_cost);
  EXPECT_LE(m.microbatch_sync_lower_bound, m.microbatch_sync_cost);
  EXPECT_EQ(s.pipeline_makespan, 0);
  EXPECT_EQ(m.pipeline_efficiency, 0);
  EXPECT_GT(p.pipeline_makespan, 0);
  EXPECT_GT(p.pipeline_efficiency, 0);
  EXPECT_LT(p.pipeline_efficiency, 1);  // 1F1B has a bubble
  EXPECT_LE(p.pipeline_lower_bound, p.pipeline_makespan);
  EXPECT_EQ(p.microbatch_sync_cost, m.microbatch_sync_cost);  // stages do not change the plan

  // The stateful planner saves the model with its queue.
  flopspack_step_planner_options sp;
  flopspack_step_planner_options_init(&sp);
  flopspack_step_planner* planner = nullptr;
  ASSERT_EQ(flopspack_step_planner_create(&o, &sp, model, &planner), FLOPSPACK_OK);
  ASSERT_EQ(flopspack_step_planner_push(planner, lengths.data(), lengths.size(), nullptr),
            FLOPSPACK_OK);
  size_t size = 0;
  ASSERT_EQ(flopspack_step_planner_save_size(planner, &size), FLOPSPACK_OK);
  std::vector<unsigned char> bytes(size);
  ASSERT_EQ(flopspack_step_planner_save(planner, bytes.data(), bytes.size(), &size), FLOPSPACK_OK);
  flopspack_step_planner* restored = nullptr;
  ASSERT_EQ(flopspack_step_planner_restore(bytes.data(), size, model, &restored), FLOPSPACK_OK)
      << flopspack_last_error_message();
  flopspack_plan *a = nullptr, *b = nullptr;
  ASSERT_EQ(flopspack_step_planner_next(planner, &a), FLOPSPACK_OK);
  ASSERT_EQ(flopspack_step_planner_next(restored, &b), FLOPSPACK_OK);
  EXPECT_EQ(StepMetrics(a).microbatch_sync_cost, StepMetrics(b).microbatch_sync_cost);
  EXPECT_GT(StepMetrics(b).pipeline_makespan, 0);
  EXPECT_EQ(StepMetrics(a).pipeline_makespan, StepMetrics(b).pipeline_makespan);

  for (flopspack_plan* q : {step, micro, pipe, a, b}) flopspack_plan_destroy(q);
  flopspack_step_planner_destroy(planner);
  flopspack_step_planner_destroy(restored);
  flopspack_cost_model_destroy(model);
}

TEST(StepPlannerCapiTest, DeferredDocumentsAreListed) {
  flopspack_cost_model* model = Quadratic();
  const int64_t lengths[] = {100, 5000, 200};
  flopspack_step_options o = Options(2, 1, 1024);
  o.overflow = FLOPSPACK_OVERFLOW_DEFER;
  flopspack_plan* plan = nullptr;
  ASSERT_EQ(flopspack_plan_step(&o, model, lengths, 3, &plan), FLOPSPACK_OK);
  const int64_t* items = nullptr;
  size_t n = 0;
  ASSERT_EQ(flopspack_plan_deferred(plan, &items, &n), FLOPSPACK_OK);
  ASSERT_EQ(n, 1u);
  EXPECT_EQ(items[0], 1);
  flopspack_plan_destroy(plan);
  flopspack_cost_model_destroy(model);
}

TEST(StepPlannerCapiTest, StatefulPlannerSavesAndRestores) {
  flopspack_cost_model* model = Quadratic();
  flopspack_step_options o = Options(4, 2, 1024);
  flopspack_step_planner_options p;
  flopspack_step_planner_options_init(&p);
  p.tokens_per_step = 7000;
  p.outlier_min_tokens = 350;
  flopspack_step_planner* a = nullptr;
  ASSERT_EQ(flopspack_step_planner_create(&o, &p, model, &a), FLOPSPACK_OK)
      << flopspack_last_error_message();
  const std::vector<int64_t> lengths = Lengths(400);
  int64_t first = -1;
  ASSERT_EQ(flopspack_step_planner_push(a, lengths.data(), 200, &first), FLOPSPACK_OK);
  EXPECT_EQ(first, 0);
  flopspack_plan* plan = nullptr;
  ASSERT_EQ(flopspack_step_planner_next(a, &plan), FLOPSPACK_OK);
  flopspack_plan_destroy(plan);

  size_t size = 0;
  ASSERT_EQ(flopspack_step_planner_save_size(a, &size), FLOPSPACK_OK);
  std::vector<unsigned char> bytes(size);
  size_t written = 12345;
  EXPECT_FLOPSPACK_ERROR(flopspack_step_planner_save(a, bytes.data(), size - 1, &written),
                         FLOPSPACK_BUFFER_TOO_SMALL, "bytes the state needs");
  EXPECT_EQ(written, 12345u);
  ASSERT_EQ(flopspack_step_planner_save(a, bytes.data(), size, &written), FLOPSPACK_OK);
  EXPECT_EQ(written, size);

  flopspack_step_planner* b = nullptr;
  ASSERT_EQ(flopspack_step_planner_restore(bytes.data(), size, model, &b), FLOPSPACK_OK);
  flopspack_cost_model_destroy(model);  // the planners keep their own reference
  for (flopspack_step_planner* planner : {a, b}) {
    ASSERT_EQ(flopspack_step_planner_push(planner, lengths.data() + 200, 200, &first),
              FLOPSPACK_OK);
    EXPECT_EQ(first, 200);
  }
  for (int step = 0; step < 4; ++step) {
    flopspack_plan *pa = nullptr, *pb = nullptr;
    ASSERT_EQ(flopspack_step_planner_next(a, &pa), FLOPSPACK_OK);
    ASSERT_EQ(flopspack_step_planner_next(b, &pb), FLOPSPACK_OK);
    ASSERT_EQ(flopspack_plan_group_count(pa), flopspack_plan_group_count(pb));
    for (size_t g = 0; g < flopspack_plan_group_count(pa); ++g) {
      const int64_t *ia = nullptr, *ib = nullptr;
      size_t na = 0, nb = 0;
      flopspack_plan_group(pa, g, &ia, nullptr, &na);
      flopspack_plan_group(pb, g, &ib, nullptr, &nb);
      ASSERT_EQ(na, nb);
      EXPECT_EQ(std::memcmp(ia, ib, na * sizeof(int64_t)), 0);
    }
    flopspack_plan_destroy(pa);
    flopspack_plan_destroy(pb);
  }
  uint64_t documents = 1, steps = 0;
  int64_t tokens = 1;
  ASSERT_EQ(flopspack_step_planner_pending(b, &documents, &tokens, &steps), FLOPSPACK_OK);
  EXPECT_EQ(steps, 5u);

  // Corrupted bytes are refused cleanly.
  bytes[bytes.size() / 2] ^= 0x01;
  flopspack_step_planner* c = nullptr;
  model = Quadratic();
  EXPECT_FLOPSPACK_ERROR(flopspack_step_planner_restore(bytes.data(), size, model, &c),
                         FLOPSPACK_INVALID_ARGUMENT, "checksum");
  EXPECT_EQ(c, nullptr);
  EXPECT_FLOPSPACK_ERROR(flopspack_step_planner_restore(bytes.data(), 5, model, &c),
                         FLOPSPACK_INVALID_ARGUMENT, "too short");
  flopspack_cost_model_destroy(model);
  flopspack_step_planner_destroy(a);
  flopspack_step_planner_destroy(b);
  flopspack_step_planner_destroy(nullptr);
}

TEST(StepPlannerBadInputTest, Rows) {
  flopspack_cost_model* model = Quadratic();
  const int64_t lengths[] = {10, 20, 3000};
  flopspack_plan* plan = nullptr;
  flopspack_step_options o = Options(0, 1, 1024);
  EXPECT_FLOPSPACK_ERROR(flopspack_plan_step(&o, model, lengths, 2, &plan),
                         FLOPSPACK_INVALID_ARGUMENT, "num_ranks = 0");
  o = Options(2, 1, 0);
  EXPECT_FLOPSPACK_ERROR(flopspack_plan_step(&o, model, lengths, 2, &plan),
                         FLOPSPACK_INVALID_ARGUMENT, "max_tokens_per_microbatch = 0");
  o = Options(2, 1, -5);
  EXPECT_FLOPSPACK_ERROR(flopspack_plan_step(&o, model, lengths, 2, &plan),
                         FLOPSPACK_INVALID_ARGUMENT, "max_tokens_per_microbatch = -5");
  o = Options(2, 1, 1024);
  o.overflow = FLOPSPACK_OVERFLOW_ERROR;
  EXPECT_FLOPSPACK_ERROR(flopspack_plan_step(&o, model, lengths, 3, &plan),
                         FLOPSPACK_INVALID_ARGUMENT, "lengths[2] = 3000");
  o.overflow = 7;
  EXPECT_FLOPSPACK_ERROR(flopspack_plan_step(&o, model, lengths, 2, &plan),
                         FLOPSPACK_INVALID_ARGUMENT, "overflow = 7");
  o = Options(2, 1, 1024);
  o.sync = 2;
  EXPECT_FLOPSPACK_ERROR(flopspack_plan_step(&o, model, lengths, 2, &plan),
                         FLOPSPACK_INVALID_ARGUMENT, "sync = 2");
  o.sync = -1;
  EXPECT_FLOPSPACK_ERROR(flopspack_plan_step(&o, model, lengths, 2, &plan),
                         FLOPSPACK_INVALID_ARGUMENT, "sync = -1");
  o = Options(2, 1, 1024);
  o.pipeline_schedule = 1;
  EXPECT_FLOPSPACK_ERROR(flopspack_plan_step(&o, model, lengths, 2, &plan),
                         FLOPSPACK_INVALID_ARGUMENT, "pipeline_schedule = 1");
  o = Options(2, 1, 1024);
  o.pipeline_stages = 1025;
  EXPECT_FLOPSPACK_ERROR(flopspack_plan_step(&o, model, lengths, 2, &plan),
                         FLOPSPACK_INVALID_ARGUMENT, "pipeline_stages = 1025");
  o.pipeline_stages = 4000000000u;
  EXPECT_FLOPSPACK_ERROR(flopspack_plan_step(&o, model, lengths, 2, &plan),
                         FLOPSPACK_INVALID_ARGUMENT, "pipeline_stages = 4000000000");
  o = Options(1, 1, 16);
  o.overflow = FLOPSPACK_OVERFLOW_SPLIT;
  EXPECT_FLOPSPACK_ERROR(flopspack_plan_step(&o, model, lengths, 2, &plan), FLOPSPACK_INFEASIBLE,
                         "does not fit");
  o = Options(2, 1, 1024);
  EXPECT_FLOPSPACK_ERROR(flopspack_plan_step(nullptr, model, lengths, 2, &plan),
                         FLOPSPACK_INVALID_ARGUMENT, "options");
  EXPECT_FLOPSPACK_ERROR(flopspack_plan_step(&o, nullptr, lengths, 2, &plan),
                         FLOPSPACK_INVALID_ARGUMENT, "model");
  EXPECT_FLOPSPACK_ERROR(flopspack_plan_step(&o, model, nullptr, 2, &plan),
                         FLOPSPACK_INVALID_ARGUMENT, "lengths");
  EXPECT_FLOPSPACK_ERROR(flopspack_plan_step(&o, model, lengths, 2, nullptr),
                         FLOPSPACK_INVALID_ARGUMENT, "out");
  const int64_t negative[] = {4, 0};
  EXPECT_FLOPSPACK_ERROR(flopspack_plan_step(&o, model, negative, 2, &plan),
                         FLOPSPACK_INVALID_ARGUMENT, "lengths[1] = 0");
  EXPECT_EQ(plan, nullptr) << "out must stay untouched on failure";

  // A newer caller's struct with a non-zero unknown tail.
  struct Newer {
    flopspack_step_options base;
    uint64_t extra;
  } newer;
  std::memset(&newer, 0, sizeof(newer));
  newer.base = Options(2, 1, 1024);
  newer.base.struct_size = sizeof(newer);
  newer.extra = 1;
  EXPECT_FLOPSPACK_ERROR(flopspack_plan_step(&newer.base, model, lengths, 2, &plan),
                         FLOPSPACK_INVALID_ARGUMENT, "unknown tail");
  newer.extra = 0;
  ASSERT_EQ(flopspack_plan_step(&newer.base, model, lengths, 2, &plan), FLOPSPACK_OK);
  flopspack_plan_destroy(plan);

  // Stateful planner.
  flopspack_step_planner* planner = nullptr;
  o = Options(2, 0, 1024);
  EXPECT_FLOPSPACK_ERROR(flopspack_step_planner_create(&o, nullptr, model, &planner),
                         FLOPSPACK_INVALID_ARGUMENT, "tokens_per_step");
  o = Options(2, 1, 1024);
  o.overflow = FLOPSPACK_OVERFLOW_ERROR;
  ASSERT_EQ(flopspack_step_planner_create(&o, nullptr, model, &planner), FLOPSPACK_OK);
  EXPECT_FLOPSPACK_ERROR(flopspack_step_planner_push(planner, lengths, 3, nullptr),
                         FLOPSPACK_INVALID_ARGUMENT, "lengths[2] = 3000");
  uint64_t documents = 9;
  ASSERT_EQ(flopspack_step_planner_pending(planner, &documents, nullptr, nullptr), FLOPSPACK_OK);
  EXPECT_EQ(documents, 0u);
  size_t written = 0;
  EXPECT_FLOPSPACK_ERROR(flopspack_step_planner_save(planner, nullptr, 10, &written),
                         FLOPSPACK_INVALID_ARGUMENT, "buffer");
  flopspack_step_planner_destroy(planner);
  flopspack_cost_model_destroy(model);
}

}  // namespace
