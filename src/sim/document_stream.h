// The documents a data pipeline feeds a training run: the dataset shuffled
// once per epoch, epoch after epoch, as one endless stream of documents.
//
// What: epoch e is a Fisher–Yates shuffle (util::Rng seeded with
// DeriveSeed(seed, e)) of the previous epoch's order. The shuffle permutes
// document indices; a swap does not look at what it moves, so the order is
// the same whatever the documents carry (lengths, extra costs).
// Complexity: O(1) per document, O(n) per epoch. Guarantee: every document
// appears exactly once per epoch; the same seed gives the same stream on
// every platform. Memory: one index per document, whatever the number of
// steps; the lengths are the caller's and must outlive the stream.
#ifndef FLOPSPACK_SIM_DOCUMENT_STREAM_H_
#define FLOPSPACK_SIM_DOCUMENT_STREAM_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "util/random.h"

namespace flopspack::sim {

// One document of the stream: its index in the dataset and its length.
struct Document {
  int64_t index;
  int64_t length;
};

class DocumentStream {
 public:
  // lengths non-empty (the caller validates).
  DocumentStream(absl::Span<const int64_t> lengths, uint64_t seed)
      : lengths_(lengths), order_(lengths.size()), seed_(seed) {
    for (size_t i = 0; i < order_.size(); ++i) order_[i] = static_cast<int64_t>(i);
  }

  // The next document.
  Document Next() {
    if (position_ == order_.size() || epochs_ == 0) NewEpoch();
    ++drawn_;
    const int64_t index = order_[position_++];
    return {index, lengths_[static_cast<size_t>(index)]};
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

  absl::Span<const int64_t> lengths_;
  std::vector<int64_t> order_;
  uint64_t seed_;
  size_t position_ = 0;
  uint64_t epochs_ = 0;
  uint64_t drawn_ = 0;
};

}  // namespace flopspack::sim

#endif  // FLOPSPACK_SIM_DOCUMENT_STREAM_H_
