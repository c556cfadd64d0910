// Fuzzes flopspack_pack: arbitrary options (unknown algorithms and overflow
// values, non-positive capacities, a newer caller's larger struct), lengths
// with an occasional non-positive one, and cost models including a callback
// that fails. Invariants on success: no sequence exceeds the capacity; a
// document within the capacity is placed once and whole; an overlong one is
// placed once with `capacity` tokens (truncate, its surplus counted) or in
// ceil(length / capacity) pieces (split, counted); the metrics agree with the
// groups; the same call gives the same plan. On failure the status is the
// one docs/errors.md gives for the input, and *out is untouched.
#include <cmath>

#include "fuzz_util.h"

using fuzz::Require;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  fuzz::FailingCallback callback;
  bool can_fail = false;
  flopspack_cost_model* model = nullptr;
  flopspack_pack_options options;
  flopspack_pack_options_init(&options);
  options.algorithm = in.ConsumeIntegralInRange<int32_t>(-1, 4);
  options.capacity = in.ConsumeIntegralInRange<int64_t>(-1, 300);
  options.overflow = in.ConsumeIntegralInRange<int32_t>(-1, 3);
  options.seed = in.ConsumeIntegral<uint64_t>();
  if (in.ConsumeBool()) {
    model = fuzz::ConsumeModel(in, &callback, &can_fail);
    options.cost_model = model;
  }
  const fuzz::Versioned<flopspack_pack_options> versioned(options, fuzz::ConsumeTail(in),
                                                          in.ConsumeIntegralInRange<size_t>(1, 64));
  const std::vector<int64_t> lengths =
      fuzz::ConsumeLengths(in, 80, 3 * std::max<int64_t>(1, options.capacity));

  flopspack_plan* plan = fuzz::Sentinel();
  const flopspack_status status =
      flopspack_pack(versioned.get(), lengths.data(), lengths.size(), &plan);

  const int64_t cap = options.capacity;
  bool bad_length = false, overlong = false;
  for (int64_t l : lengths) {
    bad_length |= l <= 0;
    overlong |= l > cap;
  }
  const bool bad_options = versioned.tail() == fuzz::Tail::kNonZero || cap <= 0 ||
                           options.algorithm < 0 || options.algorithm > 3 || options.overflow < 0 ||
                           options.overflow > 2;
  if (status != FLOPSPACK_OK) {
    Require(plan == fuzz::Sentinel(), "out untouched on failure");
    if (status == FLOPSPACK_CALLBACK_FAILED) {
      Require(can_fail, "CALLBACK_FAILED only with a failing callback");
    } else {
      Require(status == FLOPSPACK_INVALID_ARGUMENT, "bad input is INVALID_ARGUMENT");
      Require(
          bad_options || bad_length || (overlong && options.overflow == FLOPSPACK_OVERFLOW_ERROR),
          "only bad input is rejected");
    }
    flopspack_cost_model_destroy(model);
    return 0;
  }
  Require(!bad_options && !bad_length, "bad input is never accepted");
  Require(!overlong || options.overflow != FLOPSPACK_OVERFLOW_ERROR,
          "an overlong document under ERROR is rejected");

  const fuzz::PlanData d = fuzz::Read(plan);
  fuzz::CheckGroupMetrics(d);
  std::vector<int64_t> placed, pieces;
  fuzz::CountPlaced(d, lengths.size(), placed, pieces);
  uint64_t split = 0, truncated = 0;
  int64_t truncated_tokens = 0, expected_real = 0;
  for (size_t i = 0; i < lengths.size(); ++i) {
    const int64_t l = lengths[i];
    if (l <= cap) {
      Require(pieces[i] == 1 && placed[i] == l, "a document within the cap is placed once, whole");
    } else if (options.overflow == FLOPSPACK_OVERFLOW_TRUNCATE) {
      Require(pieces[i] == 1 && placed[i] == cap, "a truncated document keeps capacity tokens");
      ++truncated;
      truncated_tokens += l - cap;
    } else {
      Require(placed[i] == l, "a split document is placed in full");
      Require(pieces[i] == (l + cap - 1) / cap, "split into ceil(length / capacity) pieces");
      ++split;
    }
    expected_real += placed[i];
  }
  for (const fuzz::Group& g : d.groups) {
    Require(!g.items.empty(), "no empty sequence");
    Require(g.real <= cap, "capacity respected");
    Require(g.computed == cap, "a sequence is computed at its capacity");
    for (int64_t t : g.tokens) Require(t > 0, "pieces are positive");
  }
  const struct flopspack_plan_metrics& m = d.metrics;
  Require(m.num_items == lengths.size(), "num_items = n");
  Require(m.split_items == split, "split_items counted");
  Require(m.truncated_items == truncated && m.truncated_tokens == truncated_tokens,
          "truncation counted");
  Require(m.real_tokens == expected_real, "token sum preserved");
  Require(m.capacity == cap, "metrics.capacity");
  if (!d.groups.empty()) {
    const double fill = static_cast<double>(expected_real) /
                        (static_cast<double>(d.groups.size()) * static_cast<double>(cap));
    Require(fuzz::Near(m.fill, fill), "fill = real / (groups x capacity)");
  }
  if (model == nullptr) {
    for (const fuzz::Group& g : d.groups) {
      Require(g.cost == static_cast<double>(g.real), "cost = tokens without a model");
    }
  }
  // Same call, same plan (a failing callback has its counter reset).
  callback.calls = 0;
  flopspack_plan* again = nullptr;
  const flopspack_status second =
      flopspack_pack(versioned.get(), lengths.data(), lengths.size(), &again);
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
