#include "pack/balance/balance.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "absl/strings/str_format.h"
#include "pack/balance/feasible.h"
#include "pack/balance/karmarkar_karp.h"
#include "pack/primitives/group_limits.h"
#include "pack/primitives/lpt.h"
#include "pack/primitives/refine.h"
#include "util/checked.h"
#include "util/random.h"
#include "util/validate.h"

namespace flopspack::pack {
namespace {

absl::Status CheckOptions(absl::Span<const double> costs, absl::Span<const int64_t> tokens,
                          const BalanceOptions& options) {
  if (options.num_groups < 1 || options.num_groups > std::numeric_limits<int32_t>::max()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "num_groups = %d: the number of groups must be in [1, 2^31 - 1]", options.num_groups));
  }
  // The algorithm's value is the C layer's to check (src/capi).
  if (options.max_tokens_per_group < 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("max_tokens_per_group = %d: must be positive, or 0 for no cap",
                        options.max_tokens_per_group));
  }
  if (options.max_refine_steps < 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "max_refine_steps = %d: must be >= 0 (0 = the default bound)", options.max_refine_steps));
  }
  if (costs.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    return absl::OutOfRangeError(
        absl::StrFormat("n = %u items: at most 2^31 - 1 are supported", costs.size()));
  }
  if (absl::Status s = util::CheckCosts("costs", costs); !s.ok()) return s;
  // Group costs are sums of item costs: finite costs whose total is not
  // (three of 1e308) would give inf/NaN metrics.
  if (absl::StatusOr<double> sum = util::CheckedCostSum("costs", costs); !sum.ok()) {
    return sum.status();
  }
  if (!tokens.empty()) {
    if (tokens.size() != costs.size()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "tokens has %u entries for %u costs: give one per item", tokens.size(), costs.size()));
    }
    int64_t total = 0;
    for (size_t i = 0; i < tokens.size(); ++i) {
      if (tokens[i] < 0) {
        return absl::InvalidArgumentError(
            absl::StrFormat("tokens[%u] = %d: token counts must be >= 0", i, tokens[i]));
      }
      if (tokens[i] > std::numeric_limits<int64_t>::max() - total) {
        return absl::OutOfRangeError(absl::StrFormat(
            "tokens: the sum overflows int64 at index %u (value %d)", i, tokens[i]));
      }
      total += tokens[i];
    }
  } else if (options.max_tokens_per_group > 0 && !costs.empty()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("max_tokens_per_group = %d needs tokens, but none were given",
                        options.max_tokens_per_group));
  }
  return absl::OkStatus();
}

bool RespectsCap(absl::Span<const int32_t> group, int32_t k, const GroupLimits& limits) {
  if (!limits.has_token_cap()) return true;
  std::vector<int64_t> load(static_cast<size_t>(k), 0);
  for (size_t i = 0; i < group.size(); ++i) {
    load[group[i]] += limits.item_tokens(i);
    if (load[group[i]] > limits.max_tokens) return false;
  }
  return true;
}

BalanceAlgorithm Resolve(const BalanceOptions& options, size_t n) {
  if (options.algorithm != BalanceAlgorithm::kAuto) return options.algorithm;
  const double per_group = static_cast<double>(n) / static_cast<double>(options.num_groups);
  const double threshold =
      options.equal_count ? kAutoBalancedKarmarkarKarpMinItems : kAutoKarmarkarKarpMinItems;
  return per_group >= threshold ? BalanceAlgorithm::kKarmarkarKarp : BalanceAlgorithm::kLpt;
}

absl::StatusOr<std::vector<int32_t>> Construct(absl::Span<const double> costs, int32_t k,
                                               const GroupLimits& limits,
                                               BalanceAlgorithm algorithm) {
  switch (algorithm) {
    case BalanceAlgorithm::kGreedy:
      return AssignGreedy(costs, k, limits);
    case BalanceAlgorithm::kKarmarkarKarp: {
      absl::StatusOr<std::vector<int32_t>> kk = limits.equal_count
                                                    ? AssignBalancedKarmarkarKarp(costs, k)
                                                    : AssignKarmarkarKarp(costs, k);
      if (!kk.ok() || RespectsCap(*kk, k, limits)) return kk;
      return AssignLpt(costs, k, limits);  // KK broke the cap: schedule within it
    }
    case BalanceAlgorithm::kAuto:
    case BalanceAlgorithm::kLpt:
      break;
  }
  return AssignLpt(costs, k, limits);
}

}  // namespace

int64_t DefaultRefineSteps(size_t n, int64_t num_groups) {
  return 4 * std::min(static_cast<int64_t>(n), num_groups) + 64;
}

absl::StatusOr<std::vector<int32_t>> AssignBalanced(absl::Span<const double> costs,
                                                    absl::Span<const int64_t> tokens,
                                                    const BalanceOptions& options) {
  if (absl::Status s = CheckOptions(costs, tokens, options); !s.ok()) return s;
  const int32_t k = static_cast<int32_t>(options.num_groups);
  GroupLimits limits;
  limits.equal_count = options.equal_count;
  limits.max_tokens = options.max_tokens_per_group;
  limits.tokens = tokens;

  absl::StatusOr<std::vector<int32_t>> group =
      Construct(costs, k, limits, Resolve(options, costs.size()));
  if (!group.ok() && absl::IsFailedPrecondition(group.status()) && limits.has_token_cap()) {
    group = FindCapFeasibleAssignment(costs.size(), k, limits);
  }
  if (!group.ok()) return group.status();
  if (options.refine) {
    const int64_t steps = options.max_refine_steps > 0
                              ? options.max_refine_steps
                              : DefaultRefineSteps(costs.size(), options.num_groups);
    Refine(costs, k, limits, absl::MakeSpan(*group), steps);
  }
  std::vector<int32_t> label(static_cast<size_t>(k));
  std::iota(label.begin(), label.end(), 0);
  util::Rng rng(util::DeriveSeed(options.seed, 1));
  rng.Shuffle(absl::MakeSpan(label));
  for (int32_t& g : *group) g = label[g];
  return group;
}

double BalanceLowerBound(absl::Span<const double> costs, int64_t num_groups, bool equal_count) {
  if (costs.empty() || num_groups < 1) return 0;
  double total = 0, largest = 0;
  for (double c : costs) {
    total += c;
    largest = std::max(largest, c);
  }
  double bound = std::max(total / static_cast<double>(num_groups), largest);
  const size_t n = costs.size(), k = static_cast<size_t>(num_groups);
  const size_t low = n / k;  // every group holds at least this many items
  if (!equal_count || low < 2) return bound;
  // Items x_1 >= x_2 >= ... For j <= k, either two of the j largest share a
  // group, which then costs >= 2·x_j + (low - 2) cheapest items, or they sit
  // in j distinct groups holding >= j·(low - 1) other items, so one of those
  // groups costs >= (x_1 + ... + x_j + the j·(low - 1) cheapest) / j. The
  // smaller of the two holds for each j; j = 1 is "the largest item plus the
  // low - 1 cheapest".
  const std::vector<int32_t> order = CostDescendingOrder(costs);
  std::vector<double> cheapest(n + 1, 0);  // cheapest[m] = sum of the m smallest
  for (size_t m = 0; m < n; ++m) cheapest[m + 1] = cheapest[m] + costs[order[n - 1 - m]];
  double top = 0;  // x_1 + ... + x_j
  for (size_t j = 1; j <= k && j * low <= n; ++j) {
    const double x_j = costs[order[j - 1]];
    top += x_j;
    const double distinct = (top + cheapest[j * (low - 1)]) / static_cast<double>(j);
    const double shared =
        j >= 2 ? 2 * x_j + cheapest[low - 2] : std::numeric_limits<double>::infinity();
    bound = std::max(bound, std::min(distinct, shared));
  }
  return bound;
}

absl::StatusOr<Plan> Balance(absl::Span<const double> costs, absl::Span<const int64_t> tokens,
                             const BalanceOptions& options) {
  absl::StatusOr<std::vector<int32_t>> group = AssignBalanced(costs, tokens, options);
  if (!group.ok()) return group.status();
  const size_t k = static_cast<size_t>(options.num_groups);
  // Items of each group by index: a counting sort on the group.
  std::vector<int64_t> start(k + 1, 0);
  for (int32_t g : *group) ++start[static_cast<size_t>(g) + 1];
  for (size_t g = 1; g <= k; ++g) start[g] += start[g - 1];
  std::vector<int64_t> items(costs.size()), item_tokens(costs.size());
  {
    std::vector<int64_t> cursor(start.begin(), start.end() - 1);
    for (size_t i = 0; i < costs.size(); ++i) {
      const int64_t at = cursor[(*group)[i]]++;
      items[at] = static_cast<int64_t>(i);
      item_tokens[at] = tokens.empty() ? 0 : tokens[i];
    }
  }
  Plan plan;
  plan.Reserve(k, costs.size());
  for (size_t g = 0; g < k; ++g) {
    const auto span_items = absl::MakeConstSpan(items).subspan(start[g], start[g + 1] - start[g]);
    const auto span_tokens =
        absl::MakeConstSpan(item_tokens).subspan(start[g], start[g + 1] - start[g]);
    double cost = 0;
    int64_t real = 0;
    for (size_t j = 0; j < span_items.size(); ++j) {
      cost += costs[span_items[j]];
      real += span_tokens[j];
    }
    plan.AddGroup(span_items, span_tokens, real, cost);
  }
  ComputeGroupMetrics(plan, costs.size(),
                      BalanceLowerBound(costs, options.num_groups, options.equal_count),
                      options.max_tokens_per_group);
  return plan;
}

}  // namespace flopspack::pack
