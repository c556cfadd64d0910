// Shared checks for the libFuzzer harnesses: a plan read back through the C
// ABI into plain vectors, the accounting every plan must satisfy (items in
// range, each document's tokens placed or counted as truncated, deferred or
// dropped, metrics consistent with the groups), option structs presented as
// a newer caller's larger struct, and a sentinel for "out untouched".
#ifndef FLOPSPACK_TESTS_FUZZ_FUZZ_UTIL_H_
#define FLOPSPACK_TESTS_FUZZ_FUZZ_UTIL_H_

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <vector>

#include "flopspack/flopspack.h"

namespace fuzz {

inline void Require(bool condition, const char* what) {
  if (!condition) {
    std::fprintf(stderr, "invariant violated: %s (last error: %s)\n", what,
                 flopspack_last_error_message());
    std::abort();
  }
}

// A value no allocation returns: out-parameters start as this and must still
// hold it after a failed call.
inline flopspack_plan* Sentinel() { return reinterpret_cast<flopspack_plan*>(uintptr_t{0x5a5a}); }

// Relative comparison for sums taken in different orders.
inline bool Near(double a, double b) {
  return std::fabs(a - b) <= 1e-9 * std::max({1.0, std::fabs(a), std::fabs(b)});
}

struct Group {
  std::vector<int64_t> items, tokens;
  int64_t real = 0, computed = 0;
  double cost = 0;
  size_t rank = 0, slot = 0;
};

struct PlanData {
  std::vector<Group> groups;
  std::vector<int64_t> deferred, dropped;
  struct flopspack_plan_metrics metrics {};
  bool has_slots = false;
};

// Reads everything the ABI exposes about a plan, checking that each group's
// real tokens are the sum of its tokens and that the group accessors agree.
inline PlanData Read(const flopspack_plan* plan) {
  PlanData d;
  const size_t count = flopspack_plan_group_count(plan);
  d.groups.resize(count);
  for (size_t g = 0; g < count; ++g) {
    Group& group = d.groups[g];
    const int64_t* items = nullptr;
    const int64_t* tokens = nullptr;
    size_t n = 0;
    Require(flopspack_plan_group(plan, g, &items, &tokens, &n) == FLOPSPACK_OK, "plan_group");
    group.items.assign(items, items + n);
    group.tokens.assign(tokens, tokens + n);
    Require(flopspack_plan_group_info(plan, g, &group.real, &group.computed, &group.cost) ==
                FLOPSPACK_OK,
            "plan_group_info");
    int64_t sum = 0;
    for (int64_t t : group.tokens) sum += t;
    Require(sum == group.real, "group real tokens = sum of its tokens");
    Require(group.computed >= group.real, "computed tokens >= real tokens");
    Require(std::isfinite(group.cost) && group.cost >= 0, "group cost finite, >= 0");
    const flopspack_status slot = flopspack_plan_group_slot(plan, g, &group.rank, &group.slot);
    Require(slot == FLOPSPACK_OK || slot == FLOPSPACK_INVALID_ARGUMENT, "group_slot status");
    d.has_slots = slot == FLOPSPACK_OK;
  }
  size_t out_of_range = 0;
  Require(
      flopspack_plan_group(plan, count, nullptr, nullptr, &out_of_range) == FLOPSPACK_OUT_OF_RANGE,
      "group index == count is out of range");
  const int64_t* list = nullptr;
  size_t n = 0;
  Require(flopspack_plan_deferred(plan, &list, &n) == FLOPSPACK_OK, "deferred");
  d.deferred.assign(list, list + n);
  Require(flopspack_plan_dropped(plan, &list, &n) == FLOPSPACK_OK, "dropped");
  d.dropped.assign(list, list + n);
  d.metrics.struct_size = sizeof(d.metrics);
  Require(flopspack_plan_metrics(plan, &d.metrics) == FLOPSPACK_OK, "metrics");
  return d;
}

// Metrics that must agree with the groups for every kind of plan.
inline void CheckGroupMetrics(const PlanData& d) {
  const struct flopspack_plan_metrics& m = d.metrics;
  Require(m.num_groups == d.groups.size(), "metrics.num_groups = group count");
  int64_t real = 0, computed = 0;
  double total = 0, largest = 0;
  for (const Group& g : d.groups) {
    real += g.real;
    computed += g.computed;
    total += g.cost;
    largest = std::max(largest, g.cost);
  }
  Require(m.real_tokens == real, "metrics.real_tokens = sum of group tokens");
  Require(m.computed_tokens == computed, "metrics.computed_tokens = sum over groups");
  Require(Near(m.total_cost, total), "metrics.total_cost = sum of group costs");
  Require(Near(m.max_group_cost, largest), "metrics.max_group_cost = max group cost");
  Require(m.deferred_items == d.deferred.size(), "metrics.deferred_items = deferred list");
  Require(m.dropped_items == d.dropped.size(), "metrics.dropped_items = dropped list");
  if (!d.groups.empty() && largest > 0) {
    Require(m.lower_bound <= largest * (1 + 1e-9), "lower bound <= max group cost");
    Require(m.balance_efficiency > 0 && m.balance_efficiency <= 1 + 1e-12,
            "balance efficiency in (0, 1]");
  }
}

// Tokens of each document placed in the plan's groups, and how many groups
// (pieces) each appears in. Every item must be a document index < n.
inline void CountPlaced(const PlanData& d, size_t n, std::vector<int64_t>& tokens,
                        std::vector<int64_t>& pieces) {
  tokens.assign(n, 0);
  pieces.assign(n, 0);
  for (const Group& g : d.groups) {
    for (size_t i = 0; i < g.items.size(); ++i) {
      Require(g.items[i] >= 0 && static_cast<size_t>(g.items[i]) < n, "item index in range");
      tokens[g.items[i]] += g.tokens[i];
      ++pieces[g.items[i]];
    }
  }
}

// Plans must be identical for identical calls (determinism).
inline bool SamePlan(const PlanData& a, const PlanData& b) {
  if (a.groups.size() != b.groups.size() || a.deferred != b.deferred || a.dropped != b.dropped) {
    return false;
  }
  for (size_t g = 0; g < a.groups.size(); ++g) {
    const Group& x = a.groups[g];
    const Group& y = b.groups[g];
    if (x.items != y.items || x.tokens != y.tokens || x.computed != y.computed ||
        std::memcmp(&x.cost, &y.cost, sizeof(double)) != 0 || x.rank != y.rank ||
        x.slot != y.slot) {
      return false;
    }
  }
  return true;
}

// How an option struct is presented: as is, or as a newer caller's larger
// struct (struct_size beyond ours) whose unknown tail is zero (must behave
// exactly as the plain struct) or non-zero (must be rejected).
enum class Tail { kNone, kZero, kNonZero };

template <typename T>
class Versioned {
 public:
  Versioned(const T& options, Tail tail, size_t extra) : tail_(tail) {
    std::memset(buffer_, 0, sizeof(buffer_));
    std::memcpy(buffer_, &options, sizeof(T));
    if (tail == Tail::kNone) return;
    extra = std::max<size_t>(1, std::min(extra, sizeof(buffer_) - sizeof(T)));
    const uint32_t size = static_cast<uint32_t>(sizeof(T) + extra);
    std::memcpy(buffer_, &size, sizeof(size));
    if (tail == Tail::kNonZero) buffer_[sizeof(T) + extra - 1] = 1;
  }
  const T* get() const { return reinterpret_cast<const T*>(buffer_); }
  Tail tail() const { return tail_; }

 private:
  alignas(16) unsigned char buffer_[sizeof(T) + 64];
  Tail tail_;
};

inline Tail ConsumeTail(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange(0, 7)) {
    case 0:
      return Tail::kZero;
    case 1:
      return Tail::kNonZero;
    default:
      return Tail::kNone;
  }
}

// A cost model: tokens, a polynomial, a small transformer, or a callback
// that fails once it has been called `fail_after` times (the count is in
// *calls, owned by the harness). Never NULL.
struct FailingCallback {
  int64_t calls = 0;
  int64_t fail_after = 0;
};

inline int FailingCost(void* user_data, const int64_t* lengths, size_t n, double* out_cost) {
  auto* state = static_cast<FailingCallback*>(user_data);
  if (state->calls++ >= state->fail_after) return 7;
  double cost = 1;
  for (size_t i = 0; i < n; ++i) cost += static_cast<double>(lengths[i]);
  *out_cost = cost;
  return 0;
}

inline flopspack_cost_model* ConsumeModel(FuzzedDataProvider& in, FailingCallback* callback,
                                          bool* can_fail) {
  flopspack_cost_model* model = nullptr;
  *can_fail = false;
  switch (in.ConsumeIntegralInRange(0, 3)) {
    case 1:
      Require(flopspack_cost_model_polynomial(
                  in.ConsumeIntegralInRange(0, 5), in.ConsumeIntegralInRange(0, 5),
                  in.ConsumeIntegralInRange(0, 5), in.ConsumeIntegralInRange(0, 3) * 0.01,
                  &model) == FLOPSPACK_OK,
              "polynomial model");
      break;
    case 2: {
      flopspack_transformer_config c;
      flopspack_transformer_config_init(&c);
      c.num_layers = 2;
      c.hidden_size = 64;
      c.num_attention_heads = 4;
      c.num_key_value_heads = 2;
      c.intermediate_size = 256;
      c.vocab_size = 100;
      c.attention_span =
          in.ConsumeBool() ? FLOPSPACK_ATTENTION_DOCUMENT : FLOPSPACK_ATTENTION_SEQUENCE;
      Require(flopspack_cost_model_transformer(&c, &model) == FLOPSPACK_OK, "transformer model");
      break;
    }
    case 3:
      callback->calls = 0;
      callback->fail_after = in.ConsumeIntegralInRange<int64_t>(0, 64);
      *can_fail = true;
      Require(flopspack_cost_model_custom(FailingCost, callback, &model) == FLOPSPACK_OK,
              "custom model");
      break;
    default:
      Require(flopspack_cost_model_tokens(&model) == FLOPSPACK_OK, "tokens model");
      break;
  }
  return model;
}

// n lengths, mostly in [1, hi], with a few non-positive ones when `bad`.
inline std::vector<int64_t> ConsumeLengths(FuzzedDataProvider& in, size_t max_n, int64_t hi) {
  std::vector<int64_t> lengths(in.ConsumeIntegralInRange<size_t>(0, max_n));
  for (int64_t& l : lengths) {
    l = in.ConsumeIntegralInRange<int64_t>(1, std::max<int64_t>(1, hi));
  }
  if (!lengths.empty() && in.ConsumeIntegralInRange(0, 15) == 0) {
    lengths[in.ConsumeIntegralInRange<size_t>(0, lengths.size() - 1)] =
        in.ConsumeIntegralInRange<int64_t>(-2, 0);
  }
  return lengths;
}

// Extreme but legal values (issue 21). Lengths: INT64_MAX and near it,
// sums that overflow in pairs, and 2^40; each is either cheap to place
// (with a cap near INT64_MAX, at most two pieces) or rejected at once
// (split at a small cap it makes more pieces than any plan takes), so a
// fuzz iteration stays fast. Caps: the same near-maximum values.
inline int64_t ConsumeExtremeLength(FuzzedDataProvider& in) {
  constexpr int64_t kMax = INT64_MAX;
  constexpr int64_t kValues[] = {kMax,     kMax - 1,         kMax / 2 + 1,
                                 kMax / 3, int64_t{1} << 62, int64_t{1} << 40};
  return kValues[in.ConsumeIntegralInRange<size_t>(0, std::size(kValues) - 1)];
}
inline int64_t ConsumeExtremeCap(FuzzedDataProvider& in) {
  constexpr int64_t kMax = INT64_MAX;
  constexpr int64_t kValues[] = {kMax, kMax - 1, kMax / 2 + 1, int64_t{1} << 62};
  return kValues[in.ConsumeIntegralInRange<size_t>(0, std::size(kValues) - 1)];
}
// Costs near DBL_MAX: finite, but a few of them sum to infinity.
inline double ConsumeExtremeCost(FuzzedDataProvider& in) {
  constexpr double kValues[] = {DBL_MAX, DBL_MAX / 2, 1e308, 1e307, DBL_MAX / 64};
  return kValues[in.ConsumeIntegralInRange<size_t>(0, std::size(kValues) - 1)];
}

// With probability 1/8 replaces one entry of lengths by an extreme length;
// returns whether it did.
inline bool MaybeExtremeLength(FuzzedDataProvider& in, std::vector<int64_t>& lengths) {
  if (lengths.empty() || in.ConsumeIntegralInRange(0, 7) != 0) return false;
  lengths[in.ConsumeIntegralInRange<size_t>(0, lengths.size() - 1)] = ConsumeExtremeLength(in);
  return true;
}

// 2 * hi without overflow (a length bound derived from an extreme cap).
inline int64_t Twice(int64_t hi) { return hi > INT64_MAX / 2 ? INT64_MAX : 2 * hi; }

}  // namespace fuzz

#endif  // FLOPSPACK_TESTS_FUZZ_FUZZ_UTIL_H_
