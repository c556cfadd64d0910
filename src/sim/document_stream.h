// The documents a data pipeline feeds a training run: the dataset shuffled
// once per epoch, epoch after epoch, as one endless stream of lengths.
//
// What: epoch e is a Fisher–Yates shuffle (util::Rng seeded with
// DeriveSeed(seed, e)) of the previous epoch's order. Complexity: O(1) per
// document, O(n) per epoch. Guarantee: every document appears exactly once
// per epoch; the same seed gives the same stream on every platform.
// Memory: one copy of the lengths, whatever the number of steps.
#ifndef FLOPSPACK_SIM_DOCUMENT_STREAM_H_
#define FLOPSPACK_SIM_DOCUMENT_STREAM_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "util/random.h"

namespace flopspack::sim {

class DocumentStream {
 public:
  // lengths non-empty (the caller validates).
  DocumentStream(absl::Span<const int64_t> lengths, uint64_t seed)
      : order_(lengths.begin(), lengths.end()), seed_(seed) {}

  // The next document's length.
  int64_t Next() {
    if (position_ == order_.size() || epochs_ == 0) NewEpoch();
    ++drawn_;
    return order_[position_++];
  }

  uint64_t drawn() const { return drawn_; }
  uint64_t epochs() const { return epochs_; }

 private:
  void NewEpoch() {
    util::Rng rng(util::DeriveSeed(seed_, epochs_));
    rng.Shuffle(absl::MakeSpan(order_));
    position_ = 0;
    ++epochs_;
  }

  std::vector<int64_t> order_;
  uint64_t seed_;
  size_t position_ = 0;
  uint64_t epochs_ = 0;
  uint64_t drawn_ = 0;
};

}  // namespace flopspack::sim

#endif  // FLOPSPACK_SIM_DOCUMENT_STREAM_H_
