#include "sim/planner_policy.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "util/random.h"

namespace flopspack::sim {

PlannerPolicy::PlannerPolicy(const StepShape& shape, uint64_t seed, pack::StepAlgorithm algorithm,
                             const cost::CostModel& model, const pack::ExtraCosts& extra)
    : shape_(shape), model_(model), extra_(extra) {
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
  doc_index_.clear();
  int64_t total = 0;
  for (;;) {
    Document doc{pending_doc_, pending_};
    if (pending_ == 0) doc = stream.Next();
    pending_ = 0;
    pending_doc_ = doc.index;
    if (total + doc.length <= budget) {
      docs_.push_back(doc.length);
      doc_index_.push_back(doc.index);
      total += doc.length;
      if (total == budget) break;
      continue;
    }
    if (docs_.empty()) {
      // Longer than the whole step: this step takes a budget's worth of it.
      docs_.push_back(budget);
      doc_index_.push_back(doc.index);
      pending_ = doc.length - budget;
    } else {
      pending_ = doc.length;
    }
    break;
  }
  pack::StepOptions o = options_;
  o.seed = util::DeriveSeed(options_.seed, step_++);
  if (!extra_.empty()) {
    doc_extra_.resize(docs_.size());
    for (size_t i = 0; i < docs_.size(); ++i) doc_extra_[i] = extra_.Of(doc_index_[i], docs_[i]);
  }
  absl::StatusOr<pack::Plan> plan =
      extra_.empty() ? pack::PlanStep(o, model_, docs_)
                     : pack::PlanStepWithExtraCosts(o, model_, docs_, doc_extra_);
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
    if (!extra_.empty()) {
      // Shares of the whole document's extra cost (one rounding, whatever
      // step part the piece came from).
      const auto items = plan->group_items(g);
      const auto tokens = plan->group_tokens(g);
      for (size_t k = 0; k < items.size(); ++k) {
        batch.extras.push_back(extra_.Of(doc_index_[static_cast<size_t>(items[k])], tokens[k]));
      }
    }
    batch.offsets.push_back(batch.pieces.size());
  }
  return absl::OkStatus();
}

}  // namespace flopspack::sim
