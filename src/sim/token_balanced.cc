#include "sim/token_balanced.h"

#include <algorithm>

#include "pack/primitives/lpt.h"

namespace flopspack::sim {

absl::Status TokenBalanced::NextStep(DocumentStream& stream, StepBatch& batch) {
  const uint64_t microbatches = shape_.microbatches();
  const int64_t cap = shape_.tokens_per_microbatch;
  const int64_t budget = static_cast<int64_t>(microbatches) * cap;
  batch.padded = false;

  // Gather: deferred pieces first, then whole documents until the budget.
  items_.swap(pending_);
  items_doc_.swap(pending_doc_);
  pending_.clear();
  pending_doc_.clear();
  int64_t total = 0;
  for (int64_t piece : items_) total += piece;
  while (total < budget) {
    const Document doc = stream.Next();
    // Cut documents longer than a microbatch into microbatch-sized pieces;
    // pieces beyond the budget wait for the next step.
    for (int64_t rest = doc.length; rest > 0;) {
      const int64_t piece = std::min(rest, cap);
      if (total + piece <= budget) {
        items_.push_back(piece);
        items_doc_.push_back(doc.index);
        total += piece;
      } else {
        pending_.push_back(piece);
        pending_doc_.push_back(doc.index);
      }
      rest -= piece;
    }
    if (!pending_.empty()) break;  // the budget is (nearly) full
  }

  // LPT on tokens (pack/primitives/lpt.h): largest first, ties by arrival,
  // each to the microbatch holding the fewest tokens that has room. That
  // microbatch has the most room, so a piece that does not fit there fits
  // nowhere and is deferred.
  costs_.assign(items_.begin(), items_.end());
  const std::vector<int32_t> order = pack::CostDescendingOrder(costs_);
  pack::GroupLimits limits;
  limits.max_tokens = cap;
  limits.tokens = items_;
  limits.allow_unplaced = true;
  absl::StatusOr<std::vector<int32_t>> placed =
      pack::ListSchedule(costs_, order, static_cast<int32_t>(microbatches), limits);
  if (!placed.ok()) return placed.status();
  load_.assign(microbatches, 0);
  std::vector<int64_t> deferred, deferred_doc;
  for (int32_t i : order) {
    if ((*placed)[i] >= 0) {
      ++load_[(*placed)[i]];
    } else {
      deferred.push_back(items_[i]);
      deferred_doc.push_back(items_doc_[i]);
    }
  }
  // Deferred pieces go before the ones cut off by the budget.
  pending_.insert(pending_.begin(), deferred.begin(), deferred.end());
  pending_doc_.insert(pending_doc_.begin(), deferred_doc.begin(), deferred_doc.end());

  // CSR by microbatch.
  batch.offsets.resize(microbatches + 1);
  batch.offsets[0] = 0;
  for (uint64_t m = 0; m < microbatches; ++m) {
    batch.offsets[m + 1] = batch.offsets[m] + static_cast<size_t>(load_[m]);
  }
  batch.pieces.resize(batch.offsets.back());
  if (!extra_.empty()) batch.extras.resize(batch.offsets.back());
  std::vector<size_t> fill(batch.offsets.begin(), batch.offsets.end() - 1);
  for (int32_t i : order) {
    if ((*placed)[i] < 0) continue;
    const size_t at = fill[(*placed)[i]]++;
    batch.pieces[at] = items_[i];
    if (!extra_.empty()) batch.extras[at] = extra_.Of(items_doc_[i], items_[i]);
  }
  return absl::OkStatus();
}

}  // namespace flopspack::sim
