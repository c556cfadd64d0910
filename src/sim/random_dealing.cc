#include "sim/random_dealing.h"

#include <algorithm>

namespace flopspack::sim {

absl::Status RandomDealing::NextStep(DocumentStream& stream, StepBatch& batch) {
  const uint64_t microbatches = shape_.microbatches();
  const int64_t cap = shape_.tokens_per_microbatch;
  batch.padded = false;
  batch.offsets.reserve(microbatches + 1);
  for (uint64_t m = 0; m < microbatches; ++m) {
    int64_t room = cap;
    while (room > 0) {
      if (carry_ == 0) carry_ = stream.Next();
      const int64_t piece = std::min(carry_, room);
      batch.pieces.push_back(piece);
      carry_ -= piece;
      room -= piece;
    }
    batch.offsets.push_back(batch.pieces.size());
  }
  batch.order.resize(microbatches);
  for (uint64_t m = 0; m < microbatches; ++m) batch.order[m] = static_cast<uint32_t>(m);
  rng_.Shuffle(absl::MakeSpan(batch.order));
  return absl::OkStatus();
}

}  // namespace flopspack::sim
