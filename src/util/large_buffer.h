// Large buffers that are filled once, right after allocation (a plan's
// arrays, a sort's scratch): reserved, then advised to the kernel as
// transparent-huge-page candidates before the first write (a step
// context's new vectors are also rounded and collapsed: huge_pages.h,
// vector_pool.h), so filling
// 30 MB faults a few dozen 2 MB pages instead of ~7,000 4 KB ones. That is
// most of what a first call in a fresh process pays over a warm one (when
// the allocator reuses freed memory, later calls fault nothing). A hint
// only: without Linux THP ("madvise" or "always" in
// /sys/kernel/mm/transparent_hugepage/enabled) it does nothing, and the
// contents are the same either way.
#ifndef FLOPSPACK_UTIL_LARGE_BUFFER_H_
#define FLOPSPACK_UTIL_LARGE_BUFFER_H_

#include <cstddef>
#include <vector>

#include "util/huge_pages.h"
#include "util/vector_pool.h"

namespace flopspack::util {

// v.resize(n) with value-initialised elements, advised before they are
// written. When a vector pool is active on the thread (vector_pool.h) and
// v has no storage yet, the storage comes from the pool (rounded and backed
// by huge pages when new); the caller then gives it back (Recycle), or it
// is freed as any vector. (Without a pool not rounded and collapsed: a
// call allocates these again each time, often over memory the allocator
// already has resident, which a collapse would copy.)
template <typename T>
void ResizeLarge(std::vector<T>& v, size_t n) {
  if (n > v.capacity()) {
    VectorPool* pool = current_vector_pool;
    if (pool != nullptr && v.capacity() == 0) {
      v = pool->Take<T>(n);
      v.reserve(n);
    } else {
      v.reserve(n);
      AdviseHugePages(v.data(), n * sizeof(T));
    }
  }
  v.resize(n);
}

// A value-initialised vector of n, advised; its storage from the thread's
// vector pool when one is active.
template <typename T>
std::vector<T> LargeVector(size_t n) {
  std::vector<T> v;
  ResizeLarge(v, n);
  return v;
}

}  // namespace flopspack::util

#endif  // FLOPSPACK_UTIL_LARGE_BUFFER_H_
