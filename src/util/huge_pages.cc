// Huge-page backing for fresh large buffers: see huge_pages.h.
#include "util/huge_pages.h"

#include <cstdint>
#include <cstdio>
#include <cstring>

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

#if defined(__linux__)
namespace {

// Linux's values; older headers may not define them (the kernel then
// answers EINVAL, ignored like every other failure: these are hints).
#if defined(MADV_POPULATE_WRITE)
constexpr int kPopulateWrite = MADV_POPULATE_WRITE;
#else
constexpr int kPopulateWrite = 23;
#endif
#if defined(MADV_COLLAPSE)
constexpr int kCollapse = MADV_COLLAPSE;
#else
constexpr int kCollapse = 25;
#endif
constexpr uintptr_t kPage = 4096;

// Whether the administrator allows transparent huge pages at all:
// MADV_COLLAPSE ignores the sysfs setting, so "never" is honoured here.
// Read once per process.
bool HugePagesAllowed() {
  static const bool allowed = [] {
    std::FILE* f = std::fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (f == nullptr) return false;
    char line[128] = {};
    const bool read = std::fgets(line, sizeof(line), f) != nullptr;
    std::fclose(f);
    return read && std::strstr(line, "[never]") == nullptr;
  }();
  return allowed;
}

// madvise(advice) over the whole `unit`-aligned pages inside
// [data, data + bytes), if there are any.
void AdviseWholePages(void* data, size_t bytes, uintptr_t unit, int advice) {
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + unit - 1) & ~(unit - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(unit - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, advice);
}

// Makes the 2 MB region at `region` one huge page, faulting in the page
// holding max(region, begin) (the buffer's first page there) first.
void CollapseRegion(uintptr_t region, uintptr_t begin) {
  // A collapse needs one present, writable page in the region: fault in
  // the buffer's first page there (MADV_POPULATE_WRITE: as if written,
  // but nothing is written), then collapse the region into a 2 MB page.
  // No MADV_HUGEPAGE: it would give the range its own mapping, and the
  // heap's later brk extensions could then not merge with it, leaving
  // regions that straddle two mappings, which cannot be collapsed.
  const uintptr_t page = (region < begin ? begin : region) & ~(kPage - 1);
  madvise(reinterpret_cast<void*>(page), kPage, kPopulateWrite);
  madvise(reinterpret_cast<void*>(region), kHugePageBytes, kCollapse);
}

}  // namespace
#endif

void AdviseHugePages(void* data, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes < kHugePageBytes) return;  // cannot hold an aligned 2 MB page
  AdviseWholePages(data, bytes, kHugePageBytes, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

void PopulatePages(void* data, size_t bytes) {
#if defined(__linux__)
  if (bytes < kPopulateMinBytes) return;
  AdviseWholePages(data, bytes, kPage, kPopulateWrite);
#else
  (void)data;
  (void)bytes;
#endif
}

bool BackWithHugePages(void* data, size_t bytes) {
#if defined(__linux__)
  if (bytes < kHugePageMinBytes || !HugePagesAllowed()) return true;
  constexpr uintptr_t kHuge = kHugePageBytes;
  const uintptr_t begin = reinterpret_cast<uintptr_t>(data);
  const uintptr_t first = begin & ~(kHuge - 1);
  const uintptr_t end = (begin + bytes + kHuge - 1) & ~(kHuge - 1);
  for (uintptr_t region = first; region < end; region += kHuge) CollapseRegion(region, begin);
  return true;
#else
  (void)data;
  (void)bytes;
  return false;
#endif
}

void BackLeadingHugePage(void* data, size_t bytes) {
#if defined(__linux__)
  if (bytes < kHugePageMinBytes || !HugePagesAllowed()) return;
  const uintptr_t begin = reinterpret_cast<uintptr_t>(data);
  CollapseRegion(begin & ~(uintptr_t{kHugePageBytes} - 1), begin);
  AdviseHugePages(data, bytes);
#else
  (void)data;
  (void)bytes;
#endif
}

}  // namespace flopspack::util
