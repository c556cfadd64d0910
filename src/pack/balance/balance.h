// Balancing: items with costs (and optionally tokens) into k groups so that
// the costliest group is as cheap as possible (multiway number partitioning
// with optional equal counts and a hard token cap per group). This file
// chooses and chains the algorithms of lpt.h, karmarkar_karp.h, feasible.h
// and refine.h, and builds the Plan; see those files for complexities,
// guarantees and references.
//
// kAuto picks by shape: with c = n / k items per group, Karmarkar–Karp when
// c >= kAutoKarmarkarKarpMinItems (balanced KK with equal counts when c >=
// kAutoBalancedKarmarkarKarpMinItems), LPT otherwise; refinement follows by
// default. The thresholds come from docs/algorithms.md's measurements: with
// few items per group KK is no better than LPT, and balanced KK is far worse
// on heavy-tailed costs (its tuples pair the largest items with mid-sized
// ones instead of the smallest). Under a token cap LPT and
// greedy skip groups without room; Karmarkar–Karp ignores caps, so when its
// result breaks one, LPT with caps is used instead. When list scheduling
// cannot place an item, FindCapFeasibleAssignment looks for any assignment
// within the caps (FailedPrecondition = FLOPSPACK_INFEASIBLE if none).
// Finally the seed relabels the groups (a seeded permutation), so that
// across steps the costliest group does not always land on group 0; the
// partition itself does not depend on the seed.
#ifndef FLOPSPACK_PACK_BALANCE_BALANCE_H_
#define FLOPSPACK_PACK_BALANCE_BALANCE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "pack/primitives/plan.h"

namespace flopspack::pack {

// Values match flopspack_balance_algorithm.
enum class BalanceAlgorithm {
  kAuto = 0,
  kGreedy = 1,
  kLpt = 2,
  kKarmarkarKarp = 3,
};

inline constexpr double kAutoKarmarkarKarpMinItems = 32;
inline constexpr double kAutoBalancedKarmarkarKarpMinItems = 64;

struct BalanceOptions {
  BalanceAlgorithm algorithm = BalanceAlgorithm::kAuto;
  int64_t num_groups = 0;  // k >= 1
  bool equal_count = false;
  int64_t max_tokens_per_group = 0;  // 0 = no cap; needs tokens
  bool refine = true;
  int64_t max_refine_steps = 0;  // 0 = DefaultRefineSteps(n, num_groups)
  uint64_t seed = 0;
};

// The refinement bound used when max_refine_steps = 0: 4·min(n, k) + 64
// (a step typically settles one group).
int64_t DefaultRefineSteps(size_t n, int64_t num_groups);

// The group of each item, in [0, num_groups). tokens is empty or has one
// entry (>= 0) per item. Errors: InvalidArgument naming the bad option or
// value; FailedPrecondition when the token cap admits no assignment found.
absl::StatusOr<std::vector<int32_t>> AssignBalanced(absl::Span<const double> costs,
                                                    absl::Span<const int64_t> tokens,
                                                    const BalanceOptions& options);

// AssignBalanced as a Plan: group g lists its items by index, each with its
// tokens (0 without tokens); group cost = sum of its item costs in that
// order; capacity = max_tokens_per_group. The lower bound is max(total / k,
// largest item), and with equal counts also what the count forces on the
// groups of the largest items (see BalanceLowerBound).
absl::StatusOr<Plan> Balance(absl::Span<const double> costs, absl::Span<const int64_t> tokens,
                             const BalanceOptions& options);

// The lower bound on the costliest group that Balance reports: max(total /
// k, largest item), and with equal counts (c = floor(n/k) items at least per
// group) the best over j <= k of min(2·x_j + the c - 2 cheapest items,
// (x_1 + ... + x_j + the j·(c - 1) cheapest) / j), x sorted descending; j =
// 1 is the largest item plus the c - 1 cheapest. O(n log n).
double BalanceLowerBound(absl::Span<const double> costs, int64_t num_groups, bool equal_count);

}  // namespace flopspack::pack

#endif  // FLOPSPACK_PACK_BALANCE_BALANCE_H_
