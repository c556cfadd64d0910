#include "sim/token_balanced.h"

#include <algorithm>
#include <functional>

namespace flopspack::sim {

absl::Status TokenBalanced::NextStep(DocumentStream& stream, StepBatch& batch) {
  const uint64_t microbatches = shape_.microbatches();
  const int64_t cap = shape_.tokens_per_microbatch;
  const int64_t budget = static_cast<int64_t>(microbatches) * cap;
  batch.padded = false;

  // Gather: deferred pieces first, then whole documents until the budget.
  items_.swap(pending_);
  pending_.clear();
  int64_t total = 0;
  for (int64_t piece : items_) total += piece;
  while (total < budget) {
    const int64_t length = stream.Next();
    // Cut documents longer than a microbatch into microbatch-sized pieces;
    // pieces beyond the budget wait for the next step.
    for (int64_t rest = length; rest > 0;) {
      const int64_t piece = std::min(rest, cap);
      if (total + piece <= budget) {
        items_.push_back(piece);
        total += piece;
      } else {
        pending_.push_back(piece);
      }
      rest -= piece;
    }
    if (!pending_.empty()) break;  // the budget is (nearly) full
  }

  // Largest first, ties by arrival: a stable counting sort on length.
  bucket_.assign(static_cast<size_t>(cap) + 2, 0);
  for (int64_t piece : items_) ++bucket_[static_cast<size_t>(cap - piece)];
  size_t running = 0;
  for (size_t& b : bucket_) {
    const size_t here = b;
    b = running;
    running += here;
  }
  sorted_.resize(items_.size());
  for (int64_t piece : items_) sorted_[bucket_[static_cast<size_t>(cap - piece)]++] = piece;

  // LPT on tokens: the microbatch with the fewest tokens has the most room,
  // so a piece that does not fit there fits nowhere and is deferred.
  heap_.clear();
  for (uint32_t m = 0; m < microbatches; ++m) heap_.emplace_back(0, m);
  std::make_heap(heap_.begin(), heap_.end(), std::greater<>());
  bin_of_.resize(sorted_.size());
  load_.assign(microbatches, 0);
  std::vector<int64_t> deferred;
  for (size_t i = 0; i < sorted_.size(); ++i) {
    std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
    auto& [tokens, m] = heap_.back();
    if (tokens + sorted_[i] <= cap) {
      tokens += sorted_[i];
      bin_of_[i] = m;
      ++load_[m];
    } else {
      bin_of_[i] = UINT32_MAX;
      deferred.push_back(sorted_[i]);
    }
    std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
  }
  // Deferred pieces go before the ones cut off by the budget.
  pending_.insert(pending_.begin(), deferred.begin(), deferred.end());

  // CSR by microbatch.
  batch.offsets.resize(microbatches + 1);
  batch.offsets[0] = 0;
  for (uint64_t m = 0; m < microbatches; ++m) {
    batch.offsets[m + 1] = batch.offsets[m] + static_cast<size_t>(load_[m]);
  }
  batch.pieces.resize(batch.offsets.back());
  std::vector<size_t> fill(batch.offsets.begin(), batch.offsets.end() - 1);
  for (size_t i = 0; i < sorted_.size(); ++i) {
    if (bin_of_[i] != UINT32_MAX) batch.pieces[fill[bin_of_[i]]++] = sorted_[i];
  }
  return absl::OkStatus();
}

}  // namespace flopspack::sim
