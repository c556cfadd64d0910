// A cost model backed by a caller's function (in the C API, a C callback with
// user data). Not additive: a document's cost is the function on the
// one-document sequence; as thread-safe as the function it wraps.
#ifndef FLOPSPACK_COST_CUSTOM_H_
#define FLOPSPACK_COST_CUSTOM_H_

#include <functional>
#include <memory>

#include "cost/cost_model.h"

namespace flopspack::cost {

class CustomModel final : public CostModel {
 public:
  // Returns the cost of a sequence, or an error status (e.g. Aborted when a
  // C callback failed). Results that are NaN, infinite or negative are
  // rejected by the model.
  using Function = std::function<absl::StatusOr<double>(absl::Span<const int64_t>)>;

  explicit CustomModel(Function fn) : fn_(std::move(fn)) {}

  absl::StatusOr<double> SequenceCost(absl::Span<const int64_t> lengths) const override;
  absl::StatusOr<double> DocumentCost(int64_t length) const override;
  bool IsAdditive() const override { return false; }

 private:
  Function fn_;
};

}  // namespace flopspack::cost

#endif  // FLOPSPACK_COST_CUSTOM_H_
