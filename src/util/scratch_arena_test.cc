#include "util/scratch_arena.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "util/vector_pool.h"

namespace flopspack::util {
namespace {

template <typename T>
std::pair<uintptr_t, uintptr_t> Range(absl::Span<T> a) {
  const uintptr_t begin = reinterpret_cast<uintptr_t>(a.data());
  return {begin, begin + a.size() * sizeof(T)};
}

TEST(ScratchArenaTest, ArraysHoldTheirValueAreAlignedAndDisjoint) {
  ScratchArena arena;
  // From 64 KB on, arrays share blocks of one huge page.
  absl::Span<int32_t> a = arena.Array<int32_t>(20000, -1);
  absl::Span<double> b = arena.Array<double>(3, 2.5);
  absl::Span<int64_t> c = arena.Array<int64_t>(70000);
  absl::Span<uint64_t> empty = arena.Array<uint64_t>(0);
  EXPECT_TRUE(empty.empty());
  EXPECT_TRUE(std::all_of(a.begin(), a.end(), [](int32_t x) { return x == -1; }));
  EXPECT_TRUE(std::all_of(b.begin(), b.end(), [](double x) { return x == 2.5; }));
  EXPECT_TRUE(std::all_of(c.begin(), c.end(), [](int64_t x) { return x == 0; }));
  std::vector<std::pair<uintptr_t, uintptr_t>> ranges = {Range(a), Range(b), Range(c)};
  for (const auto& r : ranges) EXPECT_EQ(r.first % ScratchArena::kAlignment, 0u);
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i) EXPECT_LE(ranges[i - 1].second, ranges[i].first);
  // Writing one array leaves the others as they were.
  std::fill(c.begin(), c.end(), 9);
  EXPECT_TRUE(std::all_of(a.begin(), a.end(), [](int32_t x) { return x == -1; }));
  EXPECT_TRUE(std::all_of(b.begin(), b.end(), [](double x) { return x == 2.5; }));
  EXPECT_EQ(arena.blocks(), 1u);
}

TEST(ScratchArenaTest, AnInnerArenaCarvesAfterTheOuterAndGivesItsRoomBack) {
  ScratchArena outer;
  absl::Span<int64_t> kept = outer.Array<int64_t>(10000, 7);
  const int64_t* inner_start = nullptr;
  {
    ScratchArena inner;
    absl::Span<int64_t> first = inner.Array<int64_t>(5000, 1);
    inner_start = first.data();
    EXPECT_GE(Range(first).first, Range(kept).second);
  }
  {
    ScratchArena inner;
    absl::Span<int64_t> again = inner.Array<int64_t>(5000, 2);
    EXPECT_EQ(again.data(), inner_start);  // the same room, filled anew
    EXPECT_TRUE(std::all_of(again.begin(), again.end(), [](int64_t x) { return x == 2; }));
  }
  EXPECT_TRUE(std::all_of(kept.begin(), kept.end(), [](int64_t x) { return x == 7; }));
  // After the inner arenas, the outer one carves from its own mark.
  absl::Span<int64_t> next = outer.Array<int64_t>(1, 3);
  EXPECT_EQ(next.data(), inner_start);
  EXPECT_EQ(outer.blocks(), 1u);
}

TEST(ScratchArenaTest, RoomIsCarvedLikeAnArrayAndLeftUnwritten) {
  ScratchArena outer;
  const int64_t* first = nullptr;
  {
    ScratchArena inner;
    absl::Span<int64_t> a = inner.Array<int64_t>(100, 7);
    first = a.data();
  }
  ScratchArena inner;
  int64_t* room = inner.Room<int64_t>(100);
  EXPECT_EQ(room, first);
  // Nothing written: the earlier array's values are still there.
  EXPECT_TRUE(std::all_of(room, room + 100, [](int64_t x) { return x == 7; }));
  absl::Span<int32_t> after = inner.Array<int32_t>(3, 1);
  const auto room_range = Range(absl::MakeSpan(room, 100));
  const auto after_range = Range(after);
  EXPECT_TRUE(after_range.first >= room_range.second || after_range.second <= room_range.first);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(after.data()) % ScratchArena::kAlignment, 0u);
  EXPECT_THROW(outer.Room<int32_t>(1), std::logic_error);
}

TEST(ScratchArenaTest, OnlyTheInnermostArenaCarves) {
  ScratchArena outer;
  ScratchArena inner;
  EXPECT_THROW(outer.Array<int32_t>(1), std::logic_error);
  EXPECT_EQ(inner.Array<int32_t>(1, 4)[0], 4);
}

TEST(ScratchArenaTest, AnArrayLargerThanABlockGetsABlockOfItsOwn) {
  ScratchArena arena;
  absl::Span<int32_t> small = arena.Array<int32_t>(10, 1);
  const size_t n = 2 * ScratchArena::kBlockBytes / sizeof(int64_t);
  absl::Span<int64_t> large = arena.Array<int64_t>(n, 5);
  EXPECT_EQ(arena.blocks(), 2u);
  EXPECT_EQ(large.size(), n);
  EXPECT_EQ(large.front(), 5);
  EXPECT_EQ(large.back(), 5);
  EXPECT_EQ(small[9], 1);
  EXPECT_THROW(arena.Array<int64_t>(SIZE_MAX / 4), std::bad_alloc);
}

TEST(ScratchArenaTest, BlocksGoBackToTheThreadsPoolAndComeBackFilledAnew) {
  VectorPool pool;
  UseVectorPool use(&pool);
  const int32_t* first = nullptr;
  {
    ScratchArena arena;
    absl::Span<int32_t> a = arena.Array<int32_t>(20000, 8);
    first = a.data();
  }
  EXPECT_GE(pool.bytes(), ScratchArena::kBlockBytes);
  {
    ScratchArena arena;
    EXPECT_GE(pool.bytes(), ScratchArena::kBlockBytes);  // nothing taken before the first array
    absl::Span<int32_t> b = arena.Array<int32_t>(20000);
    EXPECT_EQ(b.data(), first);  // the pool's block again
    EXPECT_EQ(pool.bytes(), 0u);
    EXPECT_TRUE(std::all_of(b.begin(), b.end(), [](int32_t x) { return x == 0; }));
  }
  EXPECT_GE(pool.bytes(), ScratchArena::kBlockBytes);
}

TEST(ScratchArenaTest, SmallArraysTakeBlocksOfTheirOwnSize) {
  VectorPool pool;
  UseVectorPool use(&pool);
  {
    ScratchArena arena;
    absl::Span<double> a = arena.Array<double>(6, 1.0);
    EXPECT_EQ(arena.blocks(), 1u);
    absl::Span<int32_t> b = arena.Array<int32_t>(1000, 2);  // no room left in a's block
    EXPECT_EQ(arena.blocks(), 2u);
    EXPECT_EQ(a[5], 1.0);
    EXPECT_EQ(b[999], 2);
  }
  // A small call keeps no huge page in the pool.
  EXPECT_GT(pool.bytes(), 0u);
  EXPECT_LT(pool.bytes(), size_t{64} << 10);
}

}  // namespace
}  // namespace flopspack::util
