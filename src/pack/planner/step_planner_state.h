// A stateful step planner for a training loop: documents are pushed as they
// stream from the data pipeline, each Next() plans one step from the front
// of the queue, leftovers carry over, and very long outlier documents may
// wait a bounded number of steps so each step stays balanced.
//
// Queue discipline: first in, first out. Next() takes, in this order,
//   1. outliers that have waited max_defer_steps steps (due: always taken);
//   2. other waiting outliers, oldest first, while the step holds fewer than
//      max_outliers_per_step outliers (default num_ranks: at most one per
//      rank, the outlier-queue idea of WLB-LLM, Wang et al., OSDI 2025);
//   3. documents from the front of the queue while their tokens fit in
//      tokens_per_step; an outlier met on the way is taken under the same
//      limit or joins the outlier queue, and the first other document that
//      does not fit ends the step.
// Documents the plan cannot place go back to the front of the queue (an
// outlier keeps its waiting time). Item indices in the plans are push ids:
// the k-th document pushed since creation is item k.
//
// Extra costs (issue 16): a document may be pushed with its own extra cost
// (a vision encoder's work on its images, say), which it keeps while it
// waits. A step whose documents carry any is planned by
// PlanStepWithExtraCosts (documents pushed without one count 0), else by
// PlanStep: either way the plan PlanStepWithExtraCosts gives for the
// selected documents, the split rule of primitives/extra_costs.h included.
// Selection is by tokens, as before: extra costs change how a step is
// balanced, not which documents it takes.
//
// Bound: an outlier is planned at most max_defer_steps steps after the step
// that first reached it, provided the outliers due in one step fit in
// tokens_per_step (they always do unless outliers arrive faster than the
// steps can take them).
//
// Save() writes the whole state (options, counters, both queues with each
// document's extra cost) as little-endian bytes with a format version and
// an FNV-1a 64 checksum; Restore() rejects truncated, corrupted or foreign
// bytes with an error and continues with exactly the plans the saved
// planner would have produced. Version 2 (this library) stores the extra
// costs; version 1 states (libraries before extra costs) restore with
// every extra cost 0. The cost model is not saved: the caller passes it
// again.
//
// Complexity: Next() costs one PlanStep over the selected documents plus
// O(selected); Push() O(n). Not thread-safe: one thread at a time.
#ifndef FLOPSPACK_PACK_PLANNER_STEP_PLANNER_STATE_H_
#define FLOPSPACK_PACK_PLANNER_STEP_PLANNER_STATE_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "cost/cost_model.h"
#include "pack/planner/step_planner.h"
#include "pack/primitives/plan.h"

namespace flopspack::pack {

// The streaming options of the stateful planner (flopspack_step_planner_options).
struct StepPlannerOptions {
  // Tokens one step takes from the queue; 0 = num_ranks x M x cap (needs
  // M > 0). At most num_ranks x M x cap when M > 0.
  int64_t tokens_per_step = 0;
  // Documents at least this long are outliers; 0 = no outlier queue.
  int64_t outlier_min_tokens = 0;
  // Steps an outlier may wait; 0 = never held back.
  int64_t max_defer_steps = 2;
  // Outliers one step takes before holding the rest back; 0 = num_ranks.
  int64_t max_outliers_per_step = 0;
};

class StreamingStepPlanner {
 public:
  static absl::StatusOr<std::unique_ptr<StreamingStepPlanner>> Create(
      const StepOptions& step, const StepPlannerOptions& stream,
      std::shared_ptr<const cost::CostModel> model);

  // Appends documents, with their extra costs (empty = every one 0). All or
  // nothing: a bad length (or, unless the overflow policy is split, one over
  // the cap) or a bad extra cost (as PlanStepWithExtraCosts checks them:
  // CheckExtraCosts) rejects the whole call. Returns the id of the first
  // document pushed.
  absl::StatusOr<int64_t> Push(absl::Span<const int64_t> lengths,
                               absl::Span<const double> extra_costs = {});

  // Plans the next step from the queue (possibly an empty plan).
  absl::StatusOr<Plan> Next();

  std::string Save() const;
  static absl::StatusOr<std::unique_ptr<StreamingStepPlanner>> Restore(
      absl::string_view bytes, std::shared_ptr<const cost::CostModel> model);

  int64_t pending_documents() const {
    return static_cast<int64_t>(queue_.size() + outliers_.size());
  }
  int64_t pending_tokens() const { return pending_tokens_; }
  int64_t steps() const { return steps_; }
  int64_t next_id() const { return next_id_; }

 private:
  struct Doc {
    int64_t id;
    int64_t length;
    int64_t waited;  // steps an outlier has been held back
    double extra;    // its extra cost (0 = none)
  };

  StreamingStepPlanner(const StepOptions& step, const StepPlannerOptions& stream,
                       std::shared_ptr<const cost::CostModel> model);
  static absl::Status Validate(const StepOptions& step, const StepPlannerOptions& stream);
  bool IsOutlier(int64_t length) const {
    return stream_.outlier_min_tokens > 0 && stream_.max_defer_steps > 0 &&
           length >= stream_.outlier_min_tokens;
  }

  StepOptions step_;
  StepPlannerOptions stream_;
  std::shared_ptr<const cost::CostModel> model_;
  std::deque<Doc> queue_;     // FIFO of documents not yet reached
  std::deque<Doc> outliers_;  // outliers held back, oldest first
  int64_t next_id_ = 0;
  int64_t steps_ = 0;
  int64_t pending_tokens_ = 0;
};

}  // namespace flopspack::pack

#endif  // FLOPSPACK_PACK_PLANNER_STEP_PLANNER_STATE_H_
