// Fuzzes the bucket sampler (create, epoch, step, steps_per_epoch,
// upper_bounds, step_diversity): both budget kinds, explicit or optimal
// bounds, pad-last and drop-last, ranks and accumulation from 0 up, a
// newer caller's larger options struct, every overflow value (error,
// truncate, defer, and the rejected split and non-enum values). Invariants
// on success: an epoch has
// steps x R x A groups ordered by step, rank, accumulation index with the
// documented (rank, slot); every sample is in exactly one batch, or (drop
// last only) listed once as dropped, or (overflow = defer) once as
// deferred and over the budget, all counted; a truncated sample keeps the
// budget's worth; every batch is within the
// budget and computed at size x longest; each step plan has exactly the
// epoch's groups; the same epoch twice is the same plan; a step past the
// end is OUT_OF_RANGE.
#include <cmath>

#include "fuzz_util.h"

using fuzz::Require;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  fuzz::FailingCallback callback;
  bool can_fail = false;
  flopspack_cost_model* model =
      in.ConsumeBool() ? fuzz::ConsumeModel(in, &callback, &can_fail) : nullptr;
  flopspack_bucket_sampler_options options;
  flopspack_bucket_sampler_options_init(&options);
  options.budget_kind = in.ConsumeIntegralInRange<int32_t>(-1, 2);
  options.num_buckets = in.ConsumeIntegralInRange<uint32_t>(0, 10);
  options.drop_last = in.ConsumeIntegralInRange(0, 15) == 0 ? 2 : in.ConsumeIntegralInRange(0, 1);
  std::vector<int64_t> bounds(
      in.ConsumeIntegralInRange(0, 3) == 0 ? in.ConsumeIntegralInRange<size_t>(0, 6) : 0);
  for (int64_t& b : bounds) b = in.ConsumeIntegralInRange<int64_t>(-1, 300);
  if (in.ConsumeIntegralInRange(0, 7) != 0) std::sort(bounds.begin(), bounds.end());
  options.upper_bounds = bounds.empty() ? nullptr : bounds.data();
  options.num_upper_bounds = bounds.size();
  options.max_padded_tokens = in.ConsumeIntegralInRange<int64_t>(-1, 2000);
  options.max_batch_cost = in.ConsumeIntegralInRange(0, 20) == 0
                               ? std::nan("")
                               : in.ConsumeIntegralInRange(-1, 4000) * 1.0;
  options.num_ranks = in.ConsumeIntegralInRange<uint64_t>(0, 4);
  options.accumulation_steps = in.ConsumeIntegralInRange<uint64_t>(0, 3);
  options.seed = in.ConsumeIntegral<uint64_t>();
  {
    const int32_t kOverflows[] = {FLOPSPACK_OVERFLOW_ERROR, FLOPSPACK_OVERFLOW_TRUNCATE,
                                  FLOPSPACK_OVERFLOW_DEFER, FLOPSPACK_OVERFLOW_SPLIT, 7};
    options.overflow = kOverflows[in.ConsumeIntegralInRange<size_t>(0, 4)];
  }
  const bool overflow_ok = options.overflow == FLOPSPACK_OVERFLOW_ERROR ||
                           options.overflow == FLOPSPACK_OVERFLOW_TRUNCATE ||
                           options.overflow == FLOPSPACK_OVERFLOW_DEFER;
  const fuzz::Versioned<flopspack_bucket_sampler_options> versioned(
      options, fuzz::ConsumeTail(in), in.ConsumeIntegralInRange<size_t>(1, 64));
  const std::vector<int64_t> lengths = fuzz::ConsumeLengths(in, 120, 250);

  flopspack_bucket_sampler* sampler = nullptr;
  const flopspack_status status = flopspack_bucket_sampler_create(
      versioned.get(), model, lengths.data(), lengths.size(), &sampler);
  if (status != FLOPSPACK_OK) {
    Require(sampler == nullptr, "out untouched on failure");
    Require(status == FLOPSPACK_INVALID_ARGUMENT || status == FLOPSPACK_INFEASIBLE ||
                (status == FLOPSPACK_CALLBACK_FAILED && can_fail),
            "create fails with a documented status");
    if (versioned.tail() == fuzz::Tail::kNonZero || options.num_ranks == 0 ||
        options.accumulation_steps == 0 || !overflow_ok) {
      Require(status == FLOPSPACK_INVALID_ARGUMENT, "bad options are INVALID_ARGUMENT");
    }
    flopspack_cost_model_destroy(model);
    return 0;
  }
  Require(versioned.tail() != fuzz::Tail::kNonZero && options.num_ranks > 0 &&
              options.accumulation_steps > 0 &&
              (options.drop_last == 0 || options.drop_last == 1) && overflow_ok,
          "bad options are never accepted");
  const bool cost_budget = options.budget_kind == FLOPSPACK_BUCKET_BUDGET_COST;
  Require(!cost_budget || model != nullptr, "a cost budget needs a model");

  uint64_t steps = 0;
  Require(flopspack_bucket_sampler_steps_per_epoch(sampler, &steps) == FLOPSPACK_OK, "steps");
  Require(steps >= 1, "at least one step");
  const int64_t* used_bounds = nullptr;
  size_t num_bounds = 0;
  Require(flopspack_bucket_sampler_upper_bounds(sampler, &used_bounds, &num_bounds) == FLOPSPACK_OK,
          "upper_bounds");
  Require(num_bounds >= 1 && std::is_sorted(used_bounds, used_bounds + num_bounds),
          "bounds ascending");
  const uint64_t r = options.num_ranks, a = options.accumulation_steps;
  const uint64_t epoch = in.ConsumeIntegralInRange<uint64_t>(0, 3);
  callback.calls = 0;
  flopspack_plan* plan = fuzz::Sentinel();
  const flopspack_status e = flopspack_bucket_sampler_epoch(sampler, epoch, &plan);
  if (e != FLOPSPACK_OK) {
    Require(e == FLOPSPACK_CALLBACK_FAILED && can_fail && plan == fuzz::Sentinel(),
            "an epoch fails only by callback, out untouched");
    flopspack_bucket_sampler_destroy(sampler);
    flopspack_cost_model_destroy(model);
    return 0;
  }
  const fuzz::PlanData d = fuzz::Read(plan);
  fuzz::CheckGroupMetrics(d);
  Require(d.groups.size() == steps * r * a, "steps x R x A groups");
  Require(d.has_slots, "sampler plans have slots");
  std::vector<int64_t> placed, pieces;
  fuzz::CountPlaced(d, lengths.size(), placed, pieces);
  for (size_t g = 0; g < d.groups.size(); ++g) {
    const fuzz::Group& batch = d.groups[g];
    const uint64_t s = g / (r * a), rank = (g / a) % r, acc = g % a;
    Require(batch.rank == rank && batch.slot == s * a + acc, "documented (rank, slot)");
    Require(!batch.items.empty(), "no empty batch");
    int64_t longest = 0;
    for (size_t i = 0; i < batch.items.size(); ++i) {
      const int64_t length = lengths[batch.items[i]];
      if (options.overflow == FLOPSPACK_OVERFLOW_TRUNCATE) {
        Require(batch.tokens[i] >= 1 && batch.tokens[i] <= length, "truncation only shortens");
        if (!cost_budget) {
          Require(batch.tokens[i] == std::min(length, options.max_padded_tokens),
                  "truncated to the token budget");
        }
      } else {
        Require(batch.tokens[i] == length, "a sample keeps its length");
      }
      longest = std::max(longest, batch.tokens[i]);
    }
    const int64_t padded = static_cast<int64_t>(batch.items.size()) * longest;
    Require(batch.computed == padded, "computed = size x longest");
    if (cost_budget) {
      Require(batch.cost <= options.max_batch_cost * (1 + 1e-12), "cost budget respected");
    } else {
      Require(padded <= options.max_padded_tokens, "padded-token budget respected");
    }
  }
  std::vector<int64_t> dropped(lengths.size(), 0);
  int64_t dropped_tokens = 0;
  for (int64_t i : d.dropped) {
    Require(i >= 0 && static_cast<size_t>(i) < lengths.size(), "dropped index in range");
    ++dropped[i];
    // A dropped sample counts what it would have trained: truncated, its
    // budget's worth (the cost budget's limit is the model's, not known here).
    dropped_tokens += options.overflow == FLOPSPACK_OVERFLOW_TRUNCATE && !cost_budget
                          ? std::min(lengths[i], options.max_padded_tokens)
                          : lengths[i];
  }
  const bool exact_tokens = !(options.overflow == FLOPSPACK_OVERFLOW_TRUNCATE && cost_budget);
  Require(options.drop_last == 1 || d.dropped.empty(), "pad last drops nothing");
  std::vector<int64_t> deferred(lengths.size(), 0);
  int64_t deferred_tokens = 0;
  for (int64_t i : d.deferred) {
    Require(i >= 0 && static_cast<size_t>(i) < lengths.size(), "deferred index in range");
    Require(cost_budget || lengths[i] > options.max_padded_tokens, "only over-budget deferred");
    ++deferred[i];
    deferred_tokens += lengths[i];
  }
  Require(options.overflow == FLOPSPACK_OVERFLOW_DEFER || d.deferred.empty(), "only defer defers");
  Require(
      d.metrics.deferred_items == d.deferred.size() && d.metrics.deferred_tokens == deferred_tokens,
      "deferred counted");
  int64_t total = 0, real = 0;
  for (size_t i = 0; i < lengths.size(); ++i) {
    Require(pieces[i] + dropped[i] + deferred[i] == 1,
            "every sample in exactly one batch, or dropped or deferred once");
    total += lengths[i];
    real += placed[i];
  }
  if (exact_tokens) {
    Require(real + dropped_tokens + deferred_tokens + d.metrics.truncated_tokens == total,
            "token sum preserved");
    Require(d.metrics.dropped_tokens == dropped_tokens, "dropped tokens counted");
  } else {
    Require(real + d.metrics.dropped_tokens + d.metrics.truncated_tokens == total,
            "token sum preserved (cost-budget truncation)");
  }
  Require(d.metrics.num_steps == steps, "metrics.num_steps");

  flopspack_plan* again = nullptr;
  callback.calls = 0;
  if (flopspack_bucket_sampler_epoch(sampler, epoch, &again) == FLOPSPACK_OK) {
    Require(fuzz::SamePlan(d, fuzz::Read(again)), "same epoch, same plan");
  }
  flopspack_plan_destroy(again);
  const uint64_t step = in.ConsumeIntegralInRange<uint64_t>(0, steps);
  flopspack_plan* one = fuzz::Sentinel();
  const flopspack_status st = flopspack_bucket_sampler_step(sampler, epoch, step, &one);
  if (step == steps) {
    Require(st == FLOPSPACK_OUT_OF_RANGE && one == fuzz::Sentinel(), "step past the end");
  } else if (st == FLOPSPACK_OK) {
    const fuzz::PlanData ds = fuzz::Read(one);
    Require(ds.groups.size() == r * a, "a step has R x A groups");
    for (size_t k = 0; k < ds.groups.size(); ++k) {
      const fuzz::Group& x = ds.groups[k];
      const fuzz::Group& y = d.groups[step * r * a + k];
      Require(x.items == y.items && x.tokens == y.tokens && x.rank == y.rank && x.slot == y.slot,
              "a step is exactly its groups in the epoch");
    }
    size_t n = 0;
    Require(flopspack_bucket_sampler_step_diversity(sampler, one, nullptr, nullptr, 0, &n) ==
                FLOPSPACK_OK,
            "diversity of a step plan");
    flopspack_plan_destroy(one);
  } else {
    Require(st == FLOPSPACK_CALLBACK_FAILED && can_fail, "a step fails only by callback");
  }
  size_t n = 0;
  Require(flopspack_bucket_sampler_step_diversity(sampler, plan, nullptr, nullptr, 0, &n) ==
                  FLOPSPACK_OK &&
              n == steps,
          "diversity size query");
  std::vector<double> distances(n);
  if (n > 0) {
    Require(flopspack_bucket_sampler_step_diversity(sampler, plan, distances.data(), nullptr, n - 1,
                                                    &n) == FLOPSPACK_BUFFER_TOO_SMALL,
            "short diversity buffer");
  }
  Require(flopspack_bucket_sampler_step_diversity(sampler, plan, distances.data(), nullptr,
                                                  distances.size(), &n) == FLOPSPACK_OK,
          "diversity");
  for (double x : distances) Require(x >= 0 && x <= 1, "KS distance in [0, 1]");
  flopspack_plan_destroy(plan);
  flopspack_bucket_sampler_destroy(sampler);
  flopspack_cost_model_destroy(model);
  return 0;
}
