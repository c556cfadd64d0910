// Fuzzes flopspack_balance: costs including NaN, infinities and negatives,
// optional token counts and a hard token cap, every option field out of
// range, a newer caller's larger struct. Invariants on success: exactly
// num_groups groups; every item in exactly one group; equal counts differ
// by at most one when asked; no group over the cap; group cost and tokens
// are the sums of their items; lower bound <= max group cost; the same call
// gives the same plan. On INFEASIBLE with few items, a brute-force search
// confirms that no assignment within the cap (and the count rule) exists.
#include <cmath>
#include <limits>

#include "fuzz_util.h"

using fuzz::Require;

namespace {

// Is there an assignment of items to k groups within the cap (and with
// group sizes differing by at most one when equal_count)? n^k is small here.
bool Feasible(const std::vector<int64_t>& tokens, int64_t k, int64_t cap, bool equal_count) {
  const size_t n = tokens.size();
  std::vector<int64_t> group(n, 0);
  while (true) {
    std::vector<int64_t> load(static_cast<size_t>(k), 0), count(static_cast<size_t>(k), 0);
    for (size_t i = 0; i < n; ++i) {
      load[group[i]] += tokens[i];
      ++count[group[i]];
    }
    bool ok = *std::max_element(load.begin(), load.end()) <= cap;
    if (equal_count) {
      ok &= *std::max_element(count.begin(), count.end()) -
                *std::min_element(count.begin(), count.end()) <=
            1;
    }
    if (ok) return true;
    size_t i = 0;
    while (i < n && ++group[i] == k) group[i++] = 0;
    if (i == n) return false;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  flopspack_balance_options options;
  flopspack_balance_options_init(&options);
  options.algorithm = in.ConsumeIntegralInRange<int32_t>(-1, 4);
  options.num_groups = in.ConsumeIntegralInRange<int64_t>(-1, 12);
  options.equal_count = in.ConsumeIntegralInRange(0, 9) == 0 ? -1 : in.ConsumeIntegralInRange(0, 1);
  options.refine = in.ConsumeIntegralInRange(0, 9) == 0 ? 2 : in.ConsumeIntegralInRange(0, 1);
  options.max_tokens_per_group = in.ConsumeBool() ? in.ConsumeIntegralInRange<int64_t>(-1, 400) : 0;
  options.max_refine_steps = in.ConsumeIntegralInRange<int64_t>(-1, 200);
  options.seed = in.ConsumeIntegral<uint64_t>();
  const fuzz::Versioned<flopspack_balance_options> versioned(
      options, fuzz::ConsumeTail(in), in.ConsumeIntegralInRange<size_t>(1, 64));

  const size_t n = in.ConsumeIntegralInRange<size_t>(0, 60);
  std::vector<double> costs(n);
  bool bad_cost = false;
  for (double& c : costs) {
    switch (in.ConsumeIntegralInRange(0, 31)) {
      case 0:
        c = std::numeric_limits<double>::quiet_NaN();
        break;
      case 1:
        c = std::numeric_limits<double>::infinity();
        break;
      case 2:
        c = -1;
        break;
      case 3:  // finite, but a few sum to infinity (issue 21)
        c = fuzz::ConsumeExtremeCost(in);
        break;
      default:
        c = in.ConsumeIntegralInRange(0, 1000) * 0.5;
        break;
    }
    bad_cost |= !std::isfinite(c) || c < 0;
  }
  const bool with_tokens = in.ConsumeBool();
  std::vector<int64_t> tokens(with_tokens ? n : 0);
  bool bad_token = false;
  for (int64_t& t : tokens) {
    t = in.ConsumeIntegralInRange(0, 63) == 0 ? -1 : in.ConsumeIntegralInRange<int64_t>(0, 100);
    bad_token |= t < 0;
  }

  flopspack_plan* plan = fuzz::Sentinel();
  const flopspack_status status = flopspack_balance(
      versioned.get(), costs.data(), with_tokens ? tokens.data() : nullptr, n, &plan);

  const int64_t k = options.num_groups, cap = options.max_tokens_per_group;
  const bool bad_options = versioned.tail() == fuzz::Tail::kNonZero || k < 1 ||
                           options.algorithm < 0 || options.algorithm > 3 ||
                           (options.equal_count != 0 && options.equal_count != 1) ||
                           (options.refine != 0 && options.refine != 1) || cap < 0 ||
                           options.max_refine_steps < 0 || (cap > 0 && !with_tokens && n > 0);
  double cost_sum = 0;
  for (double c : costs) cost_sum += c;
  const bool sum_overflows = !bad_cost && !std::isfinite(cost_sum);
  if (status != FLOPSPACK_OK) {
    Require(plan == fuzz::Sentinel(), "out untouched on failure");
    if (status == FLOPSPACK_OUT_OF_RANGE) {
      Require(sum_overflows, "OUT_OF_RANGE only for costs whose sum overflows a double");
    } else if (status == FLOPSPACK_INFEASIBLE) {
      Require(!bad_options && !bad_cost && !bad_token && cap > 0, "INFEASIBLE only under a cap");
      if (n <= 7 && k <= 3) {
        Require(!Feasible(tokens, k, cap, options.equal_count == 1),
                "INFEASIBLE only when no assignment within the cap exists");
      }
    } else {
      Require(status == FLOPSPACK_INVALID_ARGUMENT, "bad input is INVALID_ARGUMENT");
      Require(bad_options || bad_cost || bad_token, "only bad input is rejected");
    }
    return 0;
  }
  Require(!bad_options && !bad_cost && !bad_token, "bad input is never accepted");
  Require(!sum_overflows, "costs whose sum overflows a double are never accepted");

  const fuzz::PlanData d = fuzz::Read(plan);
  fuzz::CheckGroupMetrics(d);
  Require(std::isfinite(d.metrics.total_cost) && std::isfinite(d.metrics.mean_group_cost) &&
              std::isfinite(d.metrics.balance_efficiency) &&
              std::isfinite(d.metrics.gap_to_lower_bound),
          "metrics finite");
  Require(d.groups.size() == static_cast<size_t>(k), "num_groups groups");
  std::vector<int64_t> placed, pieces;
  fuzz::CountPlaced(d, n, placed, pieces);
  for (size_t i = 0; i < n; ++i) Require(pieces[i] == 1, "every item in exactly one group");
  size_t fewest = n, most = 0;
  int64_t total_tokens = 0;
  for (const fuzz::Group& g : d.groups) {
    fewest = std::min(fewest, g.items.size());
    most = std::max(most, g.items.size());
    double cost = 0;
    int64_t group_tokens = 0;
    for (size_t j = 0; j < g.items.size(); ++j) {
      cost += costs[g.items[j]];
      Require(g.tokens[j] == (with_tokens ? tokens[g.items[j]] : 0), "item tokens reported");
      group_tokens += g.tokens[j];
    }
    Require(fuzz::Near(g.cost, cost), "group cost = sum of its items");
    if (cap > 0) Require(group_tokens <= cap, "token cap respected");
    total_tokens += group_tokens;
  }
  if (options.equal_count == 1 && n > 0) Require(most - fewest <= 1, "equal counts");
  int64_t input_tokens = 0;
  for (int64_t t : tokens) input_tokens += t;
  Require(total_tokens == input_tokens && d.metrics.real_tokens == input_tokens,
          "token sum preserved");
  Require(d.metrics.num_items == n, "num_items = n");

  flopspack_plan* again = nullptr;
  Require(flopspack_balance(versioned.get(), costs.data(), with_tokens ? tokens.data() : nullptr, n,
                            &again) == FLOPSPACK_OK,
          "repeat succeeds");
  Require(fuzz::SamePlan(d, fuzz::Read(again)), "deterministic");
  flopspack_plan_destroy(again);
  flopspack_plan_destroy(plan);
  return 0;
}
