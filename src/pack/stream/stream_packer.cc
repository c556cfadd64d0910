#include "pack/stream/stream_packer.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_format.h"
#include "pack/primitives/saved_state.h"
#include "util/checked.h"
#include "util/random.h"

namespace flopspack::pack {
namespace {

// Version 2 stores each piece's offset in its document (version 1 did not,
// and a lone remainder piece of version 1 cannot be placed in its document).
constexpr StateFormat kStreamPackerFormat = {
    {'F', 'L', 'P', 'K', 'S', 'T', 'R', 'M'}, 2, "stream packer"};

}  // namespace

absl::StatusOr<std::unique_ptr<StreamPacker>> StreamPacker::Create(
    const StreamOptions& options, std::shared_ptr<const cost::CostModel> model) {
  if (options.capacity <= 0 || options.capacity > kMaxStreamCapacity) {
    return absl::InvalidArgumentError(
        absl::StrFormat("capacity = %d must be in [1, %d]", options.capacity, kMaxStreamCapacity));
  }
  if (options.window == 0) {
    return absl::InvalidArgumentError("window = 0: the window must hold at least one document");
  }
  if (options.window > (uint64_t{1} << 40)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("window = %u is beyond the supported 2^40 documents", options.window));
  }
  // Enum values are the C layer's to check (src/capi); what is left is
  // the policy the stream packer does not offer.
  if (options.overflow == Overflow::kDefer) {
    return absl::InvalidArgumentError(
        "overflow = defer: the stream packer takes error, truncate or split");
  }
  return std::unique_ptr<StreamPacker>(new StreamPacker(options, std::move(model)));
}

StreamPacker::StreamPacker(const StreamOptions& options,
                           std::shared_ptr<const cost::CostModel> model)
    : options_(options),
      model_(std::move(model)),
      chunk_size_(std::max<uint64_t>(1, options.window / 2)),
      head_(static_cast<size_t>(options.capacity) + 1, -1),
      nonempty_(static_cast<size_t>(options.capacity) + 1) {}

absl::Status StreamPacker::Push(absl::Span<const int64_t> lengths) {
  // Validate the whole call first so that a failure pushes nothing: the
  // lengths, the counters it would grow (checked, never wrapped), and the
  // pieces the pending chunk would hold (simulating the chunk boundaries
  // the call crosses, where the pending chunk empties).
  const int64_t capacity = options_.capacity;
  int64_t truncated = truncated_tokens_, accepted = tokens_accepted_;
  uint64_t pending_pieces = pending_.size(), pending_documents = pending_documents_;
  for (size_t i = 0; i < lengths.size(); ++i) {
    const int64_t length = lengths[i];
    if (length <= 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("lengths[%u] = %d: every length must be positive", i, length));
    }
    int64_t kept = length;
    uint64_t pieces = 1;
    if (length > capacity) {
      if (options_.overflow == Overflow::kError) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "lengths[%u] = %d exceeds the capacity %d (overflow policy: error; choose truncate "
            "or split to accept it)",
            i, length, capacity));
      }
      if (options_.overflow == Overflow::kTruncate) {
        kept = capacity;
        if (!util::AddInt64(truncated, length - capacity, &truncated)) {
          return absl::OutOfRangeError(absl::StrFormat(
              "lengths[%u] = %d: the truncated-token count would overflow int64", i, length));
        }
      } else {
        pieces = static_cast<uint64_t>(util::CeilDivInt64(length, capacity));
      }
    }
    if (!util::AddInt64(accepted, kept, &accepted)) {
      return absl::OutOfRangeError(absl::StrFormat(
          "lengths[%u] = %d: the tokens pushed since creation would overflow int64", i, length));
    }
    if (pieces > kMaxStreamPendingPieces - pending_pieces) {
      return absl::OutOfRangeError(absl::StrFormat(
          "lengths[%u] = %d: split at capacity %d it makes %u pieces, and the pending chunk "
          "holds at most %u (use a larger capacity, truncate, or cut the document upstream)",
          i, length, capacity, pieces, kMaxStreamPendingPieces));
    }
    pending_pieces += pieces;
    if (++pending_documents >= chunk_size_) pending_pieces = pending_documents = 0;
  }
  tokens_accepted_ = accepted;
  for (int64_t length : lengths) {
    const int64_t document = static_cast<int64_t>(documents_pushed_++);
    const size_t first_piece = pending_.size();
    if (length <= capacity) {
      pending_.push_back({document, length, 0});
    } else if (options_.overflow == Overflow::kTruncate) {
      pending_.push_back({document, capacity, 0});
      ++truncated_documents_;
      truncated_tokens_ += length - capacity;
    } else {  // split into capacity-sized pieces and the remainder
      ++split_documents_;
      int64_t left = length;
      for (; left > capacity; left -= capacity) {
        pending_.push_back({document, capacity, length - left});
      }
      pending_.push_back({document, left, length - left});
    }
    for (size_t i = first_piece; i < pending_.size(); ++i) {
      if (smallest_piece_ == 0 || pending_[i].tokens < smallest_piece_) {
        smallest_piece_ = pending_[i].tokens;
      }
    }
    if (++pending_documents_ >= chunk_size_) ProcessChunk();
  }
  return absl::OkStatus();
}

absl::Status StreamPacker::Flush() {
  if (!pending_.empty()) ProcessChunk();
  FinaliseWhere(/*all=*/true);
  return absl::OkStatus();
}

int32_t StreamPacker::NewBin() {
  int32_t id;
  if (!free_bins_.empty()) {
    id = free_bins_.back();
    free_bins_.pop_back();
  } else {
    id = static_cast<int32_t>(bins_.size());
    bins_.emplace_back();
  }
  Bin& bin = bins_[id];
  bin.remaining = options_.capacity;
  bin.birth_chunk = chunk_index_;
  bin.pieces.clear();
  bin.prev = bin.next = -1;
  open_.push_back(id);
  return id;
}

void StreamPacker::Link(int32_t id) {
  Bin& bin = bins_[id];
  const size_t r = static_cast<size_t>(bin.remaining);
  int32_t& head = head_.at(r);
  bin.prev = -1;
  bin.next = head;
  if (head >= 0) {
    bins_[head].prev = id;
  } else {
    nonempty_.Insert(r);
  }
  head = id;
}

void StreamPacker::Unlink(int32_t id) {
  Bin& bin = bins_[id];
  const size_t r = static_cast<size_t>(bin.remaining);
  if (bin.prev >= 0) {
    bins_[bin.prev].next = bin.next;
  } else {
    head_.at(r) = bin.next;
    if (bin.next < 0) nonempty_.Erase(r);
  }
  if (bin.next >= 0) bins_[bin.next].prev = bin.prev;
  bin.prev = bin.next = -1;
}

void StreamPacker::Place(const Piece& piece) {
  const int64_t r = nonempty_.NextAtLeast(static_cast<size_t>(piece.tokens));
  int32_t id;
  if (r < 0) {
    id = NewBin();
  } else {
    id = head_.get(static_cast<size_t>(r));  // the most recently linked fullest bin with room
    Unlink(id);
  }
  Bin& bin = bins_[id];
  bin.pieces.push_back(piece);
  bin.remaining -= piece.tokens;
  if (bin.remaining > 0) Link(id);
}

void StreamPacker::ProcessChunk() {
  std::sort(pending_.begin(), pending_.end(), [](const Piece& a, const Piece& b) {
    if (a.tokens != b.tokens) return a.tokens > b.tokens;
    return a.document != b.document ? a.document < b.document : a.offset < b.offset;
  });
  for (const Piece& piece : pending_) Place(piece);
  pending_.clear();
  pending_documents_ = 0;
  FinaliseWhere(/*all=*/false);
}

void StreamPacker::FinaliseWhere(bool all) {
  std::vector<std::vector<Piece>> finished;
  std::vector<int32_t> still_open;
  still_open.reserve(open_.size());
  for (int32_t id : open_) {
    Bin& bin = bins_[id];
    const bool final = all || bin.birth_chunk < chunk_index_ || bin.remaining < smallest_piece_;
    if (!final) {
      still_open.push_back(id);
      continue;
    }
    if (bin.remaining > 0) Unlink(id);
    finished.push_back(std::move(bin.pieces));
    bin.pieces.clear();
    free_bins_.push_back(id);
  }
  open_.swap(still_open);
  util::Rng rng(util::DeriveSeed(options_.seed, chunk_index_));
  rng.Shuffle(absl::MakeSpan(finished));
  for (std::vector<Piece>& sequence : finished) {
    for (const Piece& piece : sequence) tokens_emitted_ += piece.tokens;
    ready_.push_back(std::move(sequence));
  }
  sequences_emitted_ += finished.size();
  ++chunk_index_;
}

uint64_t StreamPacker::pieces_held() const {
  uint64_t held = pending_.size();
  for (int32_t id : open_) held += bins_[id].pieces.size();
  return held;
}

absl::StatusOr<Plan> StreamPacker::Take() {
  Plan plan;
  std::vector<int64_t> items, tokens, piece_offsets;
  int64_t longest_piece = 0;
  uint64_t pieces = 0;
  for (const std::vector<Piece>& sequence : ready_) {
    items.clear();
    tokens.clear();
    for (const Piece& piece : sequence) {
      items.push_back(piece.document);
      tokens.push_back(piece.tokens);
      piece_offsets.push_back(piece.offset);
      longest_piece = std::max(longest_piece, piece.tokens);
    }
    double cost = 0;
    if (model_ == nullptr) {
      for (int64_t t : tokens) cost += static_cast<double>(t);
    } else {
      absl::StatusOr<double> sequence_cost = model_->SequenceCost(tokens);
      if (!sequence_cost.ok()) return sequence_cost.status();
      cost = *sequence_cost;
    }
    pieces += sequence.size();
    plan.AddGroup(items, tokens, options_.capacity, cost);
  }
  plan.SetPieceOffsets(std::move(piece_offsets));
  // The costliest piece is the longest one (as in Pack: every built-in model
  // grows with length), so one model call bounds the plan from below.
  double largest_piece_cost = static_cast<double>(longest_piece);
  if (model_ != nullptr && longest_piece > 0) {
    absl::StatusOr<double> piece_cost = model_->DocumentCost(longest_piece);
    if (!piece_cost.ok()) return piece_cost.status();
    largest_piece_cost = *piece_cost;
  }
  // Pieces of one document are consecutive within a sequence only by
  // chance, so count distinct documents explicitly.
  std::vector<int64_t> documents;
  documents.reserve(pieces);
  for (const std::vector<Piece>& sequence : ready_) {
    for (const Piece& piece : sequence) documents.push_back(piece.document);
  }
  std::sort(documents.begin(), documents.end());
  const uint64_t distinct =
      static_cast<uint64_t>(std::unique(documents.begin(), documents.end()) - documents.begin());
  if (absl::Status s = CheckGroupCostSum(plan, "sequence cost"); !s.ok()) return s;
  ComputeGroupMetrics(plan, distinct, largest_piece_cost, options_.capacity);
  PlanMetrics& m = plan.metrics();
  m.split_items = split_documents_ - split_at_take_;
  m.truncated_items = truncated_documents_ - truncated_at_take_;
  m.truncated_tokens = truncated_tokens_ - truncated_tokens_at_take_;
  split_at_take_ = split_documents_;
  truncated_at_take_ = truncated_documents_;
  truncated_tokens_at_take_ = truncated_tokens_;
  ready_.clear();
  return plan;
}

std::string StreamPacker::Save() const {
  StateWriter w(kStreamPackerFormat);
  w.I64(options_.capacity);
  w.U64(options_.window);
  w.U64(static_cast<uint64_t>(options_.overflow));
  w.U64(options_.seed);
  w.U64(chunk_index_);
  w.U64(documents_pushed_);
  w.U64(pending_documents_);
  w.I64(smallest_piece_);
  w.U64(sequences_emitted_);
  w.I64(tokens_emitted_);
  w.U64(split_documents_);
  w.U64(truncated_documents_);
  w.I64(truncated_tokens_);
  w.U64(split_at_take_);
  w.U64(truncated_at_take_);
  w.I64(truncated_tokens_at_take_);
  auto pieces = [&w](const std::vector<Piece>& list) {
    w.U64(list.size());
    for (const Piece& p : list) {
      w.I64(p.document);
      w.I64(p.tokens);
      w.I64(p.offset);
    }
  };
  pieces(pending_);
  // Open bins in opening order, each with its depth in its bucket's stack so
  // that Restore rebuilds the stacks exactly (best fit's tie-breaking).
  w.U64(open_.size());
  for (int32_t id : open_) {
    const Bin& bin = bins_[id];
    uint64_t depth = 0;
    if (bin.remaining > 0) {
      for (int32_t at = head_.get(static_cast<size_t>(bin.remaining)); at != id;
           at = bins_[at].next) {
        ++depth;
      }
    }
    w.U64(bin.birth_chunk);
    w.U64(depth);
    pieces(bin.pieces);
  }
  w.U64(ready_.size());
  for (const std::vector<Piece>& sequence : ready_) pieces(sequence);
  return std::move(w).Finish();
}

absl::StatusOr<std::unique_ptr<StreamPacker>> StreamPacker::Restore(
    absl::Span<const uint8_t> bytes, std::shared_ptr<const cost::CostModel> model) {
  absl::StatusOr<StateReader> reader = StateReader::Open(
      absl::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
      kStreamPackerFormat);
  if (!reader.ok()) return reader.status();
  StateReader& r = *reader;
  auto Corrupt = [&r](absl::string_view what) { return r.Corrupt(what); };
  uint64_t overflow = 0;
  StreamOptions options;
  if (!r.I64(&options.capacity) || !r.U64(&options.window) || !r.U64(&overflow) ||
      !r.U64(&options.seed)) {
    return Corrupt("options");
  }
  if (overflow > 2) return Corrupt("overflow policy");
  options.overflow = static_cast<Overflow>(overflow);
  absl::StatusOr<std::unique_ptr<StreamPacker>> packer = Create(options, std::move(model));
  if (!packer.ok()) return Corrupt("options out of range");
  StreamPacker& p = **packer;
  if (!r.U64(&p.chunk_index_) || !r.U64(&p.documents_pushed_) || !r.U64(&p.pending_documents_) ||
      !r.I64(&p.smallest_piece_) || !r.U64(&p.sequences_emitted_) || !r.I64(&p.tokens_emitted_) ||
      !r.U64(&p.split_documents_) || !r.U64(&p.truncated_documents_) ||
      !r.I64(&p.truncated_tokens_) || !r.U64(&p.split_at_take_) || !r.U64(&p.truncated_at_take_) ||
      !r.I64(&p.truncated_tokens_at_take_)) {
    return Corrupt("counters");
  }
  auto read_pieces = [&r](std::vector<Piece>* list) {
    uint64_t n = 0;
    if (!r.Count(24, &n)) return false;
    list->resize(n);
    for (Piece& piece : *list) {
      if (!r.I64(&piece.document) || !r.I64(&piece.tokens) || !r.I64(&piece.offset)) {
        return false;
      }
    }
    return true;
  };
  if (!read_pieces(&p.pending_)) return Corrupt("pending documents");
  uint64_t open_count = 0;
  if (!r.Count(24, &open_count)) return Corrupt("open sequences");
  std::vector<std::pair<uint64_t, int32_t>> depth_of_bin;
  for (uint64_t i = 0; i < open_count; ++i) {
    const int32_t id = p.NewBin();
    Bin& bin = p.bins_[id];
    uint64_t depth = 0;
    if (!r.U64(&bin.birth_chunk) || !r.U64(&depth) || !read_pieces(&bin.pieces)) {
      return Corrupt("open sequence");
    }
    // Range-check each piece before summing: crafted tokens must not
    // overflow the sum.
    int64_t used = 0;
    for (const Piece& piece : bin.pieces) {
      if (piece.tokens <= 0 || piece.tokens > p.options_.capacity ||
          !util::AddInt64(used, piece.tokens, &used)) {
        return Corrupt("open sequence tokens");
      }
    }
    if (bin.pieces.empty() || used > p.options_.capacity) return Corrupt("open sequence tokens");
    bin.remaining = p.options_.capacity - used;
    depth_of_bin.push_back({depth, id});
  }
  uint64_t ready_count = 0;
  if (!r.Count(8, &ready_count)) return Corrupt("ready sequences");
  p.ready_.resize(ready_count);
  for (std::vector<Piece>& sequence : p.ready_) {
    if (!read_pieces(&sequence)) return Corrupt("ready sequence");
  }
  if (r.remaining() != 0) return Corrupt("trailing bytes");
  // Rebuild each bucket's stack: deepest first, so the head ends on top.
  std::stable_sort(depth_of_bin.begin(), depth_of_bin.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (const auto& [depth, id] : depth_of_bin) {
    if (p.bins_[id].remaining > 0) p.Link(id);
  }
  absl::Status valid = p.Validate();
  if (!valid.ok()) return valid;
  // Tokens accepted so far: emitted plus held (pieces are in range now).
  int64_t accepted = p.tokens_emitted_;
  bool fits = true;
  for (const Piece& piece : p.pending_)
    fits = fits && util::AddInt64(accepted, piece.tokens, &accepted);
  for (int32_t id : p.open_) {
    for (const Piece& piece : p.bins_[id].pieces) {
      fits = fits && util::AddInt64(accepted, piece.tokens, &accepted);
    }
  }
  if (!fits) return Corrupt("token counters overflow int64");
  p.tokens_accepted_ = accepted;
  return packer;
}

absl::Status StreamPacker::Validate() const {
  const int64_t capacity = options_.capacity;
  auto check = [&](const std::vector<Piece>& list, bool nonempty) {
    if (nonempty && list.empty()) return false;
    for (const Piece& piece : list) {
      // A piece ends inside an int64 document: offset + tokens fits.
      if (piece.tokens <= 0 || piece.tokens > capacity || piece.document < 0 ||
          static_cast<uint64_t>(piece.document) >= documents_pushed_ || piece.offset < 0 ||
          piece.offset > INT64_MAX - piece.tokens) {
        return false;
      }
    }
    return true;
  };
  if (!check(pending_, false))
    return CorruptState(kStreamPackerFormat, "pending piece out of range");
  if (pending_documents_ >= chunk_size_ || pending_documents_ > pending_.size()) {
    return CorruptState(kStreamPackerFormat, "pending count");
  }
  for (int32_t id : open_) {
    if (!check(bins_[id].pieces, true) || bins_[id].birth_chunk > chunk_index_) {
      return CorruptState(kStreamPackerFormat, "open sequence out of range");
    }
  }
  // Pieces are range-checked before any sum, and sums are checked: a
  // crafted state with a valid checksum must not overflow them.
  for (const std::vector<Piece>& sequence : ready_) {
    if (!check(sequence, true))
      return CorruptState(kStreamPackerFormat, "ready sequence out of range");
    int64_t used = 0;
    for (const Piece& piece : sequence) {
      if (!util::AddInt64(used, piece.tokens, &used)) break;
    }
    if (used > capacity) return CorruptState(kStreamPackerFormat, "ready sequence out of range");
  }
  if (smallest_piece_ < 0 || smallest_piece_ > capacity || tokens_emitted_ < 0 ||
      truncated_tokens_ < 0 || split_at_take_ > split_documents_ ||
      truncated_at_take_ > truncated_documents_ || truncated_tokens_at_take_ < 0 ||
      truncated_tokens_at_take_ > truncated_tokens_) {
    return CorruptState(kStreamPackerFormat, "counters out of range");
  }
  return absl::OkStatus();
}

}  // namespace flopspack::pack
