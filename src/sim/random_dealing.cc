#include "sim/random_dealing.h"

#include <algorithm>

#include "pack/planner/planner_baselines.h"

namespace flopspack::sim {

absl::Status RandomDealing::NextStep(DocumentStream& stream, StepBatch& batch) {
  const uint64_t microbatches = shape_.microbatches();
  const int64_t cap = shape_.tokens_per_microbatch;
  const int64_t budget = static_cast<int64_t>(microbatches) * cap;
  batch.padded = false;
  // Exactly one step of tokens from the stream: the rest of the document the
  // previous step cut first, the last document cut at the budget.
  lengths_.clear();
  docs_.clear();
  int64_t total = 0;
  while (total < budget) {
    if (carry_ == 0) {
      const Document d = stream.Next();
      carry_ = d.length;
      carry_doc_ = d.index;
    }
    const int64_t take = std::min(carry_, budget - total);
    lengths_.push_back(take);
    docs_.push_back(carry_doc_);
    carry_ -= take;
    total += take;
  }
  // The step planner's concatenate-and-cut (pack/planner/planner_baselines.h);
  // the step holds exactly `microbatches` full sequences. Pieces are
  // labelled with their dataset index, for their share of its extra cost.
  const pack::Sequences sequences = pack::ConcatenateAndCut(lengths_, docs_, cap);
  batch.pieces.reserve(sequences.pieces.size());
  for (const pack::Piece& piece : sequences.pieces) batch.pieces.push_back(piece.tokens);
  if (!extra_.empty()) {
    batch.extras.reserve(sequences.pieces.size());
    for (const pack::Piece& piece : sequences.pieces) {
      batch.extras.push_back(extra_.Of(piece.doc, piece.tokens));
    }
  }
  for (size_t s = 0; s < sequences.count(); ++s) {
    batch.offsets.push_back(static_cast<size_t>(sequences.offsets[s + 1]));
  }
  batch.order.resize(microbatches);
  for (uint64_t m = 0; m < microbatches; ++m) batch.order[m] = static_cast<uint32_t>(m);
  rng_.Shuffle(absl::MakeSpan(batch.order));
  return absl::OkStatus();
}

}  // namespace flopspack::sim
