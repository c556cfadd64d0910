// Fresh large buffers backed by 2 MB pages where the kernel offers them.
//
// What: on this kind of machine a fresh 4 KB page costs 15-50 us (a
// paravirtualised minor fault), so a first call that fills 20 MB of new
// buffers pays ~5,000 faults, while the same memory in transparent huge
// pages faults ~10 times. BackWithHugePages(data, bytes), called on storage
// the allocator has just handed out and before it is written, turns every
// 2 MB region the buffer overlaps into a huge page now: it faults in one
// page of the buffer there (MADV_POPULATE_WRITE, which writes nothing) and
// collapses the region (MADV_COLLAPSE, Linux 6.1+). Collapsing rather than
// advising MADV_HUGEPAGE works where the region already holds a present
// page (the allocator's header, a neighbour's data), and leaves the
// mapping's flags alone, so glibc's heap keeps growing as one mapping.
// HugePageCapacity(bytes) rounds a buffer's size so that, with the
// allocator's header, it fills whole 2 MB pages: an allocator that maps
// large blocks on their own (glibc above its mmap threshold) then gets a
// mapping whose length is a multiple of 2 MB, which Linux places 2 MB
// aligned, so the buffer is exactly its own huge pages.
// Complexity: two system calls per 2 MB region; a collapse allocates a
// 2 MB page and copies the region's present pages into it.
// Guarantee: a hint only. Contents never change (a collapse copies what
// was present and the kernel keeps the range's data across it); where THP
// is "never" (read once from sysfs) nothing is done; where the kernel is
// older than 6.1 or a region is not wholly inside one mapping (the end of
// the heap), the calls fail and that part faults 4 KB pages as before; off
// Linux the calls are compiled out. It may make the 2 MB region on either
// side of the buffer huge too (the neighbours' memory is then resident in
// a huge page: more RSS, same contents).
// Reference: Documentation/admin-guide/mm/transhuge.rst (MADV_HUGEPAGE,
// MADV_COLLAPSE), madvise(2) (MADV_POPULATE_WRITE); the figures are in docs/algorithms.md, "Whole C
// calls against qsort (issue 19)".
#ifndef FLOPSPACK_UTIL_HUGE_PAGES_H_
#define FLOPSPACK_UTIL_HUGE_PAGES_H_

#include <cstddef>

namespace flopspack::util {

inline constexpr size_t kHugePageBytes = size_t{2} << 20;

// Buffers from this size on are rounded to whole huge pages and backed by
// them when fresh: a 4 KB-page buffer of 512 KB costs 128 faults (2-6 ms
// here), more than zeroing one 2 MB page.
inline constexpr size_t kHugePageMinBytes = size_t{512} << 10;

// Fresh buffers from this size up to kHugePageMinBytes are faulted in by
// one MADV_POPULATE_WRITE call before their first write (PopulatePages):
// here that costs about 55% of taking each 4 KB page's fault in turn
// (768 pages: 5.8-6.1 ms against 10.1-11.3 ms).
inline constexpr size_t kPopulateMinBytes = size_t{64} << 10;

// What an allocator puts before a large block, at most (glibc: 16 bytes;
// a replaced operator new may add its own): the rounded size leaves a
// page for it.
inline constexpr size_t kAllocatorHeaderBytes = 4096;

// The smallest size >= bytes that, with kAllocatorHeaderBytes, is a whole
// number of huge pages (bytes itself when below kHugePageMinBytes).
size_t HugePageCapacity(size_t bytes);

// Advises the 2 MB pages wholly inside [data, data + bytes) as huge-page
// candidates (MADV_HUGEPAGE), for a buffer about to be filled: the kernel
// then faults them as 2 MB pages where it can. Nothing for buffers below
// one huge page or off Linux. (What large_buffer.h's ResizeLarge uses: its
// buffers are allocated again on every call, often over memory the
// allocator already has resident, which a collapse would copy.)
void AdviseHugePages(void* data, size_t bytes);

// Backs [data, data + bytes) with huge pages as above; returns whether
// the platform offers huge pages at all (false: compiled out, nothing
// done). Never fails: the calls are hints.
bool BackWithHugePages(void* data, size_t bytes);

// For room written from its start and mostly left unused (an arena grown
// as it goes): backs only the 2 MB region holding data's first byte as
// BackWithHugePages does (that region holds the allocator's header, a
// present page, so it could not fault as a huge page later) and advises
// the rest (AdviseHugePages), whose 2 MB pages then fault in as they are
// first written. Nothing below kHugePageMinBytes, where THP is "never", or
// off Linux.
void BackLeadingHugePage(void* data, size_t bytes);

// Faults in the 4 KB pages wholly inside [data, data + bytes) with one
// MADV_POPULATE_WRITE (Linux 5.14+; nothing is written, the pages read as
// before), for a fresh buffer about to be filled. A hint: nothing for
// buffers below kPopulateMinBytes or off Linux, and a failure (an older
// kernel) leaves the pages to fault one by one as before.
void PopulatePages(void* data, size_t bytes);

}  // namespace flopspack::util

#endif  // FLOPSPACK_UTIL_HUGE_PAGES_H_
