#include "util/large_buffer.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace flopspack::util {
namespace {

// The hint changes no contents: a large buffer comes back value-initialised,
// and growing one keeps what it held.
TEST(LargeBufferTest, ContentsAsResize) {
  std::vector<int64_t> v = LargeVector<int64_t>(3 << 20);  // 24 MB: advised
  ASSERT_EQ(v.size(), size_t{3} << 20);
  for (size_t i = 0; i < v.size(); i += 4099) ASSERT_EQ(v[i], 0);
  v[0] = 7;
  v.back() = 9;
  const size_t old_size = v.size();
  ResizeLarge(v, old_size + (1 << 20));
  EXPECT_EQ(v[0], 7);
  EXPECT_EQ(v[old_size - 1], 9);
  EXPECT_EQ(v.back(), 0);
  std::vector<int32_t> small = LargeVector<int32_t>(5);  // below the threshold
  EXPECT_EQ(small, std::vector<int32_t>(5, 0));
}

}  // namespace
}  // namespace flopspack::util
