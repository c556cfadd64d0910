// Vectors kept between calls: a pool of std::vector buffers that a caller
// making the same call repeatedly owns (the C API's flopspack_step_context),
// so a call takes memory the previous call already faulted in instead of
// asking the allocator for fresh pages.
//
// What: while a UseVectorPool scope is active on a thread, PooledVector /
// LargeVector (large_buffer.h) take a vector from that pool (the one with
// the smallest capacity that holds the request, if it is at most about
// twice what the request needs, else a new one: from
// 512 KB on, rounded to whole 2 MB pages and backed by transparent huge
// pages before its first write, huge_pages.h, so that a first call faults
// a few 2 MB pages instead of thousands of 4 KB ones; from 64 KB, faulted
// in by one system call; room filled only in part, PooledRoom, is left to
// fault as it is written) and
// Recycle / GiveBackOnExit return it. With no pool active they are plain
// std::vector construction and destruction, so code written this way
// behaves exactly as before for every caller that does not opt in.
// Contents never depend on the pool: a taken vector is assigned its full
// contents (n copies of the value) before use.
// Complexity: Take is O(k) in the k vectors the pool holds of that type
// (k <= kMaxPerType); Give is O(1) amortised (O(k) when the pool is full).
// Guarantee: the pool holds at most kMaxPerType vectors per element type,
// and at most max_bytes bytes (a vector that would take it over drops the
// type's smaller vectors first, else is freed); Give never allocates once the pool's lists are
// reserved, so giving back in a destructor cannot throw. Thread-safe: Take and Give lock a mutex (a
// plan may be destroyed on another thread while its context plans the next). Reference: zstd's
// ZSTD_CCtx, a context that owns its workspace across compressions (lib/zstd.h, "Explicit
// context").
#ifndef FLOPSPACK_UTIL_VECTOR_POOL_H_
#define FLOPSPACK_UTIL_VECTOR_POOL_H_

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <tuple>
#include <utility>
#include <vector>

#include "util/huge_pages.h"

namespace flopspack::util {

// A 64-bit word whose default construction leaves it unwritten, so that a
// std::vector of them grows (resize) without zeroing what it adds: the
// storage of the scratch arena's blocks (scratch_arena.h), whose arrays are
// written whole when carved.
struct UninitializedWord {
  UninitializedWord() {}  // leaves bits unwritten, deliberately
  uint64_t bits;
};

class VectorPool {
 public:
  // More than the large buffers one step plan uses at once; beyond it the
  // smallest vector is dropped.
  static constexpr size_t kMaxPerType = 48;

  // max_bytes: the most storage the pool keeps (the C API's step contexts
  // keep everything; the per-thread context of flopspack_plan_step keeps a
  // bounded amount). huge_pages: whether new large vectors are rounded to
  // and backed by 2 MB pages (false: exactly the requested capacity, 4 KB
  // pages; the contents are the same either way).
  explicit VectorPool(size_t max_bytes = SIZE_MAX, bool huge_pages = true)
      : max_bytes_(max_bytes), huge_pages_(huge_pages) {
    std::apply([](auto&... list) { (list.reserve(kMaxPerType), ...); }, lists_);
  }
  VectorPool(const VectorPool&) = delete;
  VectorPool& operator=(const VectorPool&) = delete;

  // How a new vector's pages are prepared (a hint: contents never depend
  // on it). kFilled: the caller writes all n elements now, so the pages
  // are faulted in before (huge pages from kHugePageMinBytes, one
  // MADV_POPULATE_WRITE call from kPopulateMinBytes). kOnWrite: room the
  // caller fills from its start and only in part (an arena grown as it
  // goes), so only its first 2 MB page is made now and the rest faults in
  // as 2 MB pages as it is written (BackLeadingHugePage); backing the
  // whole reservation would make the first call zero memory it never
  // uses.
  enum class Fresh { kFilled, kOnWrite };

  // An empty vector with capacity >= n: the pool's smallest that holds n
  // when it has one, else a new one, which for n * sizeof(T) >=
  // kHugePageMinBytes is reserved to HugePageCapacity and (kFilled) backed
  // by huge pages, from kPopulateMinBytes (kFilled) is reserved to n and
  // faulted in, and otherwise has no storage yet (when the pool uses huge
  // pages; else a new vector has no storage yet).
  template <typename T>
  std::vector<T> Take(size_t n, Fresh fresh = Fresh::kFilled) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      std::vector<std::vector<T>>& list = List<T>();
      const size_t most = MostReusedCapacity(n, sizeof(T));
      size_t best = list.size();
      for (size_t i = 0; i < list.size(); ++i) {
        if (list[i].capacity() >= n && list[i].capacity() <= most &&
            (best == list.size() || list[i].capacity() < list[best].capacity())) {
          best = i;
        }
      }
      if (best != list.size()) {
        std::vector<T> out = std::move(list[best]);
        list[best] = std::move(list.back());
        list.pop_back();
        bytes_ -= out.capacity() * sizeof(T);
        out.clear();
        return out;
      }
    }
    // A new vector, allocated outside the lock.
    std::vector<T> out;
    if (!huge_pages_ || n > out.max_size()) return out;
    const size_t bytes = n * sizeof(T);
    if (bytes >= kHugePageMinBytes) {
      out.reserve(HugePageCapacity(bytes) / sizeof(T));
      if (fresh == Fresh::kFilled) {
        BackWithHugePages(out.data(), out.capacity() * sizeof(T));
      } else {
        BackLeadingHugePage(out.data(), out.capacity() * sizeof(T));
      }
    } else if (bytes >= kPopulateMinBytes && fresh == Fresh::kFilled) {
      out.reserve(n);
      PopulatePages(out.data(), bytes);
    }
    return out;
  }

  // The largest kept capacity (in elements of `size` bytes) a Take of n
  // reuses: twice what a new vector for n would get, rounded (at least
  // kPopulateMinBytes). A smaller request takes a new vector instead, so
  // that a 64 KB scratch array does not take the 2 MB block a later large
  // request of the same call would then have to allocate fresh (the step
  // planner's first call zeroed ~1.5 MB more for it); its warm calls take
  // the same blocks as before, each request finding the one it got then.
  static size_t MostReusedCapacity(size_t n, size_t size) {
    if (n > SIZE_MAX / size / 4) return SIZE_MAX;
    const size_t bytes = 2 * HugePageCapacity(n * size);
    return (bytes < kPopulateMinBytes ? kPopulateMinBytes : bytes) / size;
  }

  // Keeps v's storage for a later Take (v is left empty). Noexcept: the
  // list never grows past its reserved capacity.
  template <typename T>
  void Give(std::vector<T>& v) noexcept {
    if (v.capacity() == 0) return;
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::vector<T>>& list = List<T>();
    const size_t added = v.capacity() * sizeof(T);
    // Over the count or the byte budget: drop this type's smallest vectors
    // while they are smaller than v (the larger one serves more requests),
    // unless dropping all of those would not make room: then v is freed.
    size_t smaller_bytes = 0;
    bool any_smaller = false;
    for (const std::vector<T>& kept : list) {
      if (kept.capacity() < v.capacity()) {
        smaller_bytes += kept.capacity() * sizeof(T);
        any_smaller = true;
      }
    }
    if (added > max_bytes_ || bytes_ - smaller_bytes > max_bytes_ - added ||
        (list.size() == kMaxPerType && !any_smaller)) {
      std::vector<T>().swap(v);
      return;
    }
    while (list.size() == kMaxPerType || bytes_ > max_bytes_ - added) {
      size_t smallest = 0;
      for (size_t i = 1; i < list.size(); ++i) {
        if (list[i].capacity() < list[smallest].capacity()) smallest = i;
      }
      bytes_ -= list[smallest].capacity() * sizeof(T);
      list[smallest].swap(list.back());
      list.pop_back();
    }
    list.push_back(std::move(v));
    bytes_ += added;
    v = std::vector<T>();
  }

  // Bytes of storage the pool holds now.
  size_t bytes() const {
    std::lock_guard<std::mutex> lock(mu_);
    return bytes_;
  }

 private:
  template <typename T>
  std::vector<std::vector<T>>& List() {
    return std::get<std::vector<std::vector<T>>>(lists_);
  }

  mutable std::mutex mu_;
  const size_t max_bytes_;
  const bool huge_pages_;
  size_t bytes_ = 0;
  // One list per element type the planner's buffers use (int64_t, double,
  // int32_t, uint64_t, uint32_t; uint64_t is also size_t here) and the
  // scratch arena's blocks.
  std::tuple<std::vector<std::vector<int64_t>>, std::vector<std::vector<double>>,
             std::vector<std::vector<int32_t>>, std::vector<std::vector<uint64_t>>,
             std::vector<std::vector<uint32_t>>, std::vector<std::vector<UninitializedWord>>>
      lists_;
};

// The pool of the calling thread's active UseVectorPool scope, or nullptr.
inline thread_local VectorPool* current_vector_pool = nullptr;

// Makes `pool` (may be nullptr: none) the thread's pool for this scope.
class UseVectorPool {
 public:
  explicit UseVectorPool(VectorPool* pool) : previous_(current_vector_pool) {
    current_vector_pool = pool;
  }
  ~UseVectorPool() { current_vector_pool = previous_; }
  UseVectorPool(const UseVectorPool&) = delete;
  UseVectorPool& operator=(const UseVectorPool&) = delete;

 private:
  VectorPool* previous_;
};

// std::vector<T>(n, value), its storage from the thread's pool if any.
template <typename T>
std::vector<T> PooledVector(size_t n, const T& value = T()) {
  VectorPool* pool = current_vector_pool;
  if (pool == nullptr) return std::vector<T>(n, value);
  std::vector<T> v = pool->Take<T>(n);
  v.assign(n, value);
  return v;
}

// An empty vector with room for n (push_back without reallocating), its
// storage from the thread's pool if any.
template <typename T>
std::vector<T> PooledReserved(size_t n) {
  VectorPool* pool = current_vector_pool;
  std::vector<T> v = pool == nullptr ? std::vector<T>() : pool->Take<T>(n);
  v.reserve(n);
  return v;
}

// An empty vector with room for n whose fresh pages fault only as they
// are written (VectorPool::Fresh::kOnWrite): for room a call fills only in
// part. Its storage from the thread's pool if any.
template <typename T>
std::vector<T> PooledRoom(size_t n) {
  VectorPool* pool = current_vector_pool;
  std::vector<T> v =
      pool == nullptr ? std::vector<T>() : pool->Take<T>(n, VectorPool::Fresh::kOnWrite);
  v.reserve(n);
  return v;
}

// Gives v's storage to the thread's pool, if any (v is then empty);
// without a pool, leaves v alone.
template <typename T>
void Recycle(std::vector<T>& v) noexcept {
  if (VectorPool* pool = current_vector_pool) pool->Give(v);
}

// Recycles the named vectors when the scope ends (whatever is left in them:
// a vector moved out meanwhile gives nothing).
template <typename... Vectors>
class GiveBackOnExit {
 public:
  explicit GiveBackOnExit(Vectors&... vectors) : vectors_(vectors...) {}
  ~GiveBackOnExit() {
    std::apply([](auto&... v) { (Recycle(v), ...); }, vectors_);
  }
  GiveBackOnExit(const GiveBackOnExit&) = delete;
  GiveBackOnExit& operator=(const GiveBackOnExit&) = delete;

 private:
  std::tuple<Vectors&...> vectors_;
};
template <typename... Vectors>
GiveBackOnExit(Vectors&...) -> GiveBackOnExit<Vectors...>;

}  // namespace flopspack::util

#endif  // FLOPSPACK_UTIL_VECTOR_POOL_H_
