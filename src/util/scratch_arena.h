// Scratch arrays that live for one scope, carved one after another from
// blocks of one huge page each, so that a call's many mid-size tables
// share a few pages instead of each faulting in its own.
//
// What: ScratchArena::Array<T>(n, value) returns a span of n copies of
// value, carved from the arena's current block; a block is a vector of
// about 2 MB taken from the thread's vector pool (vector_pool.h: rounded
// to and backed by one 2 MB page when new, kept between a context's calls)
// or allocated when no pool is active; an array larger than a block gets
// a block of its own, and one below 64 KB that does not fit the current
// block a block of its own size (a small call's tables stay small).
// Arenas nest: an arena made while another is alive on the same thread
// carves after what the outer one holds, and gives that room back when it
// ends, so the scratch of functions called one after another reuses the
// same pages and a whole call takes only as many blocks as its deepest
// chain of live tables needs. The outermost arena gives the blocks back to
// their pool (or frees them) when it ends.
// Why: a first 8,192 x 4 step plan's per-rank and per-microbatch tables
// (64-512 KB each, a dozen of them) faulted ~500 4 KB pages, more of its
// first-call excess than all its large arrays' huge pages together
// (docs/algorithms.md, issue 19's tenth pass).
// Complexity: O(1) per array plus writing its n values; a new block only
// when the current one is full.
// Guarantee: arrays are 64-byte aligned, never overlap, hold exactly the
// value given (never a pool's leftovers; Room excepted) and stay valid
// (blocks never move) until the arena that carved them ends. Arenas on one
// thread must end in the reverse order of their making (locals do); not
// shared across threads. T must be trivially copyable and destructible.
// Reference: std::pmr::monotonic_buffer_resource (memory handed out in
// order and released all at once), with blocks from a pool a context keeps.
#ifndef FLOPSPACK_UTIL_SCRATCH_ARENA_H_
#define FLOPSPACK_UTIL_SCRATCH_ARENA_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "absl/types/span.h"
#include "util/huge_pages.h"
#include "util/vector_pool.h"

namespace flopspack::util {

class ScratchArena {
 public:
  // A block's bytes: one 2 MB page with the allocator's header.
  static constexpr size_t kBlockBytes = kHugePageBytes - kAllocatorHeaderBytes;
  static constexpr size_t kAlignment = 64;

  ScratchArena() : outer_(current_) {
    if (outer_ != nullptr) {
      blocks_ = outer_->blocks_;
      block_ = outer_->block_;
      used_ = outer_->used_;
    } else {
      blocks_ = &own_blocks_;
    }
    current_ = this;
  }
  ~ScratchArena() {
    current_ = outer_;
    if (outer_ != nullptr) return;  // the outer arena's blocks: it carves on from its own mark
    for (Block& b : own_blocks_) {
      if (b.pool != nullptr) b.pool->Give(b.words);
    }
  }
  ScratchArena(const ScratchArena&) = delete;
  ScratchArena& operator=(const ScratchArena&) = delete;

  // n copies of value, valid until this arena ends. Only the thread's
  // innermost arena carves (an outer one would carve over the inner one's
  // arrays): std::logic_error otherwise.
  template <typename T>
  absl::Span<T> Array(size_t n, const T& value = T()) {
    T* data = Storage<T>(n);
    std::uninitialized_fill_n(data, n, value);
    return absl::Span<T>(data, n);
  }

  // Room for n T whose contents are unspecified (earlier arrays' bytes):
  // for an array the caller writes before reading any element, or leaves
  // partly unused, so that nothing is written twice. Same rules as Array
  // otherwise.
  template <typename T>
  T* Room(size_t n) {
    T* data = Storage<T>(n);
    // Default-initialised: the objects exist, nothing is written.
    for (size_t i = 0; i < n; ++i) new (data + i) T;
    return data;
  }

  // Blocks this arena and the arenas around it hold (for tests).
  size_t blocks() const { return blocks_->size(); }

 private:
  struct Block {
    std::vector<UninitializedWord> words;  // its size: the high-water mark of what is carved
    VectorPool* pool;                      // where it goes back, or nullptr
  };

  // Room for n T (not constructed) after everything carved so far.
  template <typename T>
  T* Storage(size_t n) {
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
    static_assert(alignof(T) <= kAlignment);
    if (current_ != this) {
      throw std::logic_error("ScratchArena: carving from an arena an inner arena is nested in");
    }
    if (n > (SIZE_MAX - 2 * kAlignment) / sizeof(T)) throw std::bad_alloc();
    return static_cast<T*>(Carve(n * sizeof(T)));
  }

  // `bytes` of room, kAlignment-aligned, after everything carved so far.
  void* Carve(size_t bytes) {
    while (block_ < blocks_->size()) {
      std::vector<UninitializedWord>& words = (*blocks_)[block_].words;
      const uintptr_t base = reinterpret_cast<uintptr_t>(words.data());
      const size_t start = used_ + (-(base + used_) & (kAlignment - 1));
      if (start + bytes <= words.capacity() * sizeof(UninitializedWord)) {
        used_ = start + bytes;
        // The carved words become the vector's elements (not zeroed:
        // Array writes them), so nothing is written past its size; within
        // its capacity, nothing moves.
        const size_t end_words = (used_ + 7) / 8;
        if (end_words > words.size()) words.resize(end_words);
        return reinterpret_cast<void*>(base + start);
      }
      ++block_;  // a later block (given back by an inner arena) may hold it
      used_ = 0;
    }
    // A small request gets a block of its own size, as a vector's storage
    // would be: a whole huge page for a call's few bytes would be a 2 MB
    // allocation per call without a pool (and a huge page to make on a
    // small call's first run). From kPopulateMinBytes on, one huge page,
    // or the request's size when larger.
    const size_t need = bytes + kAlignment;
    const size_t block_bytes =
        need < kPopulateMinBytes ? need : (need > kBlockBytes ? need : kBlockBytes);
    const size_t words = (block_bytes + 7) / 8;
    VectorPool* pool = current_vector_pool;
    // Backed whole when new (PooledReserved: 2 MB pages, vector_pool.h): a
    // block serves other arrays on later calls (the pool hands its blocks
    // out in no fixed order), which must not fault in what this call left
    // unwritten.
    std::vector<UninitializedWord> storage = PooledReserved<UninitializedWord>(words);
    blocks_->push_back(Block{std::move(storage), pool});
    block_ = blocks_->size() - 1;
    used_ = 0;
    return Carve(bytes);
  }

  static inline thread_local ScratchArena* current_ = nullptr;

  ScratchArena* const outer_;
  std::vector<Block> own_blocks_;  // the outermost arena's
  std::vector<Block>* blocks_;     // the outermost arena's list
  size_t block_ = 0;               // the block carved from now
  size_t used_ = 0;                // bytes carved from it
};

}  // namespace flopspack::util

#endif  // FLOPSPACK_UTIL_SCRATCH_ARENA_H_
