#include "pack/balance.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "absl/strings/str_format.h"
#include "pack/feasible.h"
#include "pack/group_limits.h"
#include "pack/karmarkar_karp.h"
#include "pack/lpt.h"
#include "pack/refine.h"
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
  const int algorithm = static_cast<int>(options.algorithm);
  if (algorithm < 0 || algorithm > static_cast<int>(BalanceAlgorithm::kKarmarkarKarp)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("algorithm = %d is not a flopspack_balance_algorithm value", algorithm));
  }
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
  return per_group >= kAutoKarmarkarKarpMinItems ? BalanceAlgorithm::kKarmarkarKarp
                                                 : BalanceAlgorithm::kLpt;
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

int64_t DefaultRefineSteps(size_t n) { return 4 * static_cast<int64_t>(n) + 64; }

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
    const int64_t steps =
        options.max_refine_steps > 0 ? options.max_refine_steps : DefaultRefineSteps(costs.size());
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
  double total = 0;
  size_t largest = 0;
  for (size_t i = 0; i < costs.size(); ++i) {
    total += costs[i];
    if (costs[i] > costs[largest]) largest = i;
  }
  double bound = std::max(total / static_cast<double>(num_groups), costs[largest]);
  const size_t companions =
      equal_count ? costs.size() / static_cast<size_t>(num_groups) : size_t{0};
  if (companions >= 2) {
    // The largest item's group holds at least floor(n/k) - 1 other items.
    std::vector<double> others;
    others.reserve(costs.size() - 1);
    for (size_t i = 0; i < costs.size(); ++i) {
      if (i != largest) others.push_back(costs[i]);
    }
    const size_t need = companions - 1;
    std::nth_element(others.begin(), others.begin() + static_cast<ptrdiff_t>(need - 1),
                     others.end());
    std::sort(others.begin(), others.begin() + static_cast<ptrdiff_t>(need));
    double with = costs[largest];
    for (size_t j = 0; j < need; ++j) with += others[j];
    bound = std::max(bound, with);
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
