// The bucket sampler: padded batches drawn from length buckets, re-shuffled
// every epoch, arranged into optimizer steps whose length mix matches the
// dataset's and whose ranks carry nearly equal cost.
//
// What, per epoch e (a pure function of (seed, e), so any (epoch, step) can
// be replayed exactly):
//  1. Buckets: explicit upper bounds, or the optimal ones of buckets.h for a
//     budget-aware price: a sample in a bucket whose longest is v takes
//     1 / cap(v) of a batch (cap below), so the bounds minimise the
//     fractional number of batches, which charges both padding and the
//     budget a bucket's batches cannot use (k * v < budget: a batch of 5,600-
//     token samples fills at most 8 x 5,600 = 91% of 49,152). Uneven fill is
//     what makes ranks of a step unequal, so this lifts balance at almost no
//     cost in padding (docs/buckets.md). Each sample belongs to the first
//     bucket whose bound is >= its length.
//  2. Batches: bucket b holds n_b samples whose longest is L_b; its batch size
//     cap is k_b = the most samples of length L_b the budget admits (padded
//     tokens k * L_b <= budget, or model cost k * SequenceCost({L_b}) <=
//     budget), so no batch can break the budget whatever its members. The
//     bucket is cut into m_b = ceil(n_b / k_b) batches of sizes differing by
//     at most one; these counts are fixed at creation, so every epoch has the
//     same number of batches and steps (what learning-rate schedules need).
//     Each epoch shuffles every bucket (util::Rng seeded by (seed, epoch,
//     bucket)) before cutting, so a batch's company changes every epoch.
//  3. Steps of G = ranks x accumulation batches. If G does not divide the
//     batch count M: pad-last (default) splits batches of the buckets with
//     the most batches until it does (every sample still appears exactly
//     once); drop-last drops the M mod G batches with the fewest real tokens
//     (ties by batch order), reporting their samples as dropped.
//  4. Arrangement: the kept batches, ordered by bucket (ascending lengths),
//     form S = M / G consecutive strata of S batches; step t takes the t-th
//     batch of every stratum (systematic sampling), so every step holds one
//     batch from each 1/G slice of the length-sorted data: the step's length
//     mix follows the dataset's up to one batch's granularity. The order of
//     steps within the epoch is then shuffled with (seed, epoch).
//  5. Ranks: in each step, the G batches go to R ranks, A each, by
//     longest-processing-time first under that cardinality (largest cost to
//     the least loaded rank that still has room; ties by index: AssignLptSlots
//     of pack/primitives/lpt.h).
// Complexity per epoch: O(n + M log G) plus O(n log k) for the diversity
// metrics; creation O(n log D + B * D log D).
// Guarantees: every sample in exactly one batch (or listed as dropped with
// drop-last); every batch within budget; identical plans for identical
// inputs, options, seed and epoch on every platform.
// References: systematic sampling (Cochran, "Sampling Techniques", ch. 8);
// LPT (Graham, "Bounds on multiprocessing timing anomalies", 1969);
// bucketing by length as in fairseq / tf.data bucket_by_sequence_length.
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
  std::vector<int64_t> bucket_batches_;             // m_b after pad-last splits
  int64_t num_ranks_ = 1, accumulation_ = 1, num_steps_ = 0, num_batches_ = 0;
  int64_t budget_tokens_ = 0;
  double largest_item_cost_ = 0;
  bool drop_last_ = false;
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
