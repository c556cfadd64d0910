#include "pack/planner/balanced_split.h"

#include <algorithm>
#include <limits>

namespace flopspack::pack {
namespace {

// The longest length in [1, cap] whose cost is <= share (1 when even one
// token costs more): binary search, the cost being nondecreasing in length.
absl::StatusOr<int64_t> LongestWithin(const cost::CostModel& model, double share, int64_t cap) {
  int64_t lo = 1, hi = cap;  // answer in [lo, hi]
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo + 1) / 2;
    absl::StatusOr<double> c = model.DocumentCost(mid);
    if (!c.ok()) return c.status();
    if (*c <= share) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

// The least NearEqualCost over k in [lo, hi]: more pieces cost less
// attention but more per-document cost (a polynomial model's per_document
// term). Every k for a short range; else a ternary search, the cost being
// convex in k for a polynomial model, then the neighbourhood it ends in.
absl::StatusOr<double> CheapestCut(const cost::CostModel& model, int64_t length, int64_t lo,
                                   int64_t hi) {
  while (hi - lo > 32) {
    const int64_t a = lo + (hi - lo) / 3, b = hi - (hi - lo) / 3;
    absl::StatusOr<double> ca = NearEqualCost(model, length, a);
    if (!ca.ok()) return ca.status();
    absl::StatusOr<double> cb = NearEqualCost(model, length, b);
    if (!cb.ok()) return cb.status();
    if (*ca <= *cb) {
      hi = b;
    } else {
      lo = a;
    }
  }
  double best = std::numeric_limits<double>::infinity();
  for (int64_t k = lo; k <= hi; ++k) {
    absl::StatusOr<double> c = NearEqualCost(model, length, k);
    if (!c.ok()) return c.status();
    best = std::min(best, *c);
  }
  return best;
}

}  // namespace

absl::StatusOr<double> NearEqualCost(const cost::CostModel& model, int64_t length, int64_t k) {
  const int64_t q = length / k, longer = length % k;
  double total = 0;
  if (longer > 0) {
    absl::StatusOr<double> c = model.DocumentCost(q + 1);
    if (!c.ok()) return c.status();
    total += static_cast<double>(longer) * *c;
  }
  if (k - longer > 0) {
    absl::StatusOr<double> c = model.DocumentCost(q);
    if (!c.ok()) return c.status();
    total += static_cast<double>(k - longer) * *c;
  }
  return total;
}

absl::StatusOr<BalancedCut> BalancedPieceCounts(const cost::CostModel& model,
                                                absl::Span<const int64_t> lengths,
                                                absl::Span<const double> costs, int64_t num_ranks,
                                                int64_t cap) {
  const size_t n = lengths.size();
  BalancedCut out;
  std::vector<int64_t>& k = out.pieces;
  k.resize(n);
  std::vector<double> cost(costs.begin(), costs.end());
  for (size_t d = 0; d < n; ++d) k[d] = CapPieces(lengths[d], cap);
  // Each round only raises counts, so the share only falls (for a convex
  // cost) and the rounds end; 64 bounds them for any other cost.
  for (int round = 0; round < 64; ++round) {
    double total = 0;
    for (double c : cost) total += c;
    const double share = total / static_cast<double>(num_ranks);
    absl::StatusOr<int64_t> longest = LongestWithin(model, share, cap);
    if (!longest.ok()) return longest.status();
    out.longest = *longest;
    bool changed = false;
    for (size_t d = 0; d < n; ++d) {
      const int64_t length = lengths[d];
      const int64_t most = std::min(length, std::max(CapPieces(length, cap), num_ranks));
      const int64_t want = std::min(most, CapPieces(length, *longest));
      if (want <= k[d]) continue;
      k[d] = want;
      absl::StatusOr<double> c = NearEqualCost(model, length, want);
      if (!c.ok()) return c.status();
      cost[d] = *c;
      changed = true;
    }
    if (!changed) break;
  }
  return out;
}

absl::StatusOr<double> DivisibleLowerBound(const cost::CostModel& model,
                                           absl::Span<const int64_t> lengths,
                                           absl::Span<const int64_t> pieces, double whole_cost,
                                           double largest_whole, int64_t tokens, int64_t cap,
                                           int64_t groups) {
  double total = whole_cost;
  double largest = largest_whole;
  for (size_t d = 0; d < lengths.size(); ++d) {
    const int64_t fewest = std::min(CapPieces(lengths[d], cap), pieces[d]);
    absl::StatusOr<double> c = CheapestCut(model, lengths[d], fewest, pieces[d]);
    if (!c.ok()) return c.status();
    total += *c;
    absl::StatusOr<double> piece = model.DocumentCost(CapPieces(lengths[d], pieces[d]));
    if (!piece.ok()) return piece.status();
    largest = std::max(largest, *piece);
  }
  // Every non-empty microbatch pays the overhead; at least ceil(tokens /
  // cap) are non-empty.
  total += model.SequenceOverhead() * static_cast<double>(CapPieces(tokens, cap));
  return std::max(total / static_cast<double>(groups), largest);
}

}  // namespace flopspack::pack
