// Fresh large buffers backed by 2 MB pages where the kernel offers them.
//
// What: on this kind of machine a fresh 4 KB page costs 15-50 us (a
// paravirtualised minor fault), so a first call that fills 20 MB of new
// buffers pays ~5,000 faults, while the same memory in transparent huge
// pages faults ~10 times. BackWithHugePages(data, bytes), called on storage
// the allocator has just handed out and before it is written, advises every
// 2 MB region the buffer overlaps as a THP candidate (MADV_HUGEPAGE) and
// collapses the first and last of them now (MADV_COLLAPSE, Linux 6.1+):
// those already hold a present 4 KB page (the allocator's header, or a
// neighbour's data), which would stop the kernel from putting a huge page
// there on the next fault. The interior regions are empty and fault one
// huge page each.
// HugePageCapacity(bytes) rounds a buffer's size so that, with the
// allocator's header, it fills whole 2 MB pages: an allocator that maps
// large blocks on their own (glibc above its mmap threshold) then gets a
// mapping whose length is a multiple of 2 MB, which Linux places 2 MB
// aligned, so the buffer is exactly its own huge pages.
// Complexity: O(bytes / 2 MB) system calls, each O(1) but the two collapses,
// which allocate a 2 MB page and copy the region's present pages into it.
// Guarantee: a hint only. Contents never change (a collapse copies what
// was present and the kernel keeps the range's data across it); where THP
// is "never", the kernel is older than 6.1, the region is not wholly inside
// one mapping, or the platform is not Linux, the calls fail or are compiled
// out and the buffer faults 4 KB pages as before. It may make up to one
// 2 MB region on either side of the buffer huge too (the neighbours' memory
// is then resident in a huge page: more RSS, same contents).
// Reference: Documentation/admin-guide/mm/transhuge.rst (MADV_HUGEPAGE,
// MADV_COLLAPSE); the figures are in docs/algorithms.md, "Whole C calls
// against qsort (issue 19)".
#ifndef FLOPSPACK_UTIL_HUGE_PAGES_H_
#define FLOPSPACK_UTIL_HUGE_PAGES_H_

#include <cstddef>

namespace flopspack::util {

inline constexpr size_t kHugePageBytes = size_t{2} << 20;

// Buffers from this size on are rounded to whole huge pages and backed by
// them when fresh: a 4 KB-page buffer of 512 KB costs 128 faults (2-6 ms
// here), more than zeroing one 2 MB page.
inline constexpr size_t kHugePageMinBytes = size_t{512} << 10;

// What an allocator puts before a large block, at most (glibc: 16 bytes;
// a replaced operator new may add its own): the rounded size leaves a
// page for it.
inline constexpr size_t kAllocatorHeaderBytes = 4096;

// The smallest size >= bytes that, with kAllocatorHeaderBytes, is a whole
// number of huge pages (bytes itself when below kHugePageMinBytes).
size_t HugePageCapacity(size_t bytes);

// Advises and collapses [data, data + bytes) as above; returns whether
// the platform offers huge pages at all (false: compiled out, nothing
// done). Never fails: the calls are hints.
bool BackWithHugePages(void* data, size_t bytes);

}  // namespace flopspack::util

#endif  // FLOPSPACK_UTIL_HUGE_PAGES_H_
