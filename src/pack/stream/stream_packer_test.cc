#include "pack/stream/stream_packer.h"

#include <algorithm>
#include <map>
#include <vector>

#include "gtest/gtest.h"
#include "util/random.h"

namespace flopspack::pack {
namespace {

std::vector<int64_t> RandomStreamLengths(util::Rng& rng, size_t n, int64_t max_length) {
  std::vector<int64_t> lengths(n);
  for (int64_t& l : lengths) {
    // Mostly short, some long: a small-scale long tail.
    l = rng.Below(10) == 0 ? 1 + static_cast<int64_t>(rng.Below(max_length))
                           : 1 + static_cast<int64_t>(rng.Below(max_length / 8 + 1));
  }
  return lengths;
}

std::unique_ptr<StreamPacker> MakePacker(int64_t capacity, uint64_t window,
                                         Overflow overflow = Overflow::kSplit, uint64_t seed = 1) {
  auto packer = StreamPacker::Create({capacity, window, overflow, seed}, nullptr);
  EXPECT_TRUE(packer.ok()) << packer.status();
  return std::move(*packer);
}

// Every sequence of a plan as (items, tokens) pairs.
std::vector<std::vector<std::pair<int64_t, int64_t>>> Sequences(const Plan& plan) {
  std::vector<std::vector<std::pair<int64_t, int64_t>>> out;
  for (size_t g = 0; g < plan.group_count(); ++g) {
    std::vector<std::pair<int64_t, int64_t>> sequence;
    for (size_t i = 0; i < plan.group_items(g).size(); ++i) {
      sequence.push_back({plan.group_items(g)[i], plan.group_tokens(g)[i]});
    }
    out.push_back(sequence);
  }
  return out;
}

TEST(StreamPackerTest, EveryTokenPlacedOnceCapsRespectedAgeBounded) {
  util::Rng rng(3);
  for (int trial = 0; trial < 300; ++trial) {
    const int64_t capacity = 16 + static_cast<int64_t>(rng.Below(200));
    const uint64_t window = 1 + rng.Below(60);
    const size_t n = 1 + rng.Below(400);
    const Overflow overflow = static_cast<Overflow>(1 + rng.Below(2));
    std::vector<int64_t> lengths = RandomStreamLengths(rng, n, 2 * capacity);
    auto packer = MakePacker(capacity, window, overflow, trial);
    std::map<int64_t, int64_t> tokens_of;
    std::vector<int64_t> emitted_at(n, -1);
    for (size_t i = 0; i < n; ++i) {
      ASSERT_TRUE(packer->Push({&lengths[i], 1}).ok());
      ASSERT_LE(packer->pieces_held(), overflow == Overflow::kSplit ? window * (2 + 1) : window);
      auto plan = packer->Take();
      ASSERT_TRUE(plan.ok());
      for (const auto& sequence : Sequences(*plan)) {
        int64_t used = 0;
        for (auto [doc, tokens] : sequence) {
          used += tokens;
          tokens_of[doc] += tokens;
          emitted_at[doc] = static_cast<int64_t>(i);
        }
        ASSERT_LE(used, capacity);
      }
      // Nothing is held for W pushes or more.
      if (i >= window) {
        for (size_t j = 0; j + window <= i; ++j) {
          ASSERT_GE(emitted_at[j], 0)
              << "document " << j << " held past the window " << window << " at push " << i;
        }
      }
    }
    ASSERT_TRUE(packer->Flush().ok());
    auto plan = packer->Take();
    ASSERT_TRUE(plan.ok());
    for (const auto& sequence : Sequences(*plan)) {
      for (auto [doc, tokens] : sequence) tokens_of[doc] += tokens;
    }
    ASSERT_EQ(tokens_of.size(), n);
    for (size_t i = 0; i < n; ++i) {
      const int64_t expected =
          overflow == Overflow::kTruncate ? std::min(lengths[i], capacity) : lengths[i];
      ASSERT_EQ(tokens_of[static_cast<int64_t>(i)], expected) << "document " << i;
    }
    EXPECT_EQ(packer->pieces_held(), 0u);
  }
}

// Reference best-fit decreasing, O(n · bins), for the one-chunk case.
int ReferenceBfdBins(std::vector<int64_t> sizes, int64_t capacity) {
  std::stable_sort(sizes.begin(), sizes.end(), std::greater<int64_t>());
  std::vector<int64_t> remaining;
  for (int64_t s : sizes) {
    int best = -1;
    for (size_t b = 0; b < remaining.size(); ++b) {
      if (remaining[b] >= s && (best < 0 || remaining[b] < remaining[best])) best = int(b);
    }
    if (best < 0) {
      remaining.push_back(capacity - s);
    } else {
      remaining[best] -= s;
    }
  }
  return static_cast<int>(remaining.size());
}

TEST(StreamPackerTest, WindowCoveringTheInputIsOfflineBestFitDecreasing) {
  util::Rng rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    const int64_t capacity = 50 + static_cast<int64_t>(rng.Below(100));
    const size_t n = 1 + rng.Below(300);
    std::vector<int64_t> lengths = RandomStreamLengths(rng, n, capacity);
    auto packer = MakePacker(capacity, 2 * n + 2);
    ASSERT_TRUE(packer->Push(lengths).ok());
    ASSERT_TRUE(packer->Flush().ok());
    auto plan = packer->Take();
    ASSERT_TRUE(plan.ok());
    EXPECT_EQ(static_cast<int>(plan->group_count()), ReferenceBfdBins(lengths, capacity));
  }
}

TEST(StreamPackerTest, DeterministicForSameSeedAndOrderDependsOnSeed) {
  util::Rng rng(5);
  std::vector<int64_t> lengths = RandomStreamLengths(rng, 5000, 4096);
  auto run = [&](uint64_t seed) {
    auto packer = MakePacker(4096, 500, Overflow::kSplit, seed);
    EXPECT_TRUE(packer->Push(lengths).ok());
    EXPECT_TRUE(packer->Flush().ok());
    return Sequences(*packer->Take());
  };
  EXPECT_EQ(run(7), run(7));
  EXPECT_NE(run(7), run(8));
}

TEST(StreamPackerTest, SaveRestoreAnywhereContinuesIdentically) {
  util::Rng rng(21);
  std::vector<int64_t> lengths = RandomStreamLengths(rng, 3000, 3000);
  auto reference = MakePacker(2048, 300);
  ASSERT_TRUE(reference->Push(lengths).ok());
  ASSERT_TRUE(reference->Flush().ok());
  const auto expected = Sequences(*reference->Take());
  for (size_t cut : {size_t{0}, size_t{1}, size_t{149}, size_t{150}, size_t{1234}, size_t{2999}}) {
    auto first = MakePacker(2048, 300);
    ASSERT_TRUE(first->Push(absl::MakeConstSpan(lengths).subspan(0, cut)).ok());
    auto before = Sequences(*first->Take());
    ASSERT_TRUE(first->Push(absl::MakeConstSpan(lengths).subspan(cut, 7)).ok());
    const std::string state = first->Save();  // mid-stream, with ready sequences
    auto restored = StreamPacker::Restore(
        absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(state.data()), state.size()), nullptr);
    ASSERT_TRUE(restored.ok()) << restored.status();
    EXPECT_EQ((*restored)->Save(), state);
    ASSERT_TRUE((*restored)
                    ->Push(absl::MakeConstSpan(lengths).subspan(std::min(cut + 7, lengths.size())))
                    .ok());
    ASSERT_TRUE((*restored)->Flush().ok());
    auto after = Sequences(*(*restored)->Take());
    before.insert(before.end(), after.begin(), after.end());
    EXPECT_EQ(before, expected) << "cut at " << cut;
  }
}

TEST(StreamPackerTest, CorruptedStateIsRejected) {
  util::Rng rng(2);
  std::vector<int64_t> lengths = RandomStreamLengths(rng, 500, 1000);
  auto packer = MakePacker(1024, 200);
  ASSERT_TRUE(packer->Push(lengths).ok());
  const std::string state = packer->Save();
  const auto* bytes = reinterpret_cast<const uint8_t*>(state.data());
  for (size_t i = 0; i < state.size(); i += 7) {
    std::string bad = state;
    bad[i] = static_cast<char>(bad[i] ^ 0x5A);
    auto restored = StreamPacker::Restore(
        absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(bad.data()), bad.size()), nullptr);
    EXPECT_FALSE(restored.ok()) << "flipped byte " << i;
  }
  for (size_t size : {size_t{0}, size_t{7}, size_t{40}, state.size() - 1}) {
    EXPECT_FALSE(StreamPacker::Restore(absl::MakeConstSpan(bytes, size), nullptr).ok());
  }
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<uint8_t> noise(rng.Below(300));
    for (uint8_t& b : noise) b = static_cast<uint8_t>(rng.Below(256));
    EXPECT_FALSE(StreamPacker::Restore(noise, nullptr).ok());
  }
}

TEST(StreamPackerTest, BadInput) {
  EXPECT_FALSE(StreamPacker::Create({0, 10, Overflow::kError, 0}, nullptr).ok());
  EXPECT_FALSE(StreamPacker::Create({100, 0, Overflow::kError, 0}, nullptr).ok());
  EXPECT_FALSE(
      StreamPacker::Create({kMaxStreamCapacity + 1, 10, Overflow::kError, 0}, nullptr).ok());
  EXPECT_EQ(StreamPacker::Create({100, 10, Overflow::kDefer, 0}, nullptr).status().message(),
            "overflow = defer: the stream packer takes error, truncate or split");
  auto packer = MakePacker(100, 10, Overflow::kError);
  const std::vector<int64_t> over = {5, 101};
  absl::Status status = packer->Push(over);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("lengths[1] = 101 exceeds the capacity 100"), std::string::npos);
  EXPECT_EQ(packer->documents_pushed(), 0u);  // nothing of the failed call
  const std::vector<int64_t> zero = {0};
  EXPECT_FALSE(packer->Push(zero).ok());
}

TEST(StreamPackerTest, SplitAndTruncateAreCounted) {
  auto split = MakePacker(100, 4, Overflow::kSplit);
  const std::vector<int64_t> lengths = {250, 30, 100};
  ASSERT_TRUE(split->Push(lengths).ok());
  EXPECT_EQ(split->split_documents(), 1u);
  auto taken = split->Take();
  ASSERT_TRUE(taken.ok());
  EXPECT_EQ(taken->metrics().split_items, 1u);
  EXPECT_EQ(split->Take()->metrics().split_items, 0u);  // counted once
  ASSERT_TRUE(split->Flush().ok());
  auto rest = split->Take();
  // 250 -> 100 + 100 + 50: three documents, five pieces, all taken by now.
  EXPECT_EQ(taken->metrics().num_items + rest->metrics().num_items, 3u);
  auto truncate = MakePacker(100, 4, Overflow::kTruncate);
  ASSERT_TRUE(truncate->Push(lengths).ok());
  EXPECT_EQ(truncate->truncated_documents(), 1u);
  EXPECT_EQ(truncate->truncated_tokens(), 150);
}

}  // namespace
}  // namespace flopspack::pack
