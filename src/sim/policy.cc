#include "sim/policy.h"

#include "absl/strings/str_format.h"
#include "sim/bucket_policy.h"
#include "sim/planner_policy.h"
#include "sim/random_dealing.h"
#include "sim/token_balanced.h"

namespace flopspack::sim {

absl::StatusOr<std::unique_ptr<Policy>> MakePolicy(PolicyKind kind, const StepShape& shape,
                                                   uint64_t seed, absl::Span<const int64_t> lengths,
                                                   std::shared_ptr<const cost::CostModel> model,
                                                   const pack::ExtraCosts& extra) {
  switch (kind) {
    case PolicyKind::kRandom:
      return std::unique_ptr<Policy>(std::make_unique<RandomDealing>(shape, seed, extra));
    case PolicyKind::kTokenBalanced:
      return std::unique_ptr<Policy>(std::make_unique<TokenBalanced>(shape, extra));
    case PolicyKind::kBuckets:
      return BucketPolicy::Create(shape, seed, lengths, std::move(model), extra);
    case PolicyKind::kPlannerDocuments:
    case PolicyKind::kPlannerRandom:
    case PolicyKind::kPlannerTokens:
    case PolicyKind::kPlannerSequences: {
      if (model == nullptr)
        return absl::InvalidArgumentError("the step planner needs a cost model");
      static constexpr pack::StepAlgorithm kAlgorithms[] = {
          pack::StepAlgorithm::kDocuments, pack::StepAlgorithm::kRandom,
          pack::StepAlgorithm::kTokens, pack::StepAlgorithm::kSequences};
      const auto algorithm =
          kAlgorithms[static_cast<int>(kind) - static_cast<int>(PolicyKind::kPlannerDocuments)];
      return std::unique_ptr<Policy>(
          std::make_unique<PlannerPolicy>(shape, seed, algorithm, *model, extra));
    }
  }
  return absl::InvalidArgumentError(
      absl::StrFormat("policy = %d is not a PolicyKind value (0 .. 6)", static_cast<int>(kind)));
}

}  // namespace flopspack::sim
