// The streaming packer through the C ABI.
#include <algorithm>
#include <map>
#include <vector>

#include "capi_test_util.h"

namespace {

flopspack_stream_packer* Make(int64_t capacity, uint64_t window, uint64_t seed = 0) {
  flopspack_stream_options options;
  flopspack_stream_options_init(&options);
  options.capacity = capacity;
  options.window = window;
  options.seed = seed;
  flopspack_stream_packer* packer = nullptr;
  EXPECT_EQ(flopspack_stream_packer_create(&options, nullptr, &packer), FLOPSPACK_OK)
      << flopspack_last_error_message();
  return packer;
}

// Takes the ready sequences and adds each document's tokens to `tokens`.
size_t Drain(flopspack_stream_packer* packer, std::map<int64_t, int64_t>* tokens,
             int64_t capacity) {
  flopspack_plan* plan = nullptr;
  EXPECT_EQ(flopspack_stream_packer_take(packer, &plan), FLOPSPACK_OK);
  const size_t groups = flopspack_plan_group_count(plan);
  for (size_t g = 0; g < groups; ++g) {
    const int64_t* items = nullptr;
    const int64_t* pieces = nullptr;
    size_t n = 0;
    EXPECT_EQ(flopspack_plan_group(plan, g, &items, &pieces, &n), FLOPSPACK_OK);
    int64_t used = 0;
    for (size_t i = 0; i < n; ++i) {
      (*tokens)[items[i]] += pieces[i];
      used += pieces[i];
    }
    EXPECT_LE(used, capacity);
  }
  flopspack_plan_destroy(plan);
  return groups;
}

TEST(StreamCapiTest, PushTakeFlushPlacesEveryToken) {
  flopspack_stream_packer* packer = Make(1000, 64);
  std::vector<int64_t> lengths;
  for (int i = 0; i < 1000; ++i) lengths.push_back(1 + (i * 7919) % 2500);
  std::map<int64_t, int64_t> tokens;
  for (size_t i = 0; i < lengths.size(); i += 100) {
    ASSERT_EQ(flopspack_stream_packer_push(packer, lengths.data() + i, 100), FLOPSPACK_OK);
    Drain(packer, &tokens, 1000);
  }
  ASSERT_EQ(flopspack_stream_packer_flush(packer), FLOPSPACK_OK);
  size_t ready = 0;
  ASSERT_EQ(flopspack_stream_packer_ready(packer, &ready), FLOPSPACK_OK);
  EXPECT_GT(ready, 0u);
  Drain(packer, &tokens, 1000);
  ASSERT_EQ(tokens.size(), lengths.size());
  for (size_t i = 0; i < lengths.size(); ++i) EXPECT_EQ(tokens[int64_t(i)], lengths[i]);
  flopspack_stream_totals totals;
  totals.struct_size = sizeof(totals);
  ASSERT_EQ(flopspack_stream_packer_totals(packer, &totals), FLOPSPACK_OK);
  EXPECT_EQ(totals.documents_pushed, 1000u);
  EXPECT_EQ(totals.pieces_held, 0u);
  EXPECT_GT(totals.split_documents, 0u);
  flopspack_stream_packer_destroy(packer);
}

TEST(StreamCapiTest, SaveQueryTooSmallAndRestore) {
  flopspack_stream_packer* packer = Make(512, 50, 3);
  std::vector<int64_t> lengths;
  for (int i = 0; i < 333; ++i) lengths.push_back(1 + (i * 131) % 500);
  ASSERT_EQ(flopspack_stream_packer_push(packer, lengths.data(), 333), FLOPSPACK_OK);
  size_t size = 0;
  ASSERT_EQ(flopspack_stream_packer_save(packer, nullptr, 0, &size), FLOPSPACK_OK);
  ASSERT_GT(size, 0u);
  size_t queried = 0;
  ASSERT_EQ(flopspack_stream_packer_save_size(packer, &queried), FLOPSPACK_OK);
  EXPECT_EQ(queried, size);
  std::vector<unsigned char> small(size - 1, 0xEE);
  size_t needed = 0;
  EXPECT_FLOPSPACK_ERROR(flopspack_stream_packer_save(packer, small.data(), small.size(), &needed),
                         FLOPSPACK_BUFFER_TOO_SMALL, "needs");
  EXPECT_EQ(needed, size);
  EXPECT_TRUE(std::all_of(small.begin(), small.end(), [](unsigned char c) { return c == 0xEE; }));
  std::vector<unsigned char> state(size);
  ASSERT_EQ(flopspack_stream_packer_save(packer, state.data(), state.size(), &size), FLOPSPACK_OK);
  flopspack_stream_packer* restored = nullptr;
  ASSERT_EQ(flopspack_stream_packer_restore(state.data(), state.size(), nullptr, &restored),
            FLOPSPACK_OK);
  std::map<int64_t, int64_t> a, b;
  flopspack_stream_packer_flush(packer);
  flopspack_stream_packer_flush(restored);
  Drain(packer, &a, 512);
  Drain(restored, &b, 512);
  EXPECT_EQ(a, b);
  state[state.size() / 2] ^= 1;
  flopspack_stream_packer* corrupt = nullptr;
  EXPECT_FLOPSPACK_ERROR(
      flopspack_stream_packer_restore(state.data(), state.size(), nullptr, &corrupt),
      FLOPSPACK_INVALID_ARGUMENT, "corrupted");
  EXPECT_EQ(corrupt, nullptr);
  flopspack_stream_packer_destroy(packer);
  flopspack_stream_packer_destroy(restored);
}

TEST(StreamCapiTest, BadInput) {
  flopspack_stream_options options;
  flopspack_stream_options_init(&options);
  flopspack_stream_packer* packer = nullptr;
  EXPECT_FLOPSPACK_ERROR(flopspack_stream_packer_create(&options, nullptr, &packer),
                         FLOPSPACK_INVALID_ARGUMENT, "capacity = 0");
  options.capacity = 100;
  options.window = 0;
  EXPECT_FLOPSPACK_ERROR(flopspack_stream_packer_create(&options, nullptr, &packer),
                         FLOPSPACK_INVALID_ARGUMENT, "window = 0");
  options.window = 10;
  options.overflow = FLOPSPACK_OVERFLOW_ERROR;
  ASSERT_EQ(flopspack_stream_packer_create(&options, nullptr, &packer), FLOPSPACK_OK);
  const int64_t over[2] = {10, 101};
  EXPECT_FLOPSPACK_ERROR(flopspack_stream_packer_push(packer, over, 2), FLOPSPACK_INVALID_ARGUMENT,
                         "lengths[1] = 101 exceeds the capacity 100");
  EXPECT_FLOPSPACK_ERROR(flopspack_stream_packer_push(packer, nullptr, 2),
                         FLOPSPACK_INVALID_ARGUMENT, "lengths is NULL");
  EXPECT_FLOPSPACK_ERROR(flopspack_stream_packer_push(nullptr, over, 1), FLOPSPACK_INVALID_ARGUMENT,
                         "packer must not be NULL");
  flopspack_stream_totals totals;
  totals.struct_size = sizeof(totals);
  ASSERT_EQ(flopspack_stream_packer_totals(packer, &totals), FLOPSPACK_OK);
  EXPECT_EQ(totals.documents_pushed, 0u);
  EXPECT_FLOPSPACK_ERROR(flopspack_stream_packer_restore(nullptr, 5, nullptr, &packer),
                         FLOPSPACK_INVALID_ARGUMENT, "bytes is NULL");
  flopspack_stream_packer_destroy(packer);
  flopspack_stream_packer_destroy(nullptr);
}

}  // namespace
