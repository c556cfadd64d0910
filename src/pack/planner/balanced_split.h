// Split for balance: how many pieces a document longer than the token cap
// becomes, and the lower bound on the maximum rank cost when such documents
// are divisible.
//
// What: a document of L > cap tokens must be cut into at least ceil(L / cap)
// pieces. Cut only at the cap, one piece can cost more than a rank's whole
// share S = (step cost) / R (a long document's attention grows with its
// length), and no assignment can then balance the step; the same holds for
// a whole document within the cap at one microbatch per rank with memory
// slack (cap > the average rank's tokens). BalancedPieceCounts
// gives each such document k = max(ceil(L / cap), the smallest k whose
// near-equal pieces, of ceil(L / k) tokens at most, cost <= S), with S
// computed from the split it describes: S falls as documents are cut finer
// (attention is counted within each piece), so the counts are iterated to a
// fixed point (each round only raises counts, at most 64 rounds). A
// document whose cap-sized pieces already fit the share keeps k =
// ceil(L / cap) and is cut at the cap as before; one whose cap-sized piece
// does not is cut into k near-equal pieces, even when k = ceil(L / cap)
// (10,241 tokens at a cap of 10,240: two halves, not 10,240 + 1). No count exceeds
// max(ceil(L / cap), R) (R near-equal pieces always fit the share of a
// convex cost) nor L.
// Near-equal pieces: L mod k pieces of floor(L / k) + 1 tokens, then the rest
// of floor(L / k); for a cost convex in length they minimise the total cost
// among all cuts into k pieces.
//
// Lower bound (DivisibleRankLowerBound): for plans that place every other
// document whole and cut document d into at most k_d pieces of at most cap
// tokens, the maximum rank cost is at least
//   max( (sum of whole costs + sum_d min_{ceil(L_d/cap) <= k <= k_d} NearEqualCost(L_d, k)
//         + overhead x ceil(tokens / cap)) / R,
//        largest whole cost, max_d cost(ceil(L_d / k_d)) ).
// Why each term holds for a document cost f nondecreasing and convex in
// length (the polynomial and transformer models; a per-document constant
// makes more pieces cost more, hence the minimum over k): among cuts into k
// pieces the near-equal one costs least; every rank holds at least the mean;
// some piece of d has at least ceil(L_d / k_d) tokens. Why at most k_d pieces: with
// unlimited cuts one-token pieces would drive attention to zero, a bound
// nobody trains at; the planner promises to cut no finer than balance needs,
// and the bound is the optimum under that promise (docs/planner.md).
//
// Complexity: O(D log cap) cost evaluations per round for D long documents.
// Reference: the fractional relaxation of makespan scheduling (McNaughton,
// "Scheduling with deadlines and loss functions", 1959) with a per-job cost
// that depends on how it is cut.
#ifndef FLOPSPACK_PACK_PLANNER_BALANCED_SPLIT_H_
#define FLOPSPACK_PACK_PLANNER_BALANCED_SPLIT_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "cost/cost_model.h"

namespace flopspack::pack {

// The fewest pieces of at most cap tokens: ceil(length / cap).
inline int64_t CapPieces(int64_t length, int64_t cap) {
  return length / cap + (length % cap != 0 ? 1 : 0);
}

// Total cost of `length` tokens cut into k near-equal pieces (1 <= k <=
// length).
absl::StatusOr<double> NearEqualCost(const cost::CostModel& model, int64_t length, int64_t k);

// Token count of piece p (0 <= p < k) of a near-equal cut.
inline int64_t NearEqualPiece(int64_t length, int64_t k, int64_t p) {
  return length / k + (p < length % k ? 1 : 0);
}

// Pieces for each document so that, where the cap allows it, no piece
// costs more than a rank's share of the step. costs[d] is the cost of
// lengths[d] cut into its fewest near-equal pieces, ceil(L / cap) (the
// whole cost for a document within the cap). A document within the cap may
// get 2 or more pieces too: under split, one whole document that costs more
// than a rank's share is as unbalancing as a long one.
struct BalancedCut {
  std::vector<int64_t> pieces;  // per document, >= ceil(L / cap)
  // The longest piece whose cost fits the final share (at most cap): a
  // document with min(L, cap) > longest is cut into pieces[d] near-equal
  // pieces; the others keep the cut at the cap (or stay whole).
  int64_t longest = 0;
};
absl::StatusOr<BalancedCut> BalancedPieceCounts(const cost::CostModel& model,
                                                absl::Span<const int64_t> lengths,
                                                absl::Span<const double> costs, int64_t num_ranks,
                                                int64_t cap);

// The bound above for `groups` groups (ranks, or ranks x microbatches for
// the per-microbatch bound): lengths[d] cut into at most pieces[d] pieces
// (pieces[d] >= 1), plus whole documents summing to whole_cost with the
// largest costing largest_whole; tokens is the step's total.
absl::StatusOr<double> DivisibleLowerBound(const cost::CostModel& model,
                                           absl::Span<const int64_t> lengths,
                                           absl::Span<const int64_t> pieces, double whole_cost,
                                           double largest_whole, int64_t tokens, int64_t cap,
                                           int64_t groups);

}  // namespace flopspack::pack

#endif  // FLOPSPACK_PACK_PLANNER_BALANCED_SPLIT_H_
