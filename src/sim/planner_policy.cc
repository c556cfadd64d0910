#include "sim/planner_policy.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "util/random.h"

namespace flopspack::sim {

PlannerPolicy::PlannerPolicy(const StepShape& shape, uint64_t seed, pack::StepAlgorithm algorithm,
                             const cost::CostModel& model)
    : shape_(shape), model_(model) {
  options_.num_ranks = static_cast<int64_t>(shape.num_ranks);
  options_.microbatches_per_rank = static_cast<int64_t>(shape.microbatches_per_rank);
  // The shape's caps are of a CP group; the planner takes the per-GPU one
  // and the CP size (a multiple by construction, see RunOne).
  options_.max_tokens_per_microbatch =
      shape.max_tokens_per_microbatch / std::max<int64_t>(1, shape.context_parallel_size);
  options_.context_parallel_size =
      shape.context_parallel_size > 1 ? shape.context_parallel_size : 0;
  options_.context_parallel_layout = shape.context_parallel_layout;
  options_.algorithm = algorithm;
  options_.overflow = pack::Overflow::kSplit;
  options_.seed = seed;
  options_.sync = shape.sync;
  options_.pipeline_stages = shape.pipeline_stages;
  options_.pipeline_schedule = shape.pipeline_schedule;
}

absl::Status PlannerPolicy::NextStep(DocumentStream& stream, StepBatch& batch) {
  const int64_t budget = static_cast<int64_t>(shape_.microbatches()) * shape_.tokens_per_microbatch;
  docs_.clear();
  int64_t total = 0;
  for (;;) {
    const int64_t length = pending_ > 0 ? pending_ : stream.Next();
    pending_ = 0;
    if (total + length <= budget) {
      docs_.push_back(length);
      total += length;
      if (total == budget) break;
      continue;
    }
    if (docs_.empty()) {
      // Longer than the whole step: this step takes a budget's worth of it.
      docs_.push_back(budget);
      pending_ = length - budget;
    } else {
      pending_ = length;
    }
    break;
  }
  pack::StepOptions o = options_;
  o.seed = util::DeriveSeed(options_.seed, step_++);
  absl::StatusOr<pack::Plan> plan = pack::PlanStep(o, model_, docs_);
  if (!plan.ok()) return plan.status();
  if (plan->group_count() != shape_.microbatches() || !plan->deferred().empty()) {
    return absl::InternalError(absl::StrFormat(
        "the step planner formed %u microbatches with %u deferred documents, expected %u and 0",
        plan->group_count(), plan->deferred().size(), shape_.microbatches()));
  }
  // Group g is position g = rank * M + slot (pack::PlanStep's order).
  batch.padded = false;
  for (size_t g = 0; g < plan->group_count(); ++g) {
    for (int64_t tokens : plan->group_tokens(g)) batch.pieces.push_back(tokens);
    batch.offsets.push_back(batch.pieces.size());
  }
  return absl::OkStatus();
}

}  // namespace flopspack::sim
