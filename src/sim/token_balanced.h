// Token balancing: what a pipeline that balances tokens, not FLOPs, does.
// Each step takes whole documents from the stream until the step's token
// budget (ranks x microbatches x tokens_per_microbatch) is reached (a
// document longer than a microbatch is first cut into microbatch-sized
// pieces), then places them largest first, each into the microbatch holding
// the fewest tokens (ties by index) — longest-processing-time on tokens
// under the microbatch capacity. A piece that fits nowhere is deferred to
// the front of the next step. Rank r runs microbatches r*M .. r*M + M-1.
// With extra costs, a piece carries its document's in proportion to its
// tokens (pack::ExtraCosts::Of); placement stays by tokens.
//
// Complexity: O(n) radix sort plus O(n log(R M)) heap per step of n pieces
// (list scheduling of pack/primitives/lpt.h, the library's one LPT).
// Guarantee: every microbatch within capacity; token
// loads within one largest piece of each other; no document is cut except
// those longer than a microbatch; FLOPs are not balanced — a rank holding a
// long document is a straggler under attention's quadratic cost.
// Reference: Graham, "Bounds on multiprocessing timing anomalies", SIAM J.
// Appl. Math. 17(2), 1969 (LPT).
#ifndef FLOPSPACK_SIM_TOKEN_BALANCED_H_
#define FLOPSPACK_SIM_TOKEN_BALANCED_H_

#include <vector>

#include "sim/policy.h"

namespace flopspack::sim {

class TokenBalanced final : public Policy {
 public:
  explicit TokenBalanced(const StepShape& shape, const pack::ExtraCosts& extra = {})
      : shape_(shape), extra_(extra) {}
  absl::Status NextStep(DocumentStream& stream, StepBatch& batch) override;
  bool independent_ranks() const override { return false; }

 private:
  StepShape shape_;
  pack::ExtraCosts extra_;
  std::vector<int64_t> pending_;      // pieces deferred to the next step, in order
  std::vector<int64_t> pending_doc_;  // the dataset index of each
  // Scratch, reused across steps.
  std::vector<int64_t> items_, items_doc_;
  std::vector<double> costs_;
  std::vector<int64_t> load_;
};

}  // namespace flopspack::sim

#endif  // FLOPSPACK_SIM_TOKEN_BALANCED_H_
