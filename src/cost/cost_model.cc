#include "cost/cost_model.h"

#include <algorithm>

namespace flopspack::cost {

absl::Status CostModel::DocumentCosts(absl::Span<const int64_t> lengths,
                                      absl::Span<double> out) const {
  for (size_t i = 0; i < lengths.size(); ++i) {
    absl::StatusOr<double> cost = DocumentCost(lengths[i]);
    if (!cost.ok()) return cost.status();
    out[i] = *cost;
  }
  return absl::OkStatus();
}

absl::StatusOr<double> CostModel::PaddedBatchCost(absl::Span<const int64_t> lengths) const {
  if (lengths.empty()) return 0.0;
  const int64_t longest = *std::max_element(lengths.begin(), lengths.end());
  absl::StatusOr<double> one = SequenceCost({&longest, 1});
  if (!one.ok()) return one.status();
  return static_cast<double>(lengths.size()) * *one;
}

absl::StatusOr<double> CostModel::DocumentCostAsTrained(int64_t length, int64_t capacity) const {
  if (capacity <= 0 || length <= capacity) return DocumentCost(length);
  const int64_t full = length / capacity, rest = length % capacity;
  absl::StatusOr<double> piece = DocumentCost(capacity);
  if (!piece.ok()) return piece.status();
  double cost = static_cast<double>(full) * *piece;
  if (rest > 0) {
    absl::StatusOr<double> last = DocumentCost(rest);
    if (!last.ok()) return last.status();
    cost += *last;
  }
  return cost;
}

absl::StatusOr<double> CostModel::DocumentChunkCost(int64_t /*length*/, int64_t begin,
                                                    int64_t end) const {
  if (begin >= end) return 0.0;
  absl::StatusOr<double> upto_end = DocumentCost(end);
  if (!upto_end.ok()) return upto_end.status();
  if (begin == 0) return *upto_end;
  absl::StatusOr<double> upto_begin = DocumentCost(begin);
  if (!upto_begin.ok()) return upto_begin.status();
  // A custom model need not grow with the length: never a negative chunk.
  return std::max(0.0, *upto_end - *upto_begin);
}

}  // namespace flopspack::cost
