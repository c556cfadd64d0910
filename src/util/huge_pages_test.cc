#include "util/huge_pages.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "util/vector_pool.h"

namespace flopspack::util {
namespace {

// Rounded sizes fill whole 2 MB pages with the allocator's header, never
// shrink a request and add less than one huge page; small ones are left.
TEST(HugePagesTest, CapacityFillsWholeHugePages) {
  EXPECT_EQ(HugePageCapacity(0), 0u);
  EXPECT_EQ(HugePageCapacity(kHugePageMinBytes - 1), kHugePageMinBytes - 1);
  for (size_t bytes :
       {kHugePageMinBytes, kHugePageMinBytes + 1, kHugePageBytes - 4096, kHugePageBytes - 4095,
        kHugePageBytes, size_t{1630540} * 8, size_t{3} << 30}) {
    const size_t rounded = HugePageCapacity(bytes);
    EXPECT_GE(rounded, bytes) << bytes;
    EXPECT_LT(rounded - bytes, kHugePageBytes) << bytes;
    EXPECT_EQ((rounded + kAllocatorHeaderBytes) % kHugePageBytes, 0u) << bytes;
  }
  EXPECT_EQ(HugePageCapacity(kHugePageBytes - kAllocatorHeaderBytes),
            kHugePageBytes - kAllocatorHeaderBytes);
  EXPECT_EQ(HugePageCapacity(SIZE_MAX - 5), SIZE_MAX - 5);  // would overflow: left
}

// A hint only: what a buffer held before it was backed, and what is written
// after, read back the same.
TEST(HugePagesTest, BackingKeepsContents) {
  std::vector<int64_t> held(size_t{5} << 18);  // 10 MB, written before
  for (size_t i = 0; i < held.size(); ++i) held[i] = static_cast<int64_t>(i * 7 + 1);
  const bool offered = BackWithHugePages(held.data(), held.size() * sizeof(int64_t));
#if defined(__linux__)
  EXPECT_TRUE(offered);
#else
  EXPECT_FALSE(offered);
#endif
  for (size_t i = 0; i < held.size(); ++i) ASSERT_EQ(held[i], static_cast<int64_t>(i * 7 + 1));
  std::vector<int32_t> fresh;
  fresh.reserve(size_t{3} << 19);  // 6 MB, backed before the first write
  BackWithHugePages(fresh.data(), fresh.capacity() * sizeof(int32_t));
  fresh.assign(fresh.capacity(), -3);
  for (int32_t v : fresh) ASSERT_EQ(v, -3);
  int32_t small[4] = {1, 2, 3, 4};  // below the threshold: nothing done
  BackWithHugePages(small, sizeof(small));
  EXPECT_EQ(small[3], 4);
}

// The other hints keep contents too: the leading huge page of a buffer
// (written before and after), and populating a buffer's 4 KB pages.
TEST(HugePagesTest, LeadingPageAndPopulateKeepContents) {
  std::vector<int64_t> held(size_t{3} << 18);  // 6 MB, written before
  for (size_t i = 0; i < held.size(); ++i) held[i] = static_cast<int64_t>(i * 5 + 2);
  BackLeadingHugePage(held.data(), held.size() * sizeof(int64_t));
  for (size_t i = 0; i < held.size(); ++i) ASSERT_EQ(held[i], static_cast<int64_t>(i * 5 + 2));
  std::vector<uint64_t> room;
  room.reserve(size_t{1} << 20);  // 8 MB, written in part after
  BackLeadingHugePage(room.data(), room.capacity() * sizeof(uint64_t));
  room.assign(size_t{3} << 17, 11);
  for (uint64_t v : room) ASSERT_EQ(v, 11u);

  std::vector<int32_t> small(kPopulateMinBytes / sizeof(int32_t) * 2, 4);  // 128 KB
  PopulatePages(small.data(), small.size() * sizeof(int32_t));
  for (int32_t v : small) ASSERT_EQ(v, 4);
  std::vector<double> fresh;
  fresh.reserve(kPopulateMinBytes / sizeof(double) + 100);
  PopulatePages(fresh.data(), fresh.capacity() * sizeof(double));
  fresh.assign(fresh.capacity(), 0.5);
  for (double v : fresh) ASSERT_EQ(v, 0.5);
}

// The pool's new vectors from kPopulateMinBytes to kHugePageMinBytes are
// reserved to exactly their request (faulted in, not rounded); room taken
// for writing in part is rounded as a filled vector is, and served again
// to either kind of request.
TEST(HugePagesTest, PoolReservesMidSizedAndRoomVectors) {
  VectorPool pool;
  const size_t mid = kPopulateMinBytes / sizeof(int64_t) + 1;
  std::vector<int64_t> a = pool.Take<int64_t>(mid);
  EXPECT_TRUE(a.empty());
  EXPECT_EQ(a.capacity(), mid);
  EXPECT_EQ(pool.Take<int64_t>(mid - 2).capacity(), 0u);  // below: no storage yet

  const size_t large = kHugePageMinBytes / sizeof(uint64_t) * 5;
  std::vector<uint64_t> room = pool.Take<uint64_t>(large, VectorPool::Fresh::kOnWrite);
  EXPECT_EQ(room.capacity(), HugePageCapacity(large * sizeof(uint64_t)) / sizeof(uint64_t));
  room.assign(large / 3, 8);
  const uint64_t* storage = room.data();
  pool.Give(room);
  std::vector<uint64_t> again = pool.Take<uint64_t>(large);
  EXPECT_EQ(again.data(), storage);
  again.assign(large, 1);
  pool.Give(again);

  UseVectorPool use(&pool);
  std::vector<uint64_t> via = PooledRoom<uint64_t>(large);
  EXPECT_EQ(via.data(), storage);
  EXPECT_TRUE(via.empty());
  EXPECT_GE(via.capacity(), large);
  pool.Give(via);
  EXPECT_EQ(PooledRoom<int32_t>(10).capacity(), 10u);  // small: room as asked
}

// The pool's new large vectors are rounded to whole huge pages, served
// again to any request they hold, bounded by the pool's budget; without
// huge pages (the fallback) a new vector has no storage, as before.
TEST(HugePagesTest, PoolRoundsReusesAndBoundsLargeVectors) {
  const size_t n = kHugePageMinBytes / sizeof(int64_t) + 3;
  const size_t rounded = HugePageCapacity(n * sizeof(int64_t)) / sizeof(int64_t);
  VectorPool pool;
  std::vector<int64_t> a = pool.Take<int64_t>(n);
  EXPECT_TRUE(a.empty());
  EXPECT_EQ(a.capacity(), rounded);
  a.assign(n, 5);
  const int64_t* storage = a.data();
  pool.Give(a);
  EXPECT_EQ(pool.bytes(), rounded * sizeof(int64_t));
  std::vector<int64_t> b = pool.Take<int64_t>(rounded);  // the whole rounded size
  EXPECT_EQ(b.data(), storage);
  EXPECT_TRUE(b.empty());
  pool.Give(b);
  EXPECT_EQ(pool.Take<int64_t>(rounded + 1).capacity(),
            HugePageCapacity((rounded + 1) * sizeof(int64_t)) / sizeof(int64_t));
  EXPECT_EQ(pool.Take<int64_t>(10).data(), storage);  // small requests reuse it too
  EXPECT_EQ(pool.bytes(), 0u);
  EXPECT_EQ(pool.Take<int32_t>(10).capacity(), 0u);  // small and new: no storage yet

  VectorPool bounded(n * sizeof(int64_t));  // below the rounded size
  std::vector<int64_t> c = bounded.Take<int64_t>(n);
  EXPECT_EQ(c.capacity(), rounded);
  bounded.Give(c);  // over the budget: freed, not kept
  EXPECT_EQ(c.capacity(), 0u);
  EXPECT_EQ(bounded.bytes(), 0u);

  VectorPool plain(SIZE_MAX, /*huge_pages=*/false);
  EXPECT_EQ(plain.Take<int64_t>(n).capacity(), 0u);
  UseVectorPool use(&plain);
  EXPECT_EQ(PooledVector<int64_t>(n, 9), std::vector<int64_t>(n, 9));
}

}  // namespace
}  // namespace flopspack::util
