// The bucket sampler as an emulated policy: padded batches drawn from length
// buckets with optimal boundaries, arranged into steps by systematic
// sampling and spread over ranks by LPT on padded-batch cost (the library's
// pack::BucketSampler, docs/buckets.md), with a microbatch's padded tokens
// (batch size x longest sample) bounded by tokens_per_microbatch.
//
// The sampler shuffles the dataset itself, per epoch, so this policy does
// not read the simulator's document stream; steps run through the sampler's
// epochs in order. Samples longer than a microbatch are truncated to it (a
// padded pipeline's maximum sequence length). Each microbatch is padded:
// every sample its own sequence, padded to the longest of its batch.
// With extra costs, a sample carries its document's in proportion to the
// tokens kept (pack::ExtraCosts::Of, as flopspack_pack's truncation: the
// dropped tokens are never trained, nor is their share of, say, the
// images); the sampler forms and spreads its batches by the model's cost
// alone (it takes no extra costs), and padding adds no extra cost.
// Complexity: the sampler's, O(n + M log G) per epoch plus O(step) per step.
// Guarantee: every sample exactly once per epoch (pad-last), every batch
// within budget; ranks are coordinated (not independent).
#ifndef FLOPSPACK_SIM_BUCKET_POLICY_H_
#define FLOPSPACK_SIM_BUCKET_POLICY_H_

#include <memory>
#include <vector>

#include "cost/cost_model.h"
#include "pack/buckets/bucket_sampler.h"
#include "sim/policy.h"

namespace flopspack::sim {

class BucketPolicy final : public Policy {
 public:
  static absl::StatusOr<std::unique_ptr<Policy>> Create(
      const StepShape& shape, uint64_t seed, absl::Span<const int64_t> lengths,
      std::shared_ptr<const cost::CostModel> model, const pack::ExtraCosts& extra = {});
  absl::Status NextStep(DocumentStream& stream, StepBatch& batch) override;
  bool independent_ranks() const override { return false; }
  uint64_t documents_drawn(const DocumentStream&) const override { return drawn_; }
  uint64_t epochs(const DocumentStream&) const override { return epoch_ + (step_ > 0 ? 1 : 0); }

 private:
  BucketPolicy(const StepShape& shape, std::unique_ptr<pack::BucketSampler> sampler,
               const pack::ExtraCosts& extra)
      : shape_(shape), sampler_(std::move(sampler)), extra_(extra) {}

  StepShape shape_;
  std::unique_ptr<pack::BucketSampler> sampler_;
  pack::ExtraCosts extra_;  // over the unclipped lengths
  uint64_t epoch_ = 0;
  uint64_t step_ = 0;
  uint64_t drawn_ = 0;
};

}  // namespace flopspack::sim

#endif  // FLOPSPACK_SIM_BUCKET_POLICY_H_
