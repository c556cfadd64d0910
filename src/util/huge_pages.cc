// Huge-page backing for fresh large buffers: see huge_pages.h.
#include "util/huge_pages.h"

#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace flopspack::util {

size_t HugePageCapacity(size_t bytes) {
  if (bytes < kHugePageMinBytes) return bytes;
  const size_t with_header = bytes + kAllocatorHeaderBytes;
  if (with_header < bytes) return bytes;  // overflow: leave it to the allocator
  const size_t pages = (with_header + kHugePageBytes - 1) / kHugePageBytes;
  return pages * kHugePageBytes - kAllocatorHeaderBytes;
}

bool BackWithHugePages(void* data, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes < kHugePageMinBytes) return true;
    // Linux's value; glibc 2.36 headers define it, older ones may not (the
    // kernel then answers EINVAL, which is ignored like every other failure).
#if defined(MADV_COLLAPSE)
  constexpr int kCollapse = MADV_COLLAPSE;
#else
  constexpr int kCollapse = 25;
#endif
  constexpr uintptr_t kHuge = kHugePageBytes;
  const uintptr_t first = reinterpret_cast<uintptr_t>(data) & ~(kHuge - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes + kHuge - 1) & ~(kHuge - 1);
  // The whole span: madvise applies to every mapping in it (and reports
  // ENOMEM for holes, which changes nothing for the mapped parts).
  madvise(reinterpret_cast<void*>(first), end - first, MADV_HUGEPAGE);
  madvise(reinterpret_cast<void*>(first), kHuge, kCollapse);
  if (end - first > kHuge) madvise(reinterpret_cast<void*>(end - kHuge), kHuge, kCollapse);
  return true;
#else
  (void)data;
  (void)bytes;
  return false;
#endif
}

}  // namespace flopspack::util
