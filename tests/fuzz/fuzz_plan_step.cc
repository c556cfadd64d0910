// Fuzzes flopspack_plan_step: every option out of range, all four
// algorithms, three slot orders and three overflow policies, cost models
// including a failing callback, a newer caller's larger struct. Invariants
// on success: R x M groups in rank-major order with their (rank, slot); no
// microbatch over the cap; every document either placed in full (in one or
// more pieces, the split ones counted) or deferred whole (listed and
// counted, only under DEFER); the token sum is preserved; rank metrics agree
// with the groups; the same call gives the same plan. On failure the status
// matches the input class and *out is untouched.
#include <cmath>

#include "fuzz_util.h"

using fuzz::Require;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  fuzz::FailingCallback callback;
  bool can_fail = false;
  flopspack_cost_model* model = fuzz::ConsumeModel(in, &callback, &can_fail);
  flopspack_step_options options;
  flopspack_step_options_init(&options);
  options.num_ranks = in.ConsumeIntegralInRange<uint32_t>(0, 6);
  options.microbatches_per_rank = in.ConsumeIntegralInRange<uint32_t>(0, 4);
  options.algorithm = in.ConsumeIntegralInRange<int32_t>(-1, 4);
  const bool extreme_cap = in.ConsumeIntegralInRange(0, 7) == 0;
  options.max_tokens_per_microbatch =
      extreme_cap ? fuzz::ConsumeExtremeCap(in) : in.ConsumeIntegralInRange<int64_t>(-1, 300);
  options.seed = in.ConsumeIntegral<uint64_t>();
  options.ordering = in.ConsumeIntegralInRange<int32_t>(-1, 3);
  options.overflow = in.ConsumeIntegralInRange<int32_t>(-1, 4);
  const fuzz::Versioned<flopspack_step_options> versioned(options, fuzz::ConsumeTail(in),
                                                          in.ConsumeIntegralInRange<size_t>(1, 64));
  const int64_t cap = options.max_tokens_per_microbatch;
  // Ordinary lengths stay ordinary under an extreme cap (random values up
  // to INT64_MAX would only exercise the sum check).
  std::vector<int64_t> lengths =
      fuzz::ConsumeLengths(in, 64, std::min<int64_t>(600, fuzz::Twice(std::max<int64_t>(1, cap))));
  const bool extreme = fuzz::MaybeExtremeLength(in, lengths) || extreme_cap;

  flopspack_plan* plan = fuzz::Sentinel();
  const flopspack_status status =
      flopspack_plan_step(versioned.get(), model, lengths.data(), lengths.size(), &plan);

  bool bad_length = false, overlong = false, sum_overflows = false;
  int64_t total = 0;
  for (int64_t l : lengths) {
    bad_length |= l <= 0;
    overlong |= l > cap;
    sum_overflows |= l > 0 && __builtin_add_overflow(total, l, &total);
  }
  const int32_t policy = options.overflow;
  const bool bad_options =
      versioned.tail() == fuzz::Tail::kNonZero || options.num_ranks == 0 || cap <= 0 ||
      options.algorithm < 0 || options.algorithm > 3 || options.ordering < 0 ||
      options.ordering > 2 ||
      (policy != FLOPSPACK_OVERFLOW_ERROR && policy != FLOPSPACK_OVERFLOW_SPLIT &&
       policy != FLOPSPACK_OVERFLOW_DEFER);
  if (status != FLOPSPACK_OK) {
    Require(plan == fuzz::Sentinel(), "out untouched on failure");
    switch (status) {
      case FLOPSPACK_CALLBACK_FAILED:
        Require(can_fail, "CALLBACK_FAILED only with a failing callback");
        break;
      case FLOPSPACK_INFEASIBLE:
        Require(!bad_options && !bad_length && policy != FLOPSPACK_OVERFLOW_DEFER,
                "INFEASIBLE only under ERROR or SPLIT");
        Require(options.microbatches_per_rank > 0, "M = 0 always finds room");
        if (policy == FLOPSPACK_OVERFLOW_SPLIT) {
          Require(static_cast<__int128>(total) > static_cast<__int128>(options.num_ranks) *
                                                     options.microbatches_per_rank * cap,
                  "SPLIT is infeasible only when the batch exceeds R x M x cap");
        }
        break;
      case FLOPSPACK_OUT_OF_RANGE:
        // Sums, products and piece counts beyond int64 or the plan limits:
        // only reachable with extreme values (or a length sum that
        // overflows, which only they make).
        Require(extreme || sum_overflows, "OUT_OF_RANGE only for extreme values");
        break;
      default:
        Require(status == FLOPSPACK_INVALID_ARGUMENT, "bad input is INVALID_ARGUMENT");
        Require(bad_options || bad_length || (overlong && policy == FLOPSPACK_OVERFLOW_ERROR),
                "only bad input is rejected");
    }
    flopspack_cost_model_destroy(model);
    return 0;
  }
  Require(!bad_options && !bad_length, "bad input is never accepted");

  const fuzz::PlanData d = fuzz::Read(plan);
  fuzz::CheckGroupMetrics(d);
  const struct flopspack_plan_metrics& m = d.metrics;
  const uint64_t r = options.num_ranks;
  const uint64_t mb = m.microbatches_per_rank;
  Require(m.num_ranks == r, "metrics.num_ranks = R");
  if (options.microbatches_per_rank > 0) Require(mb == options.microbatches_per_rank, "M kept");
  Require(mb >= 1 && d.groups.size() == r * mb, "R x M groups");
  Require(d.has_slots, "step plans have slots");
  std::vector<double> rank_cost(r, 0);
  for (size_t g = 0; g < d.groups.size(); ++g) {
    const fuzz::Group& group = d.groups[g];
    Require(group.rank == g / mb && group.slot == g % mb, "rank-major (rank, slot)");
    Require(group.real <= cap, "cap respected");
    for (int64_t t : group.tokens) Require(t > 0, "pieces are positive");
    rank_cost[group.rank] += group.cost;
  }
  double max_rank = 0;
  for (double c : rank_cost) max_rank = std::max(max_rank, c);
  Require(fuzz::Near(m.max_rank_cost, max_rank), "max_rank_cost = max over ranks");

  std::vector<int64_t> placed, pieces;
  fuzz::CountPlaced(d, lengths.size(), placed, pieces);
  std::vector<int64_t> deferred_count(lengths.size(), 0);
  int64_t deferred_tokens = 0;
  for (int64_t id : d.deferred) {
    Require(id >= 0 && static_cast<size_t>(id) < lengths.size(), "deferred id in range");
    ++deferred_count[id];
    deferred_tokens += lengths[id];
  }
  Require(std::is_sorted(d.deferred.begin(), d.deferred.end()), "deferred list sorted");
  uint64_t split = 0;
  int64_t real = 0;
  for (size_t i = 0; i < lengths.size(); ++i) {
    if (deferred_count[i] > 0) {
      Require(policy == FLOPSPACK_OVERFLOW_DEFER, "deferral only under DEFER");
      Require(deferred_count[i] == 1 && pieces[i] == 0, "a deferred document is not placed");
    } else {
      Require(placed[i] == lengths[i], "every document placed in full or deferred");
    }
    split += pieces[i] > 1 ? 1 : 0;
    real += placed[i];
  }
  Require(m.split_items == split, "split_items = documents in several pieces");
  Require(m.deferred_tokens == deferred_tokens, "deferred_tokens counted");
  Require(real + deferred_tokens == total, "token sum preserved");
  Require(m.num_items == lengths.size(), "num_items = n");

  callback.calls = 0;
  flopspack_plan* again = nullptr;
  const flopspack_status second =
      flopspack_plan_step(versioned.get(), model, lengths.data(), lengths.size(), &again);
  if (second == FLOPSPACK_OK) {
    Require(fuzz::SamePlan(d, fuzz::Read(again)), "deterministic");
  } else {
    Require(second == FLOPSPACK_CALLBACK_FAILED && can_fail, "a repeat fails only by callback");
  }
  flopspack_plan_destroy(again);
  flopspack_plan_destroy(plan);
  flopspack_cost_model_destroy(model);
  return 0;
}
