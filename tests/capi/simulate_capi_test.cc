// The straggler emulator through the shared library: a run with its series
// and pieces, the sweep, progress and cancellation, and the bad-input rows.
#include <cmath>
#include <cstddef>
#include <cstring>
#include <vector>

#include "capi_test_util.h"

namespace {

std::vector<int64_t> Lengths() {
  // A deterministic spread of 1..6000 with a few long documents.
  std::vector<int64_t> lengths;
  for (int64_t i = 0; i < 20000; ++i) {
    lengths.push_back(i % 997 == 0 ? 5000 + (i % 1000) : 1 + (i * 7919) % 1500);
  }
  return lengths;
}

TEST(SimulateCapiTest, RunSeriesAndPieces) {
  const auto lengths = Lengths();
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_polynomial(10, 0, 1, 0.001, &model), FLOPSPACK_OK);
  flopspack_simulate_options o;
  flopspack_simulate_options_init(&o);
  EXPECT_EQ(o.num_ranks, 1024u);
  EXPECT_EQ(o.tokens_per_microbatch, 8192);
  o.num_ranks = 32;
  o.microbatches_per_rank = 2;
  o.tokens_per_microbatch = 4096;
  o.num_steps = 25;
  o.record_steps = 1;
  flopspack_simulate_result* r = nullptr;
  ASSERT_EQ(flopspack_simulate(lengths.data(), lengths.size(), model, &o, &r), FLOPSPACK_OK)
      << flopspack_last_error_message();
  flopspack_simulate_summary sum;
  sum.struct_size = sizeof(sum);
  ASSERT_EQ(flopspack_simulate_result_summary(r, &sum), FLOPSPACK_OK);
  EXPECT_EQ(sum.num_steps, 25u);
  EXPECT_EQ(sum.num_ranks, 32u);
  EXPECT_EQ(sum.real_tokens, 25 * 64 * 4096);
  EXPECT_EQ(sum.mean_fill, 1.0);
  EXPECT_GT(sum.mean_balance_efficiency, 0.3);
  EXPECT_LT(sum.mean_balance_efficiency, 1.0);
  EXPECT_LE(sum.p5_balance_efficiency, sum.p50_balance_efficiency);
  EXPECT_LE(sum.p50_balance_efficiency, sum.p95_balance_efficiency);
  EXPECT_FALSE(std::isnan(sum.predicted_efficiency));

  size_t n = 0;
  ASSERT_EQ(
      flopspack_simulate_result_series(r, FLOPSPACK_SIM_SERIES_BALANCE_EFFICIENCY, nullptr, 0, &n),
      FLOPSPACK_OK);
  ASSERT_EQ(n, 25u);
  std::vector<double> eff(n), time(n), mean(n);
  ASSERT_EQ(flopspack_simulate_result_series(r, FLOPSPACK_SIM_SERIES_BALANCE_EFFICIENCY, eff.data(),
                                             n, &n),
            FLOPSPACK_OK);
  ASSERT_EQ(flopspack_simulate_result_series(r, FLOPSPACK_SIM_SERIES_STEP_TIME, time.data(), n, &n),
            FLOPSPACK_OK);
  ASSERT_EQ(
      flopspack_simulate_result_series(r, FLOPSPACK_SIM_SERIES_MEAN_RANK_COST, mean.data(), n, &n),
      FLOPSPACK_OK);
  double sum_eff = 0, sum_mean = 0, sum_time = 0;
  for (size_t i = 0; i < n; ++i) {
    EXPECT_DOUBLE_EQ(eff[i], mean[i] / time[i]);
    sum_eff += eff[i];
    sum_mean += mean[i];
    sum_time += time[i];
  }
  EXPECT_NEAR(sum.mean_balance_efficiency, sum_eff / n, 1e-12);
  EXPECT_NEAR(sum.relative_throughput, sum_mean / sum_time, 1e-12);
  EXPECT_NEAR(sum.mean_step_time, sum_time / n, 1e-9 * sum_time);

  flopspack_stats* pieces = nullptr;
  ASSERT_EQ(flopspack_simulate_result_pieces(r, &pieces), FLOPSPACK_OK);
  flopspack_stats_summary ps;
  ps.struct_size = sizeof(ps);
  ASSERT_EQ(flopspack_stats_summarize(pieces, &ps), FLOPSPACK_OK);
  EXPECT_EQ(ps.tokens, sum.real_tokens);
  EXPECT_LE(ps.max, 4096);
  EXPECT_EQ(ps.has_cost, 1);
  flopspack_stats_destroy(pieces);
  flopspack_simulate_result_destroy(r);
  flopspack_simulate_result_destroy(nullptr);
  flopspack_cost_model_destroy(model);
}

int StopAfterThree(void* user_data, uint64_t done, uint64_t total) {
  auto* calls = static_cast<std::vector<uint64_t>*>(user_data);
  calls->push_back(done);
  (void)total;
  return done >= 3 ? 1 : 0;
}

TEST(SimulateCapiTest, SweepAndCancellation) {
  const auto lengths = Lengths();
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_polynomial(0, 0, 1, 0.001, &model), FLOPSPACK_OK);
  flopspack_simulate_options o;
  flopspack_simulate_options_init(&o);
  o.num_steps = 20;
  const uint64_t counts[3] = {8, 64, 512};
  double sampled[3], predicted[3], throughput[3];
  ASSERT_EQ(flopspack_simulate_sweep(lengths.data(), lengths.size(), model, &o, counts, 3, sampled,
                                     predicted, throughput),
            FLOPSPACK_OK)
      << flopspack_last_error_message();
  EXPECT_GT(sampled[0], sampled[1]);
  EXPECT_GT(sampled[1], sampled[2]);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(predicted[i], throughput[i], 0.02) << counts[i];
  o.max_tokens_per_microbatch = 10240;
  for (int policy :
       {FLOPSPACK_SIM_TOKEN_BALANCED, FLOPSPACK_SIM_BUCKETS, FLOPSPACK_SIM_PLANNER_DOCUMENTS,
        FLOPSPACK_SIM_PLANNER_TOKENS, FLOPSPACK_SIM_PLANNER_SEQUENCES}) {
    o.policy = policy;
    ASSERT_EQ(flopspack_simulate_sweep(lengths.data(), lengths.size(), model, &o, counts, 2,
                                       sampled, predicted, throughput),
              FLOPSPACK_OK)
        << flopspack_last_error_message();
    EXPECT_TRUE(std::isnan(predicted[0]));
    EXPECT_GT(sampled[0], 0.0);
    EXPECT_LE(throughput[0], 1.0);
  }
  o.policy = FLOPSPACK_SIM_RANDOM;
  o.max_tokens_per_microbatch = 0;

  std::vector<uint64_t> calls;
  o.progress = StopAfterThree;
  o.progress_user_data = &calls;
  flopspack_simulate_result* r = nullptr;
  EXPECT_FLOPSPACK_ERROR(flopspack_simulate(lengths.data(), lengths.size(), model, &o, &r),
                         FLOPSPACK_CANCELLED, "after 3 of 20 steps");
  EXPECT_EQ(r, nullptr);
  EXPECT_EQ(calls, (std::vector<uint64_t>{1, 2, 3}));
  flopspack_cost_model_destroy(model);
}

// ---- Topology: sync model and pipelines (docs/straggler-emulator.md) ----

// Runs lengths with options o and returns the summary and step times.
flopspack_simulate_summary RunSummary(const std::vector<int64_t>& lengths,
                                      const flopspack_cost_model* model,
                                      const flopspack_simulate_options& o,
                                      std::vector<double>* times = nullptr) {
  flopspack_simulate_result* r = nullptr;
  flopspack_simulate_summary sum{};
  sum.struct_size = sizeof(sum);
  EXPECT_EQ(flopspack_simulate(lengths.data(), lengths.size(), model, &o, &r), FLOPSPACK_OK)
      << flopspack_last_error_message();
  if (r == nullptr) return sum;
  EXPECT_EQ(flopspack_simulate_result_summary(r, &sum), FLOPSPACK_OK);
  if (times != nullptr) {
    size_t n = 0;
    times->assign(o.num_steps, 0);
    EXPECT_EQ(flopspack_simulate_result_series(r, FLOPSPACK_SIM_SERIES_STEP_TIME, times->data(),
                                               times->size(), &n),
              FLOPSPACK_OK);
  }
  flopspack_simulate_result_destroy(r);
  return sum;
}

TEST(SimulateTopologyTest, ModelsAreReportedAndOrdered) {
  const auto lengths = Lengths();
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_polynomial(10, 0, 1, 0.001, &model), FLOPSPACK_OK);
  flopspack_simulate_options o;
  flopspack_simulate_options_init(&o);
  EXPECT_EQ(o.sync, FLOPSPACK_SYNC_STEP);
  EXPECT_EQ(o.pipeline_stages, 0u);
  EXPECT_EQ(o.pipeline_schedule, FLOPSPACK_PIPELINE_1F1B);
  o.num_ranks = 16;
  o.microbatches_per_rank = 4;
  o.tokens_per_microbatch = 2048;
  o.num_steps = 20;
  o.record_steps = 1;
  std::vector<double> step_times, micro_times, pipe_times;
  const flopspack_simulate_summary step = RunSummary(lengths, model, o, &step_times);
  o.sync = FLOPSPACK_SYNC_MICROBATCH;
  const flopspack_simulate_summary micro = RunSummary(lengths, model, o, &micro_times);
  o.pipeline_stages = 4;
  const flopspack_simulate_summary pipe = RunSummary(lengths, model, o, &pipe_times);
  EXPECT_EQ(step.sync, FLOPSPACK_SYNC_STEP);
  EXPECT_EQ(micro.sync, FLOPSPACK_SYNC_MICROBATCH);
  EXPECT_EQ(micro.pipeline_stages, 0u);
  EXPECT_EQ(pipe.pipeline_stages, 4u);
  EXPECT_EQ(pipe.pipeline_schedule, FLOPSPACK_PIPELINE_1F1B);
  EXPECT_EQ(step.mean_sync_efficiency, step.mean_balance_efficiency);
  // Random dealing does not depend on the model: the same microbatches, and
  // the sum of slot maxima is at least the slowest rank, every step.
  EXPECT_EQ(micro.mean_balance_efficiency, step.mean_balance_efficiency);
  for (size_t i = 0; i < step_times.size(); ++i) EXPECT_GE(micro_times[i], step_times[i]);
  EXPECT_LT(micro.mean_sync_efficiency, step.mean_sync_efficiency);
  EXPECT_LT(micro.relative_throughput, step.relative_throughput);
  EXPECT_FALSE(std::isnan(micro.predicted_efficiency));
  // Four stages, four microbatches: at best M / (M + P - 1) of the time is
  // work (the 1F1B bubble), and each stage runs a quarter of its rank.
  EXPECT_LE(pipe.mean_sync_efficiency, 4.0 / 7.0 + 1e-12);
  EXPECT_GT(pipe.mean_sync_efficiency, 0.4);
  EXPECT_TRUE(std::isnan(pipe.predicted_efficiency));
  for (size_t i = 0; i < step_times.size(); ++i) {
    // The slowest replica's stage work is its rank cost / P, plus a bubble.
    EXPECT_GE(pipe_times[i], step_times[i] / 4 * (1 - 1e-12));
  }
  flopspack_cost_model_destroy(model);
}

TEST(SimulateTopologyTest, OlderCallersGetTheStepModel) {
  const auto lengths = Lengths();
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_polynomial(10, 0, 1, 0.001, &model), FLOPSPACK_OK);
  flopspack_simulate_options o;
  flopspack_simulate_options_init(&o);
  o.num_ranks = 8;
  o.num_steps = 5;
  const flopspack_simulate_summary now = RunSummary(lengths, model, o);
  // A caller compiled before the topology fields: struct_size ends at
  // progress_user_data, and garbage after it is never read.
  o.struct_size = static_cast<uint32_t>(offsetof(flopspack_simulate_options, sync));
  o.sync = 99;
  o.pipeline_stages = 5000;
  const flopspack_simulate_summary old = RunSummary(lengths, model, o);
  EXPECT_EQ(old.sync, FLOPSPACK_SYNC_STEP);
  EXPECT_EQ(old.relative_throughput, now.relative_throughput);
  EXPECT_EQ(old.mean_step_time, now.mean_step_time);
  // An older summary struct gets only its own fields.
  flopspack_simulate_result* r = nullptr;
  ASSERT_EQ(flopspack_simulate(lengths.data(), lengths.size(), model, nullptr, &r), FLOPSPACK_OK);
  flopspack_simulate_summary sum;
  std::memset(&sum, 0xAB, sizeof(sum));
  sum.struct_size = static_cast<uint32_t>(offsetof(flopspack_simulate_summary, sync));
  ASSERT_EQ(flopspack_simulate_result_summary(r, &sum), FLOPSPACK_OK);
  int32_t untouched;
  std::memset(&untouched, 0xAB, sizeof(untouched));
  EXPECT_EQ(sum.sync, untouched);
  flopspack_simulate_result_destroy(r);
  flopspack_cost_model_destroy(model);
}

TEST(SimulateTopologyTest, BadTopologyRows) {
  const auto lengths = Lengths();
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_tokens(&model), FLOPSPACK_OK);
  flopspack_simulate_result* r = nullptr;
  flopspack_simulate_options o;
  flopspack_simulate_options_init(&o);
  o.sync = 2;
  EXPECT_FLOPSPACK_ERROR(flopspack_simulate(lengths.data(), lengths.size(), model, &o, &r),
                         FLOPSPACK_INVALID_ARGUMENT, "sync = 2");
  flopspack_simulate_options_init(&o);
  o.sync = -1;
  EXPECT_FLOPSPACK_ERROR(flopspack_simulate(lengths.data(), lengths.size(), model, &o, &r),
                         FLOPSPACK_INVALID_ARGUMENT, "sync = -1");
  flopspack_simulate_options_init(&o);
  o.pipeline_stages = 1025;
  EXPECT_FLOPSPACK_ERROR(flopspack_simulate(lengths.data(), lengths.size(), model, &o, &r),
                         FLOPSPACK_INVALID_ARGUMENT, "pipeline_stages = 1025");
  flopspack_simulate_options_init(&o);
  o.pipeline_schedule = 3;
  EXPECT_FLOPSPACK_ERROR(flopspack_simulate(lengths.data(), lengths.size(), model, &o, &r),
                         FLOPSPACK_INVALID_ARGUMENT, "pipeline_schedule = 3");
  const uint64_t counts[1] = {16};
  double out[1] = {-1};
  EXPECT_FLOPSPACK_ERROR(flopspack_simulate_sweep(lengths.data(), lengths.size(), model, &o, counts,
                                                  1, out, nullptr, nullptr),
                         FLOPSPACK_INVALID_ARGUMENT, "pipeline_schedule = 3");
  EXPECT_EQ(out[0], -1);
  EXPECT_EQ(r, nullptr);
  flopspack_cost_model_destroy(model);
}

TEST(SimulateCpTest, CpOneIsNoneAndOldCallersIgnoreThePadding) {
  const auto lengths = Lengths();
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_polynomial(10, 0, 1, 0.001, &model), FLOPSPACK_OK);
  flopspack_simulate_options o;
  flopspack_simulate_options_init(&o);
  EXPECT_EQ(o.context_parallel_size, 0u);
  EXPECT_EQ(o.context_parallel_layout, FLOPSPACK_CP_DOCUMENT_HEAD_TAIL);
  o.num_ranks = 8;
  o.num_steps = 5;
  o.policy = FLOPSPACK_SIM_PLANNER_DOCUMENTS;
  o.max_tokens_per_microbatch = 10000;
  const flopspack_simulate_summary none = RunSummary(lengths, model, o);
  o.context_parallel_size = 1;
  o.context_parallel_layout = FLOPSPACK_CP_SEQUENCE_HEAD_TAIL;
  const flopspack_simulate_summary one = RunSummary(lengths, model, o);
  EXPECT_EQ(one.relative_throughput, none.relative_throughput);
  EXPECT_EQ(one.mean_step_time, none.mean_step_time);
  o.context_parallel_size = 4;
  const flopspack_simulate_summary four = RunSummary(lengths, model, o);
  // A microbatch holds C x tokens_per_microbatch tokens: more than one
  // GPU's worth per microbatch, at most C x (8 ranks x 8,192 x 5 steps).
  EXPECT_GT(four.real_tokens, int64_t{8} * 8192 * 5);
  EXPECT_LE(four.real_tokens, int64_t{4} * 8 * 8192 * 5);
  // A caller compiled before the CP fields: struct_size ends after
  // pipeline_schedule, and whatever lies in the padding after it (where
  // context_parallel_size is now) is never read.
  o.struct_size = static_cast<uint32_t>(offsetof(flopspack_simulate_options, pipeline_schedule) +
                                        sizeof(o.pipeline_schedule));
  o.context_parallel_size = 0xABABABABu;
  o.context_parallel_layout = 77;
  const flopspack_simulate_summary old = RunSummary(lengths, model, o);
  EXPECT_EQ(old.relative_throughput, none.relative_throughput);
  EXPECT_EQ(old.real_tokens, none.real_tokens);
  flopspack_cost_model_destroy(model);
}

TEST(SimulateCpTest, BadCpRows) {
  const auto lengths = Lengths();
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_tokens(&model), FLOPSPACK_OK);
  flopspack_simulate_result* r = nullptr;
  flopspack_simulate_options o;
  flopspack_simulate_options_init(&o);
  o.context_parallel_size = 65537;
  EXPECT_FLOPSPACK_ERROR(flopspack_simulate(lengths.data(), lengths.size(), model, &o, &r),
                         FLOPSPACK_INVALID_ARGUMENT, "context_parallel_size = 65537");
  flopspack_simulate_options_init(&o);
  o.context_parallel_size = 2;
  o.context_parallel_layout = 3;
  EXPECT_FLOPSPACK_ERROR(flopspack_simulate(lengths.data(), lengths.size(), model, &o, &r),
                         FLOPSPACK_INVALID_ARGUMENT, "context_parallel_layout = 3");
  flopspack_simulate_options_init(&o);
  o.context_parallel_size = 2;
  o.policy = FLOPSPACK_SIM_BUCKETS;
  EXPECT_FLOPSPACK_ERROR(flopspack_simulate(lengths.data(), lengths.size(), model, &o, &r),
                         FLOPSPACK_INVALID_ARGUMENT, "bucket sampler");
  EXPECT_EQ(r, nullptr);
  flopspack_cost_model_destroy(model);
}

// ---- Bad input (docs/straggler-emulator.md, "Errors") ----

TEST(SimulateBadInputTest, Rows) {
  const auto lengths = Lengths();
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_tokens(&model), FLOPSPACK_OK);
  flopspack_simulate_result* r = nullptr;
  flopspack_simulate_options o;
  flopspack_simulate_options_init(&o);
  EXPECT_FLOPSPACK_ERROR(flopspack_simulate(lengths.data(), lengths.size(), nullptr, &o, &r),
                         FLOPSPACK_INVALID_ARGUMENT, "model must not be NULL");
  EXPECT_FLOPSPACK_ERROR(flopspack_simulate(nullptr, 0, model, &o, &r), FLOPSPACK_INVALID_ARGUMENT,
                         "lengths is empty");
  const int64_t bad[2] = {7, -2};
  EXPECT_FLOPSPACK_ERROR(flopspack_simulate(bad, 2, model, &o, &r), FLOPSPACK_INVALID_ARGUMENT,
                         "lengths[1] = -2");
  o.policy = 77;
  EXPECT_FLOPSPACK_ERROR(flopspack_simulate(lengths.data(), lengths.size(), model, &o, &r),
                         FLOPSPACK_INVALID_ARGUMENT, "policy = 77");
  flopspack_simulate_options_init(&o);
  o.num_ranks = 0;
  EXPECT_FLOPSPACK_ERROR(flopspack_simulate(lengths.data(), lengths.size(), model, &o, &r),
                         FLOPSPACK_INVALID_ARGUMENT, "num_ranks = 0");
  flopspack_simulate_options_init(&o);
  o.tokens_per_microbatch = int64_t{1} << 30;
  EXPECT_FLOPSPACK_ERROR(flopspack_simulate(lengths.data(), lengths.size(), model, &o, &r),
                         FLOPSPACK_INVALID_ARGUMENT, "tokens_per_microbatch");
  flopspack_simulate_options_init(&o);
  o.max_tokens_per_microbatch = 100;
  EXPECT_FLOPSPACK_ERROR(flopspack_simulate(lengths.data(), lengths.size(), model, &o, &r),
                         FLOPSPACK_INVALID_ARGUMENT, "max_tokens_per_microbatch = 100");
  flopspack_simulate_options_init(&o);
  o.record_steps = 2;
  EXPECT_FLOPSPACK_ERROR(flopspack_simulate(lengths.data(), lengths.size(), model, &o, &r),
                         FLOPSPACK_INVALID_ARGUMENT, "record_steps = 2");
  o.struct_size = 0;
  EXPECT_FLOPSPACK_ERROR(flopspack_simulate(lengths.data(), lengths.size(), model, &o, &r),
                         FLOPSPACK_INVALID_ARGUMENT, "struct_size = 0");
  EXPECT_EQ(r, nullptr);

  // Without record_steps the series is refused; a small buffer is refused.
  flopspack_simulate_options_init(&o);
  o.num_ranks = 4;
  o.num_steps = 3;
  ASSERT_EQ(flopspack_simulate(lengths.data(), lengths.size(), model, &o, &r), FLOPSPACK_OK);
  size_t n = 0;
  EXPECT_FLOPSPACK_ERROR(
      flopspack_simulate_result_series(r, FLOPSPACK_SIM_SERIES_FILL, nullptr, 0, &n),
      FLOPSPACK_INVALID_ARGUMENT, "record_steps");
  flopspack_simulate_result_destroy(r);
  o.record_steps = 1;
  ASSERT_EQ(flopspack_simulate(lengths.data(), lengths.size(), model, &o, &r), FLOPSPACK_OK);
  double two[2] = {-1, -1};
  EXPECT_FLOPSPACK_ERROR(flopspack_simulate_result_series(r, FLOPSPACK_SIM_SERIES_FILL, two, 2, &n),
                         FLOPSPACK_BUFFER_TOO_SMALL, "has 3 steps");
  EXPECT_EQ(two[0], -1);
  EXPECT_FLOPSPACK_ERROR(flopspack_simulate_result_series(r, 40, two, 2, &n),
                         FLOPSPACK_INVALID_ARGUMENT, "series = 40");
  flopspack_simulate_result_destroy(r);
  const uint64_t counts[2] = {16, 0};
  double out[2];
  EXPECT_FLOPSPACK_ERROR(flopspack_simulate_sweep(lengths.data(), lengths.size(), model, &o, counts,
                                                  2, out, nullptr, nullptr),
                         FLOPSPACK_INVALID_ARGUMENT, "rank_counts[1]");
  EXPECT_FLOPSPACK_ERROR(flopspack_simulate_sweep(lengths.data(), lengths.size(), model, &o,
                                                  nullptr, 2, out, nullptr, nullptr),
                         FLOPSPACK_INVALID_ARGUMENT, "rank_counts is NULL");
  flopspack_cost_model_destroy(model);
}

// ---- Per-document extra costs (issue 16) ----------------------------------

namespace extra {

struct SimRun {
  flopspack_simulate_summary summary{};
  std::vector<double> step_time, mean_cost;
};

SimRun Read(flopspack_simulate_result* r) {
  SimRun run;
  run.summary.struct_size = sizeof(run.summary);
  EXPECT_EQ(flopspack_simulate_result_summary(r, &run.summary), FLOPSPACK_OK);
  size_t n = 0;
  EXPECT_EQ(flopspack_simulate_result_series(r, FLOPSPACK_SIM_SERIES_STEP_TIME, nullptr, 0, &n),
            FLOPSPACK_OK);
  run.step_time.resize(n);
  run.mean_cost.resize(n);
  EXPECT_EQ(flopspack_simulate_result_series(r, FLOPSPACK_SIM_SERIES_STEP_TIME,
                                             run.step_time.data(), n, &n),
            FLOPSPACK_OK);
  EXPECT_EQ(flopspack_simulate_result_series(r, FLOPSPACK_SIM_SERIES_MEAN_RANK_COST,
                                             run.mean_cost.data(), n, &n),
            FLOPSPACK_OK);
  return run;
}

TEST(SimulateExtraCostsTest, NullAndZeroExtraCostsAreThePlainCallBitForBit) {
  const auto lengths = Lengths();
  const std::vector<double> zeros(lengths.size(), 0.0);
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_polynomial(0, 0, 1, 1.0 / 1024, &model), FLOPSPACK_OK);
  for (int policy = FLOPSPACK_SIM_RANDOM; policy <= FLOPSPACK_SIM_PLANNER_SEQUENCES; ++policy) {
    flopspack_simulate_options o;
    flopspack_simulate_options_init(&o);
    o.policy = policy;
    o.num_ranks = 16;
    o.num_steps = 5;
    o.record_steps = 1;
    if (policy >= FLOPSPACK_SIM_PLANNER_DOCUMENTS) o.max_tokens_per_microbatch = 9000;
    flopspack_simulate_result *plain = nullptr, *none = nullptr, *zero = nullptr;
    ASSERT_EQ(flopspack_simulate(lengths.data(), lengths.size(), model, &o, &plain), FLOPSPACK_OK);
    ASSERT_EQ(flopspack_simulate_with_extra_costs(lengths.data(), nullptr, lengths.size(), model,
                                                  &o, &none),
              FLOPSPACK_OK);
    ASSERT_EQ(flopspack_simulate_with_extra_costs(lengths.data(), zeros.data(), lengths.size(),
                                                  model, &o, &zero),
              FLOPSPACK_OK)
        << flopspack_last_error_message();
    const SimRun a = Read(plain), b = Read(none), c = Read(zero);
    EXPECT_EQ(std::memcmp(&a.summary, &b.summary, sizeof(a.summary)), 0) << policy;
    EXPECT_EQ(std::memcmp(&a.summary, &c.summary, sizeof(a.summary)), 0) << policy;
    EXPECT_EQ(a.step_time, c.step_time) << policy;
    EXPECT_EQ(a.mean_cost, c.mean_cost) << policy;
    flopspack_simulate_result_destroy(plain);
    flopspack_simulate_result_destroy(none);
    flopspack_simulate_result_destroy(zero);
  }
  flopspack_simulate_options o;
  flopspack_simulate_options_init(&o);
  o.num_steps = 4;
  const uint64_t counts[2] = {8, 64};
  double sa[2], pa[2], ra[2], sb[2], pb[2], rb[2];
  ASSERT_EQ(
      flopspack_simulate_sweep(lengths.data(), lengths.size(), model, &o, counts, 2, sa, pa, ra),
      FLOPSPACK_OK);
  ASSERT_EQ(flopspack_simulate_sweep_with_extra_costs(lengths.data(), zeros.data(), lengths.size(),
                                                      model, &o, counts, 2, sb, pb, rb),
            FLOPSPACK_OK);
  EXPECT_EQ(std::memcmp(sa, sb, sizeof(sa)), 0);
  EXPECT_EQ(std::memcmp(pa, pb, sizeof(pa)), 0);
  EXPECT_EQ(std::memcmp(ra, rb, sizeof(ra)), 0);
  flopspack_cost_model_destroy(model);
}

TEST(SimulateExtraCostsTest, OneRankByHand) {
  // Token cost: a microbatch of 3 + 5 tokens on one rank costs 8 plus the
  // documents' extra costs 10 + 100, every step.
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_tokens(&model), FLOPSPACK_OK);
  const int64_t lengths[2] = {3, 5};
  const double extra[2] = {10, 100};
  for (int policy : {FLOPSPACK_SIM_RANDOM, FLOPSPACK_SIM_TOKEN_BALANCED}) {
    flopspack_simulate_options o;
    flopspack_simulate_options_init(&o);
    o.policy = policy;
    o.num_ranks = 1;
    o.tokens_per_microbatch = 8;
    o.num_steps = 3;
    o.record_steps = 1;
    flopspack_simulate_result* r = nullptr;
    ASSERT_EQ(flopspack_simulate_with_extra_costs(lengths, extra, 2, model, &o, &r), FLOPSPACK_OK);
    const SimRun run = Read(r);
    for (double t : run.step_time) EXPECT_DOUBLE_EQ(t, 118.0) << policy;
    EXPECT_DOUBLE_EQ(run.summary.mean_step_time, 118.0);
    flopspack_simulate_result_destroy(r);
  }
  // The sweep sees them too: one image-heavy document among equal ones
  // makes every rank count's efficiency drop below 1.
  std::vector<int64_t> equal(64, 128);
  std::vector<double> heavy(64, 0.0);
  heavy[5] = 1e4;
  flopspack_simulate_options o;
  flopspack_simulate_options_init(&o);
  o.policy = FLOPSPACK_SIM_TOKEN_BALANCED;
  o.tokens_per_microbatch = 1024;
  o.num_steps = 4;
  const uint64_t counts[2] = {2, 8};
  double plain[2], with[2];
  ASSERT_EQ(flopspack_simulate_sweep_with_extra_costs(equal.data(), nullptr, equal.size(), model,
                                                      &o, counts, 2, plain, nullptr, nullptr),
            FLOPSPACK_OK);
  ASSERT_EQ(flopspack_simulate_sweep_with_extra_costs(equal.data(), heavy.data(), equal.size(),
                                                      model, &o, counts, 2, with, nullptr, nullptr),
            FLOPSPACK_OK);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(plain[i], 1.0);
    EXPECT_LT(with[i], 0.9) << counts[i];
  }
  flopspack_cost_model_destroy(model);
}

TEST(SimulateExtraCostsTest, BadExtraCostsLeaveTheOutputsAlone) {
  const auto lengths = Lengths();
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_tokens(&model), FLOPSPACK_OK);
  flopspack_simulate_options o;
  flopspack_simulate_options_init(&o);
  o.num_ranks = 4;
  o.num_steps = 2;
  const uint64_t counts[1] = {4};
  for (double bad : {-1.0, std::nan(""), HUGE_VAL, -HUGE_VAL}) {
    std::vector<double> extra(lengths.size(), 1.0);
    extra[17] = bad;
    auto* sentinel = reinterpret_cast<flopspack_simulate_result*>(0x1);
    flopspack_simulate_result* r = sentinel;
    EXPECT_FLOPSPACK_ERROR(flopspack_simulate_with_extra_costs(lengths.data(), extra.data(),
                                                               lengths.size(), model, &o, &r),
                           FLOPSPACK_INVALID_ARGUMENT, "extra_costs[17]");
    EXPECT_EQ(r, sentinel);
    double out[1] = {-7};
    EXPECT_FLOPSPACK_ERROR(
        flopspack_simulate_sweep_with_extra_costs(lengths.data(), extra.data(), lengths.size(),
                                                  model, &o, counts, 1, out, out, out),
        FLOPSPACK_INVALID_ARGUMENT, "extra_costs[17]");
    EXPECT_EQ(out[0], -7);
  }
  const double extra[3] = {0, 0, 0};
  flopspack_simulate_result* r = nullptr;
  EXPECT_FLOPSPACK_ERROR(flopspack_simulate_with_extra_costs(nullptr, extra, 3, model, &o, &r),
                         FLOPSPACK_INVALID_ARGUMENT, "lengths is NULL");
  EXPECT_FLOPSPACK_ERROR(
      flopspack_simulate_with_extra_costs(lengths.data(), nullptr, 0, model, &o, &r),
      FLOPSPACK_INVALID_ARGUMENT, "lengths is empty");
  EXPECT_EQ(r, nullptr);
  flopspack_cost_model_destroy(model);
}

}  // namespace extra

}  // namespace
