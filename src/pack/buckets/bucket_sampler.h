// The bucket sampler: padded batches drawn from length buckets, re-shuffled
// every epoch, arranged into optimizer steps whose length mix matches the
// dataset's and whose ranks carry nearly equal cost.
//
// What, per epoch e (a pure function of (seed, e), so any (epoch, step) can
// be replayed exactly):
//  0. Over-budget samples (a sample that alone breaks the budget) follow
//     `overflow`: kError fails the call (default), kTruncate keeps the first
//     tokens that fit (counted as truncated), kDefer leaves the sample out of
//     every epoch and lists it in the plan's deferred list (counted). Nothing
//     is left out unless asked.
//  1. Buckets: explicit upper bounds, or the optimal ones of buckets.h for a
//     budget-aware price: a sample in a bucket whose longest is v takes
//     1 / cap(v) of a batch, so the bounds minimise the fractional number of
//     batches (padding plus the budget a bucket's batches cannot use). Each
//     sample belongs to the first bucket whose bound is >= its length.
//  2. Batches: the buckets, in ascending order, form one sequence that is
//     cut into contiguous batches (a batch may span a bucket boundary; its
//     members are padded to its longest). A batch whose last bucket is b may
//     hold k_b(T) = min(h_b, max(1, floor(T / c_b))) samples, where h_b is the
//     most samples of length L_b the budget admits, c_b the balance cost of
//     one sample of length L_b (L_b, or the model's cost) and T a cost cap.
//     The greedy cut is optimal for this hereditary feasibility, so the batch
//     count is non-increasing in T. M0 = the count at the budget (T = the
//     cost budget a token budget implies, see below); pad-last needs M = M0
//     rounded up to a multiple of G = ranks x accumulation, and T is then the
//     smallest cap whose count is <= M (bisection over T, O(B) per probe):
//     the extra batches are spread over all batches instead of halving a few,
//     which is what keeps steps balanced on small or duplicate-heavy data.
//     A count still short of M splits the run with the most batches evenly.
//     The cut positions depend only on the bucket sizes, so every epoch has
//     the same number of batches and steps; each epoch shuffles every bucket
//     (util::Rng seeded by (seed, epoch, bucket)) before cutting, so a
//     batch's company changes every epoch. drop-last cuts M0 batches and
//     drops the M0 mod G with the fewest real tokens (ties by batch order).
//     With a model and a token budget, batches are also capped at the cost
//     a full token budget implies for the dataset: max_padded_tokens x the
//     least cost per token over the data's lengths (at least one sample), so
//     batches of long samples, which cost more per token, do not unbalance
//     the ranks (docs/buckets.md).
//  3. Arrangement: the kept batches, in sequence order (ascending lengths),
//     form G consecutive strata of S = M / G batches; step t takes the t-th
//     batch of every stratum (systematic sampling), so every step holds one
//     batch from each 1/G slice of the length-sorted data. The order of steps
//     within the epoch is then shuffled with (seed, epoch).
//  4. Ranks: in each step, the G batches go to R ranks, A each, by
//     longest-processing-time first under that cardinality (AssignLptSlots
//     of pack/primitives/lpt.h).
// Complexity per epoch: O(n + M log G) plus O(n log k) for the diversity
// metrics; creation O(n log D + B * D log D + 100 B).
// Guarantees: every kept sample in exactly one batch (or listed as dropped
// with drop-last); every batch within budget; identical plans for identical
// inputs, options, seed and epoch on every platform.
// References: systematic sampling (Cochran, "Sampling Techniques", ch. 8);
// LPT (Graham, "Bounds on multiprocessing timing anomalies", 1969); greedy
// contiguous partition under a min-max bottleneck (the linear partition
// problem, Skiena, "The Algorithm Design Manual", 8.5); bucketing by length
// as in fairseq / tf.data bucket_by_sequence_length.
#ifndef FLOPSPACK_PACK_BUCKETS_BUCKET_SAMPLER_H_
#define FLOPSPACK_PACK_BUCKETS_BUCKET_SAMPLER_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "cost/cost_model.h"
#include "pack/buckets/diversity.h"
#include "pack/primitives/overflow.h"
#include "pack/primitives/plan.h"

namespace flopspack::pack {

enum class BucketBudget {
  kPaddedTokens = 0,  // batch size x longest sample <= max_padded_tokens
  kCost = 1,          // model->PaddedBatchCost(batch) <= max_batch_cost
};

struct BucketSamplerOptions {
  int64_t num_buckets = 64;           // used when upper_bounds is empty
  std::vector<int64_t> upper_bounds;  // explicit, ascending; empty = optimal
  BucketBudget budget = BucketBudget::kPaddedTokens;
  int64_t max_padded_tokens = 0;
  double max_batch_cost = 0;
  int64_t num_ranks = 1;
  int64_t accumulation_steps = 1;
  bool drop_last = false;
  uint64_t seed = 0;
  // Samples that alone break the budget: kError, kTruncate or kDefer (drop).
  Overflow overflow = Overflow::kError;
};

// Whether an epoch meets quality targets, and if not, which and by how much
// (docs/buckets.md, "Diagnostics").
struct BucketTargets {
  double balance = 0.97;    // step balance at least
  double padding = 0.95;    // padding efficiency at least
  double diversity = 0.10;  // token-weighted step KS at most
};
enum BucketTargetBits : uint32_t {
  kBalanceTarget = 1,
  kPaddingTarget = 2,
  kDiversityTarget = 4,
};
struct BucketDiagnostics {
  uint32_t unmet = 0;  // BucketTargetBits of the targets missed
  double balance = 0, balance_shortfall = 0;
  // The best step balance any assignment of this epoch's batches to ranks
  // could give: a step's slowest rank carries at least its costliest batch.
  double balance_bound = 0;
  double padding = 0, padding_shortfall = 0;
  // Padding efficiency if every sample were padded to its bucket's bound.
  double padding_bound = 0;
  double diversity = 0, diversity_excess = 0;
  // 1 / (2G): the KS distance of G equal, length-homogeneous batches placed
  // at the best quantiles; no step of G batches can do better.
  double diversity_floor = 0;
  double batch_cost_cap = 0;       // T of the cut (0 = the budget alone)
  double implied_cost_budget = 0;  // with a model and a token budget
  uint64_t truncated_items = 0, deferred_items = 0;
  int64_t truncated_tokens = 0, deferred_tokens = 0;
};

class BucketSampler {
 public:
  // model may be null unless budget == kCost; when given, batch costs (what
  // ranks are balanced on) are model->PaddedBatchCost, else padded tokens.
  // Errors: bad options (zero buckets, ranks, accumulation; budget <= 0;
  // cost budget without model), bad lengths, a sample longer than every
  // explicit bound (InvalidArgument); a sample that alone breaks the budget,
  // or too few samples for one step (FailedPrecondition).
  static absl::StatusOr<std::unique_ptr<BucketSampler>> Create(
      const BucketSamplerOptions& options, std::shared_ptr<const cost::CostModel> model,
      absl::Span<const int64_t> lengths);

  // The whole epoch: one group per batch, ordered by step, then rank, then
  // accumulation index: group (s * R + r) * A + a has rank r and slot
  // s * A + a. Metrics: padding efficiency, balance_efficiency (sum over
  // steps of mean rank cost / sum of max rank cost), diversity distances,
  // rank metrics over the epoch, dropped items.
  absl::StatusOr<Plan> Epoch(uint64_t epoch) const;

  // One step of an epoch, the same groups (and slots) as in Epoch(epoch);
  // metrics describe that step alone. The epoch's layout is cached, so
  // consecutive steps of one epoch cost O(step size) each.
  absl::StatusOr<Plan> Step(uint64_t epoch, uint64_t step) const;

  int64_t steps_per_epoch() const { return num_steps_; }
  int64_t batches_per_step() const { return num_ranks_ * accumulation_; }
  int64_t num_ranks() const { return num_ranks_; }
  int64_t accumulation_steps() const { return accumulation_; }
  absl::Span<const int64_t> upper_bounds() const { return upper_bounds_; }
  const LengthReference& reference() const { return reference_; }
  // Over-budget samples left out (overflow = defer), ascending.
  absl::Span<const int64_t> deferred() const { return deferred_; }

  // Quality of epoch `epoch` against `targets`. InvalidArgument for a target
  // outside [0, 1].
  absl::StatusOr<BucketDiagnostics> Diagnose(uint64_t epoch, const BucketTargets& targets) const;

 private:
  struct Layout;  // one epoch's batches in plan order

  BucketSampler(const BucketSamplerOptions& options, LengthReference reference);
  absl::StatusOr<std::shared_ptr<const Layout>> GetLayout(uint64_t epoch) const;
  absl::StatusOr<std::shared_ptr<const Layout>> BuildLayout(uint64_t epoch) const;
  void AddGroups(const Layout& layout, size_t first_group, size_t end_group, Plan& plan) const;
  absl::StatusOr<double> BatchCost(absl::Span<const int64_t> members, int64_t longest) const;

  std::shared_ptr<const cost::CostModel> model_;
  std::vector<int64_t> lengths_;
  LengthReference reference_;
  std::vector<int64_t> upper_bounds_;
  std::vector<std::vector<int64_t>> bucket_items_;  // per bucket, ascending index
  // The cut: pieces of the bucket-ordered sequence, each cut evenly into
  // `batches` batches (sizes differ by at most one).
  struct Piece {
    int64_t first = 0, items = 0, batches = 0;
  };
  std::vector<Piece> pieces_;
  std::vector<int64_t> deferred_;  // over-budget samples left out (kDefer)
  int64_t deferred_tokens_ = 0, truncated_tokens_ = 0;
  uint64_t truncated_items_ = 0;
  double cost_cap_ = 0, implied_cost_budget_ = 0;
  int64_t num_ranks_ = 1, accumulation_ = 1, num_steps_ = 0, num_batches_ = 0;
  int64_t budget_tokens_ = 0;
  double largest_item_cost_ = 0;
  uint64_t seed_ = 0;

  mutable std::mutex cache_mutex_;
  mutable std::shared_ptr<const Layout> cache_;
  mutable uint64_t cache_epoch_ = 0;
};

// Step-level metrics shared by the sampler and the baselines it is compared
// with: for a plan whose groups carry (rank, slot), with step = slot /
// accumulation_steps, sets num_steps, balance_efficiency = sum over steps of
// mean rank cost / sum over steps of max rank cost (the share of the ranks'
// time that is not waiting for a straggler), and the mean diversity
// distances. Returns the per-step distances.
absl::StatusOr<std::vector<DiversityDistance>> ComputeStepMetrics(Plan& plan,
                                                                  const LengthReference& reference,
                                                                  int64_t num_ranks,
                                                                  int64_t accumulation_steps);

}  // namespace flopspack::pack

#endif  // FLOPSPACK_PACK_BUCKETS_BUCKET_SAMPLER_H_
