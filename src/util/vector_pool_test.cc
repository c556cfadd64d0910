#include "util/vector_pool.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "util/large_buffer.h"

namespace flopspack::util {
namespace {

TEST(VectorPoolTest, TakeGivesTheSmallestVectorThatHoldsTheRequest) {
  VectorPool pool;
  for (size_t capacity : {100, 10, 1000}) {
    std::vector<int64_t> v;
    v.reserve(capacity);
    v.push_back(7);
    pool.Give(v);
    EXPECT_EQ(v.capacity(), 0u);
  }
  EXPECT_EQ(pool.bytes(), (100 + 10 + 1000) * sizeof(int64_t));
  std::vector<int64_t> a = pool.Take<int64_t>(50);
  EXPECT_EQ(a.capacity(), 100u);
  EXPECT_TRUE(a.empty());
  EXPECT_EQ(pool.Take<int64_t>(2000).capacity(), 0u);  // none holds it
  EXPECT_EQ(pool.Take<int64_t>(5).capacity(), 10u);
  EXPECT_EQ(pool.Take<double>(5).capacity(), 0u);  // other types are kept apart
  EXPECT_EQ(pool.bytes(), 1000 * sizeof(int64_t));
}

TEST(VectorPoolTest, FullPoolKeepsTheLargest) {
  VectorPool pool;
  for (size_t k = 1; k <= VectorPool::kMaxPerType + 5; ++k) {
    std::vector<int32_t> v;
    v.reserve(k);
    pool.Give(v);
  }
  size_t expected = 0;
  for (size_t k = 6; k <= VectorPool::kMaxPerType + 5; ++k) expected += k * sizeof(int32_t);
  EXPECT_EQ(pool.bytes(), expected);
  std::vector<int32_t> small;
  small.reserve(1);
  pool.Give(small);  // smaller than all: dropped
  EXPECT_EQ(pool.bytes(), expected);
  EXPECT_EQ(pool.Take<int32_t>(1).capacity(), 6u);
}

TEST(VectorPoolTest, ByteBudgetDropsSmallerVectorsThenRefuses) {
  VectorPool pool(100 * sizeof(int64_t));
  std::vector<int64_t> a, b, c, d;
  a.reserve(30);
  b.reserve(40);
  c.reserve(50);
  d.reserve(200);
  pool.Give(a);
  pool.Give(b);
  EXPECT_EQ(pool.bytes(), 70 * sizeof(int64_t));
  pool.Give(c);  // over budget: the 30 goes, then it fits (90)
  EXPECT_EQ(pool.bytes(), 90 * sizeof(int64_t));
  EXPECT_EQ(pool.Take<int64_t>(1).capacity(), 40u);
  std::vector<int64_t> e;
  e.reserve(45);
  pool.Give(e);  // 50 + 45 fits
  EXPECT_EQ(pool.bytes(), 95 * sizeof(int64_t));
  pool.Give(d);  // larger than the budget: dropped, the pool unchanged
  EXPECT_EQ(d.capacity(), 0u);
  EXPECT_EQ(pool.bytes(), 95 * sizeof(int64_t));
  std::vector<double> other;
  other.reserve(10);
  pool.Give(other);  // another type's vectors are not dropped for it: refused
  EXPECT_EQ(other.capacity(), 0u);
  EXPECT_EQ(pool.bytes(), 95 * sizeof(int64_t));
}

TEST(VectorPoolTest, PooledVectorsHaveTheSameContentsWithOrWithoutAPool) {
  VectorPool pool;
  std::vector<int64_t> dirty(64, 99);
  pool.Give(dirty);
  {
    UseVectorPool use(&pool);
    EXPECT_EQ(current_vector_pool, &pool);
    EXPECT_EQ(PooledVector<int64_t>(10, -1), std::vector<int64_t>(10, -1));
    std::vector<int64_t> reused = LargeVector<int64_t>(20);  // value-initialised
    EXPECT_EQ(reused, std::vector<int64_t>(20, 0));
    EXPECT_GE(reused.capacity(), 20u);
    std::vector<int64_t> reserved = PooledReserved<int64_t>(30);
    EXPECT_TRUE(reserved.empty());
    EXPECT_GE(reserved.capacity(), 30u);
    {
      UseVectorPool none(nullptr);  // scopes nest
      EXPECT_EQ(current_vector_pool, nullptr);
      std::vector<int64_t> plain(5);
      Recycle(plain);  // no pool: left alone
      EXPECT_EQ(plain.size(), 5u);
    }
    EXPECT_EQ(current_vector_pool, &pool);
    { GiveBackOnExit give_back(reused, reserved); }
    EXPECT_EQ(reused.capacity(), 0u);
    EXPECT_EQ(reserved.capacity(), 0u);
  }
  EXPECT_EQ(current_vector_pool, nullptr);
  EXPECT_GE(pool.bytes(), 50 * sizeof(int64_t));
  EXPECT_EQ(PooledVector<double>(3, 1.5), std::vector<double>(3, 1.5));
}

}  // namespace
}  // namespace flopspack::util
