// Fuzzes flopspack_simulate (and its result accessors): every policy,
// options out of range, a newer caller's larger options struct, cost models
// including a failing callback, a progress callback that cancels.
// Invariants on success: the summary's shape is the options'; balance
// efficiencies in (0, 1] with p5 <= p50 <= p95; fill and padding efficiency
// in [0, 1]; real <= computed tokens; the recorded series has one value per
// step and its real tokens sum to the summary's; the pieces the ranks saw
// hold exactly the real tokens (nothing lost or invented); the same call
// gives the same summary. On failure *out is untouched.
#include <cmath>

#include "fuzz_util.h"

using fuzz::Require;

namespace {

struct Cancel {
  uint64_t after;
};
int Progress(void* user_data, uint64_t done, uint64_t total) {
  Require(done <= total, "progress done <= total");
  return done > static_cast<Cancel*>(user_data)->after ? 1 : 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  fuzz::FailingCallback callback;
  bool can_fail = false;
  flopspack_cost_model* model = fuzz::ConsumeModel(in, &callback, &can_fail);
  flopspack_simulate_options o;
  flopspack_simulate_options_init(&o);
  o.policy = in.ConsumeIntegralInRange<int32_t>(-1, 7);
  o.num_ranks = in.ConsumeIntegralInRange<uint64_t>(0, 8);
  o.microbatches_per_rank = in.ConsumeIntegralInRange<uint64_t>(0, 3);
  o.tokens_per_microbatch = in.ConsumeIntegralInRange<int64_t>(-1, 400);
  o.max_tokens_per_microbatch =
      in.ConsumeBool() ? 0 : o.tokens_per_microbatch + in.ConsumeIntegralInRange<int64_t>(-2, 200);
  o.num_steps = in.ConsumeIntegralInRange<uint64_t>(0, 6);
  o.seed = in.ConsumeIntegral<uint64_t>();
  o.record_steps = in.ConsumeIntegralInRange<int32_t>(0, 1);
  Cancel cancel{in.ConsumeIntegralInRange<uint64_t>(0, 10)};
  const bool cancels = in.ConsumeIntegralInRange(0, 7) == 0;
  if (cancels) {
    o.progress = Progress;
    o.progress_user_data = &cancel;
  }
  const fuzz::Versioned<flopspack_simulate_options> versioned(
      o, fuzz::ConsumeTail(in), in.ConsumeIntegralInRange<size_t>(1, 64));
  const std::vector<int64_t> lengths = fuzz::ConsumeLengths(in, 60, 800);

  flopspack_simulate_result* result =
      reinterpret_cast<flopspack_simulate_result*>(fuzz::Sentinel());
  const flopspack_status status =
      flopspack_simulate(lengths.data(), lengths.size(), model, versioned.get(), &result);
  if (status != FLOPSPACK_OK) {
    Require(result == reinterpret_cast<flopspack_simulate_result*>(fuzz::Sentinel()),
            "out untouched on failure");
    Require(status == FLOPSPACK_INVALID_ARGUMENT || status == FLOPSPACK_OUT_OF_RANGE ||
                status == FLOPSPACK_INFEASIBLE ||
                (status == FLOPSPACK_CALLBACK_FAILED && can_fail) ||
                (status == FLOPSPACK_CANCELLED && cancels),
            "a documented status");
    if (versioned.tail() == fuzz::Tail::kNonZero || lengths.empty()) {
      Require(status == FLOPSPACK_INVALID_ARGUMENT, "bad input is INVALID_ARGUMENT");
    }
    flopspack_cost_model_destroy(model);
    return 0;
  }
  Require(versioned.tail() != fuzz::Tail::kNonZero && !lengths.empty(),
          "bad input is never accepted");
  flopspack_simulate_summary s;
  std::memset(&s, 0, sizeof(s));
  s.struct_size = sizeof(s);
  Require(flopspack_simulate_result_summary(result, &s) == FLOPSPACK_OK, "summary");
  Require(s.num_steps == o.num_steps && s.num_ranks == o.num_ranks, "shape kept");
  if (s.num_steps > 0) {
    Require(s.mean_balance_efficiency > 0 && s.mean_balance_efficiency <= 1 + 1e-9,
            "balance in (0, 1]");
    Require(s.p5_balance_efficiency <= s.p50_balance_efficiency + 1e-9 &&
                s.p50_balance_efficiency <= s.p95_balance_efficiency + 1e-9,
            "p5 <= p50 <= p95");
    Require(s.mean_fill >= 0 && s.mean_fill <= 1 + 1e-9, "fill in [0, 1]");
    Require(s.mean_padding_efficiency >= 0 && s.mean_padding_efficiency <= 1 + 1e-9,
            "padding efficiency in [0, 1]");
    Require(s.relative_throughput >= 0 && s.relative_throughput <= 1 + 1e-9,
            "relative throughput in [0, 1]");
  }
  Require(s.real_tokens <= s.computed_tokens, "real <= computed tokens");
  size_t steps = 0;
  const flopspack_status series = flopspack_simulate_result_series(
      result, FLOPSPACK_SIM_SERIES_REAL_TOKENS, nullptr, 0, &steps);
  if (o.record_steps == 1) {
    Require(series == FLOPSPACK_OK && steps == s.num_steps, "one value per step");
    std::vector<double> real(steps);
    if (steps > 0) {
      Require(
          flopspack_simulate_result_series(result, FLOPSPACK_SIM_SERIES_REAL_TOKENS, real.data(),
                                           steps - 1, &steps) == FLOPSPACK_BUFFER_TOO_SMALL,
          "short series buffer");
    }
    Require(flopspack_simulate_result_series(result, FLOPSPACK_SIM_SERIES_REAL_TOKENS, real.data(),
                                             real.size(), &steps) == FLOPSPACK_OK,
            "series");
    double sum = 0;
    for (double r : real) sum += r;
    Require(sum == static_cast<double>(s.real_tokens), "series real tokens = summary");
  } else {
    Require(series == FLOPSPACK_INVALID_ARGUMENT, "series not recorded");
  }
  callback.calls = 0;
  flopspack_stats* pieces = nullptr;
  const flopspack_status ps = flopspack_simulate_result_pieces(result, &pieces);
  if (ps == FLOPSPACK_OK) {
    flopspack_stats_summary p;
    std::memset(&p, 0, sizeof(p));
    p.struct_size = sizeof(p);
    Require(flopspack_stats_summarize(pieces, &p) == FLOPSPACK_OK, "pieces summary");
    Require(p.tokens == s.real_tokens, "the pieces hold exactly the real tokens");
    if (p.count > 0)
      Require(p.max <= o.tokens_per_microbatch || p.max <= o.max_tokens_per_microbatch,
              "no piece longer than a microbatch");
    flopspack_stats_destroy(pieces);
  } else {
    Require(ps == FLOPSPACK_CALLBACK_FAILED && can_fail, "pieces fail only by callback");
  }
  callback.calls = 0;
  cancel.after = ~uint64_t{0};
  flopspack_simulate_result* again = nullptr;
  if (flopspack_simulate(lengths.data(), lengths.size(), model, versioned.get(), &again) ==
      FLOPSPACK_OK) {
    flopspack_simulate_summary t;
    std::memset(&t, 0, sizeof(t));
    t.struct_size = sizeof(t);
    Require(flopspack_simulate_result_summary(again, &t) == FLOPSPACK_OK, "summary again");
    Require(
        std::memcmp(&s.mean_balance_efficiency, &t.mean_balance_efficiency, sizeof(double)) == 0 &&
            s.real_tokens == t.real_tokens && s.documents_drawn == t.documents_drawn,
        "deterministic");
  }
  flopspack_simulate_result_destroy(again);
  flopspack_simulate_result_destroy(result);
  flopspack_cost_model_destroy(model);
  return 0;
}
