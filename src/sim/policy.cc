#include "sim/policy.h"

#include "absl/strings/str_format.h"
#include "sim/bucket_policy.h"
#include "sim/random_dealing.h"
#include "sim/token_balanced.h"

namespace flopspack::sim {

absl::StatusOr<std::unique_ptr<Policy>> MakePolicy(PolicyKind kind, const StepShape& shape,
                                                   uint64_t seed, absl::Span<const int64_t> lengths,
                                                   std::shared_ptr<const cost::CostModel> model) {
  switch (kind) {
    case PolicyKind::kRandom:
      return std::unique_ptr<Policy>(std::make_unique<RandomDealing>(shape, seed));
    case PolicyKind::kTokenBalanced:
      return std::unique_ptr<Policy>(std::make_unique<TokenBalanced>(shape));
    case PolicyKind::kBuckets:
      return BucketPolicy::Create(shape, seed, lengths, std::move(model));
  }
  return absl::InvalidArgumentError(absl::StrFormat(
      "policy = %d is not a flopspack_sim_policy value (RANDOM 0, TOKEN_BALANCED 1, BUCKETS 2)",
      static_cast<int>(kind)));
}

}  // namespace flopspack::sim
