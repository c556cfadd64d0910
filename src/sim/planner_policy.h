// The step planner as an emulated policy: each step's global batch is whole
// documents from the stream up to the step's token budget (ranks x
// microbatches x tokens_per_microbatch; the document that would overflow it
// opens the next step), planned by pack::PlanStep with one of its
// algorithms (docs/planner.md) — document-level FLOPs balancing (LPT plus
// refinement under the cap), concatenate-and-cut, token balancing, or
// pre-packed sequences — with documents over the cap split.
//
// Complexity: the planner's, O(n log n) per step of n documents plus its
// bounded refinement. Guarantee: every document of the stream planned once,
// in stream order of steps (a document longer than the whole budget is cut
// into budget-sized parts over consecutive steps); ranks are coordinated
// (not independent), except for kRandom.
// With extra costs the planner balances the full cost
// (pack::PlanStepWithExtraCosts): a step's document part carries its
// document's extra cost in proportion to its tokens, and so does every
// piece the planner cuts (pack::ExtraCosts::Of on the whole document).
#ifndef FLOPSPACK_SIM_PLANNER_POLICY_H_
#define FLOPSPACK_SIM_PLANNER_POLICY_H_

#include <vector>

#include "pack/planner/step_planner.h"
#include "sim/policy.h"

namespace flopspack::sim {

class PlannerPolicy final : public Policy {
 public:
  PlannerPolicy(const StepShape& shape, uint64_t seed, pack::StepAlgorithm algorithm,
                const cost::CostModel& model, const pack::ExtraCosts& extra = {});
  absl::Status NextStep(DocumentStream& stream, StepBatch& batch) override;
  bool independent_ranks() const override {
    return options_.algorithm == pack::StepAlgorithm::kRandom;
  }

 private:
  StepShape shape_;
  pack::StepOptions options_;
  const cost::CostModel& model_;
  pack::ExtraCosts extra_;
  uint64_t step_ = 0;
  int64_t pending_ = 0;      // the document (or its rest) that opens the next step
  int64_t pending_doc_ = 0;  // its index in the dataset
  // The step's document parts, the dataset index and extra cost of each.
  std::vector<int64_t> docs_, doc_index_;
  std::vector<double> doc_extra_;
};

}  // namespace flopspack::sim

#endif  // FLOPSPACK_SIM_PLANNER_POLICY_H_
