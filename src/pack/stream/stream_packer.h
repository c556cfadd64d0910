// A bounded-memory streaming packer: documents pushed one at a time or in
// arrays, packed sequences emitted as soon as they are final.
//
// Algorithm (chunked best-fit decreasing with aging). Documents collect in a
// pending chunk of K = max(1, W/2) documents, W being the window. When the
// chunk is full it is sorted by length (descending, ties by arrival) and each
// piece goes best-fit into the open sequences (the fullest one with room;
// a new one if none has). Then every open sequence that was opened in an
// earlier chunk, or that no document seen so far could fit into, is final
// and emitted. A document therefore waits at most one chunk in the pending
// list and one more chunk in an open sequence: it is emitted within W pushes
// of its arrival, and at most W documents are ever held.
//
// Complexity: O(log K) per document for the sort plus O(log_64 C) for best
// fit (bins bucketed by remaining capacity in a bit tree); memory O(W) for
// the documents plus the index: a bit per token of capacity (2 MiB at
// 2^24) and bucket heads allocated in pages as remaining capacities occur.
// Guarantee: within a chunk this is BFD (11/9·OPT + 6/9 bins); across chunks
// the only loss is the slack of sequences closed by the age rule, so fill
// approaches offline BFD as W grows (measured in docs/streaming.md).
// Reference: D. S. Johnson, "Near-optimal bin packing algorithms", 1973 (BFD);
// the windowed form follows the lookahead packers of online bin packing
// (Grove, "Online bin packing with lookahead", SODA 1995).
//
// Determinism: the output depends only on the input order, the options and
// the seed. The seed shuffles the emission order of the sequences finalised
// at each chunk boundary (BFD would otherwise emit long-document sequences
// first), with util::Rng(DeriveSeed(seed, chunk index)).
#ifndef FLOPSPACK_PACK_STREAM_STREAM_PACKER_H_
#define FLOPSPACK_PACK_STREAM_STREAM_PACKER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "cost/cost_model.h"
#include "pack/primitives/bit_tree.h"
#include "pack/primitives/overflow.h"
#include "pack/primitives/plan.h"
#include "util/paged_array.h"

namespace flopspack::pack {

struct StreamOptions {
  int64_t capacity = 0;                  // tokens per sequence, in [1, kMaxStreamCapacity]
  uint64_t window = 0;                   // W >= 1 documents
  Overflow overflow = Overflow::kError;  // error, truncate or split, as Pack
  uint64_t seed = 0;
};

inline constexpr int64_t kMaxStreamCapacity = int64_t{1} << 24;
// The most pieces the pending chunk may hold: a push whose split documents
// would exceed it fails at once (OutOfRange, nothing pushed) instead of
// allocating gigabytes of pieces. 2^24 pieces are 256 MiB.
inline constexpr uint64_t kMaxStreamPendingPieces = uint64_t{1} << 24;

class StreamPacker {
 public:
  // Validates the options. model may be null (cost = tokens).
  static absl::StatusOr<std::unique_ptr<StreamPacker>> Create(
      const StreamOptions& options, std::shared_ptr<const cost::CostModel> model);

  // Pushes documents; their ids are consecutive from documents_pushed().
  // On error (a bad length, a document over the capacity under kError)
  // nothing of this call is pushed.
  absl::Status Push(absl::Span<const int64_t> lengths);

  // Packs everything held and finalises every open sequence.
  absl::Status Flush();

  // The sequences finalised since the last Take, as a plan (one group per
  // sequence, items = document ids, computed tokens = capacity, piece
  // offsets set: a split document's last piece may come in a later Take
  // than its first ones). Its
  // num_items counts the distinct documents in those sequences; split_items,
  // truncated_items and truncated_tokens count what the pushes since the
  // previous Take split or truncated.
  absl::StatusOr<Plan> Take();
  size_t ready_sequences() const { return ready_.size(); }

  uint64_t documents_pushed() const { return documents_pushed_; }
  // Document pieces pending or in open sequences (at most W documents).
  uint64_t pieces_held() const;
  uint64_t sequences_emitted() const { return sequences_emitted_; }
  int64_t tokens_emitted() const { return tokens_emitted_; }
  uint64_t split_documents() const { return split_documents_; }
  uint64_t truncated_documents() const { return truncated_documents_; }
  int64_t truncated_tokens() const { return truncated_tokens_; }
  const StreamOptions& options() const { return options_; }

  // The whole state as bytes (versioned, checksummed), and back. Restore
  // validates everything and rejects corrupted or truncated bytes.
  std::string Save() const;
  static absl::StatusOr<std::unique_ptr<StreamPacker>> Restore(
      absl::Span<const uint8_t> bytes, std::shared_ptr<const cost::CostModel> model);

 private:
  struct Piece {
    int64_t document;
    int64_t tokens;
    int64_t offset;  // where in the document the piece starts
  };
  struct Bin {
    int64_t remaining = 0;
    uint64_t birth_chunk = 0;
    std::vector<Piece> pieces;
    int32_t prev = -1, next = -1;  // links in the bucket of its remaining
  };

  StreamPacker(const StreamOptions& options, std::shared_ptr<const cost::CostModel> model);
  void ProcessChunk();
  void Place(const Piece& piece);
  int32_t NewBin();
  void Link(int32_t bin);
  void Unlink(int32_t bin);
  void FinaliseWhere(bool all);
  absl::Status Validate() const;

  StreamOptions options_;
  std::shared_ptr<const cost::CostModel> model_;
  uint64_t chunk_size_ = 1;
  uint64_t chunk_index_ = 0;
  uint64_t documents_pushed_ = 0;
  uint64_t pending_documents_ = 0;
  int64_t smallest_piece_ = 0;  // smallest piece seen so far (0 = none)
  uint64_t sequences_emitted_ = 0;
  int64_t tokens_emitted_ = 0;
  uint64_t split_documents_ = 0;
  uint64_t truncated_documents_ = 0;
  int64_t truncated_tokens_ = 0;
  // The counters at the previous Take, for its plan's metrics.
  uint64_t split_at_take_ = 0;
  uint64_t truncated_at_take_ = 0;
  int64_t truncated_tokens_at_take_ = 0;
  std::vector<Piece> pending_;
  std::vector<Bin> bins_;
  std::vector<int32_t> open_;       // open bin ids, in opening order
  std::vector<int32_t> free_bins_;  // reusable bin slots
  util::PagedArray<int32_t> head_;  // bucket heads by remaining capacity
  // Tokens accepted since creation (emitted + held): not saved, rebuilt by
  // Restore; keeps tokens_emitted_ from ever overflowing.
  int64_t tokens_accepted_ = 0;
  BitTree nonempty_;
  std::vector<std::vector<Piece>> ready_;
};

}  // namespace flopspack::pack

#endif  // FLOPSPACK_PACK_STREAM_STREAM_PACKER_H_
