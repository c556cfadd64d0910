// Large buffers that are filled once, right after allocation (a plan's
// arrays, a sort's scratch): reserved (from 512 KB on, rounded to whole
// 2 MB pages: huge_pages.h), then backed by transparent huge pages before
// the first write, so filling
// 30 MB faults a few dozen 2 MB pages instead of ~7,000 4 KB ones. That is
// most of what a first call in a fresh process pays over a warm one (when
// the allocator reuses freed memory, later calls fault nothing). A hint
// only: without Linux THP ("madvise" or "always" in
// /sys/kernel/mm/transparent_hugepage/enabled) it does nothing, and the
// contents are the same either way.
#ifndef FLOPSPACK_UTIL_LARGE_BUFFER_H_
#define FLOPSPACK_UTIL_LARGE_BUFFER_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "util/huge_pages.h"
#include "util/vector_pool.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace flopspack::util {

// Below this a buffer cannot hold an aligned 2 MB page.
inline constexpr size_t kLargeBufferBytes = size_t{2} << 20;

inline void AdviseHugePages(void* data, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes < kLargeBufferBytes) return;
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(kHuge - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

// v.resize(n) with value-initialised elements. New storage of
// kHugePageMinBytes or more is rounded to whole 2 MB pages and backed by
// them before it is written (huge_pages.h).
template <typename T>
void ResizeLarge(std::vector<T>& v, size_t n) {
  if (n > v.capacity()) {
    const size_t capacity = n <= v.max_size() ? HugePageCapacity(n * sizeof(T)) / sizeof(T) : n;
    v.reserve(capacity);
    BackWithHugePages(v.data(), v.capacity() * sizeof(T));
  }
  v.resize(n);
}

// A value-initialised vector of n, advised; its storage from the thread's
// vector pool when one is active (vector_pool.h).
template <typename T>
std::vector<T> LargeVector(size_t n) {
  std::vector<T> v;
  if (VectorPool* pool = current_vector_pool) v = pool->Take<T>(n);
  ResizeLarge(v, n);
  return v;
}

}  // namespace flopspack::util

#endif  // FLOPSPACK_UTIL_LARGE_BUFFER_H_
