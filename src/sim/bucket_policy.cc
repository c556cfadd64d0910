#include "sim/bucket_policy.h"

#include <algorithm>

#include "absl/strings/str_format.h"

namespace flopspack::sim {

absl::StatusOr<std::unique_ptr<Policy>> BucketPolicy::Create(
    const StepShape& shape, uint64_t seed, absl::Span<const int64_t> lengths,
    std::shared_ptr<const cost::CostModel> model, const pack::ExtraCosts& extra) {
  pack::BucketSamplerOptions o;
  o.budget = pack::BucketBudget::kPaddedTokens;
  o.max_padded_tokens = shape.tokens_per_microbatch;
  o.num_ranks = static_cast<int64_t>(shape.num_ranks);
  o.accumulation_steps = static_cast<int64_t>(shape.microbatches_per_rank);
  o.seed = seed;
  std::vector<int64_t> clipped(lengths.begin(), lengths.end());
  for (int64_t& l : clipped) l = std::min(l, shape.tokens_per_microbatch);
  auto sampler = pack::BucketSampler::Create(o, std::move(model), clipped);
  if (!sampler.ok()) return sampler.status();
  return std::unique_ptr<Policy>(new BucketPolicy(shape, std::move(*sampler), extra));
}

absl::Status BucketPolicy::NextStep(DocumentStream&, StepBatch& batch) {
  absl::StatusOr<pack::Plan> plan = sampler_->Step(epoch_, step_);
  if (!plan.ok()) return plan.status();
  if (++step_ == static_cast<uint64_t>(sampler_->steps_per_epoch())) {
    step_ = 0;
    ++epoch_;
  }
  const uint64_t per_rank = shape_.microbatches_per_rank;
  const size_t groups = plan->group_count();
  if (groups != shape_.microbatches()) {
    return absl::InternalError(absl::StrFormat("the bucket sampler formed %u batches, expected %u",
                                               groups, shape_.microbatches()));
  }
  batch.padded = true;
  batch.order.assign(groups, 0);
  for (size_t g = 0; g < groups; ++g) {
    for (int64_t tokens : plan->group_tokens(g)) batch.pieces.push_back(tokens);
    if (!extra_.empty()) {
      const auto items = plan->group_items(g);
      const auto tokens = plan->group_tokens(g);
      for (size_t k = 0; k < items.size(); ++k)
        batch.extras.push_back(extra_.Of(items[k], tokens[k]));
    }
    batch.offsets.push_back(batch.pieces.size());
    drawn_ += plan->group_items(g).size();
    const uint64_t position = static_cast<uint64_t>(plan->group_rank(g)) * per_rank +
                              static_cast<uint64_t>(plan->group_slot(g)) % per_rank;
    batch.order[position] = static_cast<uint32_t>(g);
  }
  return absl::OkStatus();
}

}  // namespace flopspack::sim
