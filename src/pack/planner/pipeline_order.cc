#include "pack/planner/pipeline_order.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <numeric>
#include <utility>

#include "pack/planner/pipeline_schedule.h"
#include "pack/planner/planner_order.h"

namespace flopspack::pack {
namespace {

// Above this many microbatches a pass tries O(M) candidates, not O(M^2).
constexpr int64_t kFullNeighbourhood = 16;
// Up to this many microbatches every order is tried (at most 24).
constexpr int64_t kEveryOrder = 4;

// The starting orders, from the per-slot costs: the caller's, heaviest
// first, lightest first, light ends, and light ends with the middle
// ascending (the lightest first, the second lightest last).
std::vector<std::vector<int32_t>> Starts(absl::Span<const double> slot_costs,
                                         absl::Span<const int32_t> start) {
  const int32_t m = static_cast<int32_t>(slot_costs.size());
  std::vector<std::vector<int32_t>> starts;
  if (static_cast<int32_t>(start.size()) == m) starts.emplace_back(start.begin(), start.end());
  std::vector<int32_t> descending = OrderSlots(slot_costs, SlotOrder::kDescending);
  starts.push_back(descending);
  std::vector<int32_t> ascending(descending.rbegin(), descending.rend());
  starts.push_back(ascending);
  starts.push_back(OrderSlots(slot_costs, SlotOrder::kLightEnds));
  if (m >= 3) {
    std::vector<int32_t> ends{ascending[0]};
    ends.insert(ends.end(), ascending.begin() + 2, ascending.end());
    ends.push_back(ascending[1]);
    starts.push_back(std::move(ends));
  }
  return starts;
}

// Best of the starts, then (improve) every order for M <= kEveryOrder or
// first-improvement local search over exchanges and moves, stopping early
// once the makespan is at or below stop_at. eval(order, cutoff) is the makespan of an order, or any
// value
// >= cutoff when the makespan is (the candidate is then rejected).
using Eval = std::function<double(const std::vector<int32_t>&, double)>;
std::vector<int32_t> Search(absl::Span<const double> slot_costs, absl::Span<const int32_t> start,
                            const Eval& eval, bool improve = true, double* span_out = nullptr,
                            double stop_at = -1) {
  constexpr double kNone = std::numeric_limits<double>::infinity();
  const int64_t m = static_cast<int64_t>(slot_costs.size());
  std::vector<int32_t> best;
  double best_span = 0;
  for (std::vector<int32_t>& s : Starts(slot_costs, start)) {
    const double span = eval(s, best.empty() ? kNone : best_span);
    if (best.empty() || span < best_span) {
      best_span = span;
      best = std::move(s);
    }
  }
  if (span_out != nullptr) *span_out = best_span;
  if (m < 2 || !improve) return best;
  if (m <= kEveryOrder) {
    std::vector<int32_t> all(m);
    std::iota(all.begin(), all.end(), 0);
    do {
      std::vector<int32_t> candidate = all;
      const double span = eval(candidate, best_span);
      if (span < best_span) {
        best_span = span;
        best.swap(candidate);
      }
    } while (best_span > stop_at && std::next_permutation(all.begin(), all.end()));
    if (span_out != nullptr) *span_out = best_span;
    return best;
  }
  std::vector<int32_t> trial;
  const bool full = m <= kFullNeighbourhood;
  auto try_order = [&](std::vector<int32_t>& candidate) {
    const double span = eval(candidate, best_span);
    if (span < best_span) {
      best_span = span;
      best.swap(candidate);
      return true;
    }
    return false;
  };
  for (int pass = 0; pass < kPipelineOrderPasses && best_span > stop_at; ++pass) {
    bool improved = false;
    // Exchanges: every pair (or neighbours only for long orders).
    for (int64_t a = 0; a < m && best_span > stop_at; ++a) {
      for (int64_t b = a + 1; b < (full ? m : std::min(m, a + 2)) && best_span > stop_at; ++b) {
        trial = best;
        std::swap(trial[a], trial[b]);
        improved = try_order(trial) || improved;
      }
    }
    // Moves: one microbatch to another position (or to and from the ends).
    for (int64_t a = 0; a < m && best_span > stop_at; ++a) {
      for (int64_t b = 0; b < m && best_span > stop_at; ++b) {
        if (a == b || b == a - 1) continue;  // b == a - 1 is an exchange
        if (!full && a != 0 && a != m - 1 && b != 0 && b != m - 1) continue;
        trial = best;
        const int32_t x = trial[a];
        trial.erase(trial.begin() + a);
        trial.insert(trial.begin() + b, x);
        improved = try_order(trial) || improved;
      }
    }
    if (!improved) break;
  }
  if (span_out != nullptr) *span_out = best_span;
  return best;
}

}  // namespace

std::vector<int32_t> OrderForPipeline(absl::Span<const double> costs, int64_t stages,
                                      absl::Span<const int32_t> start) {
  std::vector<double> ordered(costs.size());
  return Search(costs, start, [&](const std::vector<int32_t>& perm, double) {
    for (size_t j = 0; j < perm.size(); ++j) ordered[j] = costs[perm[j]];
    return OneFOneBMakespan(ordered, stages);
  });
}

std::vector<int32_t> OrderReplicasForPipeline(absl::Span<const double> costs, int64_t num_ranks,
                                              int64_t m, int64_t stages,
                                              absl::Span<const int32_t> start) {
  std::vector<int32_t> perms(num_ranks * m);
  std::vector<double> span(num_ranks);
  std::vector<double> ordered(m);
  auto eval_for = [&](absl::Span<const double> c) {
    return [&ordered, c, stages](const std::vector<int32_t>& perm, double) {
      for (size_t j = 0; j < perm.size(); ++j) ordered[j] = c[perm[j]];
      return OneFOneBMakespan(ordered, stages);
    };
  };
  // Every replica: the best starting order.
  for (int64_t k = 0; k < num_ranks; ++k) {
    const absl::Span<const double> c = costs.subspan(k * m, m);
    const absl::Span<const int32_t> given =
        start.empty() ? absl::Span<const int32_t>() : start.subspan(k * m, m);
    const std::vector<int32_t> perm = Search(c, given, eval_for(c), false, &span[k]);
    std::copy(perm.begin(), perm.end(), perms.begin() + k * m);
  }
  // The full search, slowest replicas first, while a replica could still
  // set the step's makespan.
  std::vector<int64_t> ranks(num_ranks);
  std::iota(ranks.begin(), ranks.end(), 0);
  std::sort(ranks.begin(), ranks.end(),
            [&](int64_t a, int64_t b) { return span[a] != span[b] ? span[a] > span[b] : a < b; });
  double target = 0;
  for (const int64_t k : ranks) {
    if (span[k] <= target) break;
    const absl::Span<const double> c = costs.subspan(k * m, m);
    const std::vector<int32_t> given(perms.begin() + k * m, perms.begin() + (k + 1) * m);
    double found = 0;
    // Once at or below the largest found, this replica no longer sets the
    // step: stop (its full search would only go lower).
    const std::vector<int32_t> perm = Search(c, given, eval_for(c), true, &found, target);
    std::copy(perm.begin(), perm.end(), perms.begin() + k * m);
    target = std::max(target, found);
  }
  return perms;
}

double SharedMakespan(absl::Span<const double> costs, int64_t num_ranks, int64_t m, int64_t stages,
                      absl::Span<const int32_t> perm) {
  std::vector<double> replica(m);
  double span = 0;
  for (int64_t k = 0; k < num_ranks; ++k) {
    for (int64_t j = 0; j < m; ++j) replica[j] = costs[k * m + perm[j]];
    span = std::max(span, OneFOneBMakespan(replica, stages));
  }
  return span;
}

std::vector<int32_t> SharedOrderForPipeline(absl::Span<const double> costs, int64_t num_ranks,
                                            int64_t m, int64_t stages,
                                            absl::Span<const int32_t> start) {
  // The starts order the slots by their totals over the ranks.
  std::vector<double> slot_total(m, 0.0);
  for (int64_t k = 0; k < num_ranks; ++k) {
    for (int64_t j = 0; j < m; ++j) slot_total[j] += costs[k * m + j];
  }
  // Replicas from the last one found above the cutoff: a rejected
  // candidate usually costs one recurrence.
  std::vector<double> replica(m);
  int64_t worst = 0;
  return Search(slot_total, start, [&](const std::vector<int32_t>& perm, double cutoff) {
    double span = 0;
    for (int64_t t = 0; t < num_ranks; ++t) {
      const int64_t k = (worst + t) % num_ranks;
      for (int64_t j = 0; j < m; ++j) replica[j] = costs[k * m + perm[j]];
      const double one = OneFOneBMakespan(replica, stages);
      span = std::max(span, one);
      if (span >= cutoff) {
        worst = k;
        break;
      }
    }
    return span;
  });
}

}  // namespace flopspack::pack
