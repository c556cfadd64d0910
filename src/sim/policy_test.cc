#include <algorithm>
#include <map>
#include <numeric>
#include <vector>

#include "gtest/gtest.h"
#include "sim/document_stream.h"
#include "sim/policy.h"
#include "util/random.h"

namespace flopspack::sim {
namespace {

std::vector<int64_t> RandomLengths(util::Rng& rng, size_t n, int64_t max_length) {
  std::vector<int64_t> lengths(n);
  for (int64_t& l : lengths) l = 1 + static_cast<int64_t>(rng.Below(max_length));
  return lengths;
}

TEST(DocumentStreamTest, EveryEpochIsAPermutationAndSeedsAreDeterministic) {
  util::Rng rng(1);
  const auto lengths = RandomLengths(rng, 500, 1000);
  std::vector<int64_t> sorted = lengths;
  std::sort(sorted.begin(), sorted.end());
  DocumentStream s(lengths, 9), same(lengths, 9), other(lengths, 10);
  bool differs = false;
  for (int epoch = 0; epoch < 3; ++epoch) {
    std::vector<int64_t> seen;
    for (size_t i = 0; i < lengths.size(); ++i) {
      seen.push_back(s.Next().length);
      EXPECT_EQ(seen.back(), same.Next().length);
      differs |= seen.back() != other.Next().length;
    }
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(seen, sorted);
    EXPECT_EQ(s.epochs(), static_cast<uint64_t>(epoch + 1));
  }
  EXPECT_TRUE(differs);
  EXPECT_EQ(s.drawn(), 1500u);
}

TEST(RandomDealingTest, FullSequencesThatReassembleTheStream) {
  util::Rng rng(2);
  for (int trial = 0; trial < 300; ++trial) {
    const auto lengths = RandomLengths(rng, 1 + rng.Below(200), 1 + rng.Below(3000));
    const int64_t cap = 1 + static_cast<int64_t>(rng.Below(2000));
    StepShape shape{1 + rng.Below(16), 1 + rng.Below(4), cap, cap};
    auto policy = MakePolicy(PolicyKind::kRandom, shape, trial, lengths, nullptr);
    ASSERT_TRUE(policy.ok());
    DocumentStream stream(lengths, trial), mirror(lengths, trial);
    StepBatch batch;
    int64_t current = mirror.Next().length, consumed = 0;  // the document pieces should add up to
    for (int step = 0; step < 4; ++step) {
      batch.Clear();
      ASSERT_TRUE((*policy)->NextStep(stream, batch).ok());
      ASSERT_EQ(batch.microbatches(), shape.microbatches());
      // order is a permutation of the microbatches.
      std::vector<uint32_t> order = batch.order;
      std::sort(order.begin(), order.end());
      for (size_t m = 0; m < order.size(); ++m) ASSERT_EQ(order[m], m);
      for (size_t m = 0; m < batch.microbatches(); ++m) {
        int64_t tokens = 0;
        for (size_t k = batch.offsets[m]; k < batch.offsets[m + 1]; ++k) {
          const int64_t piece = batch.pieces[k];
          tokens += piece;
          // Pieces follow the stream in order: each is the rest of the
          // current document or the room left, whichever is smaller.
          consumed += piece;
          ASSERT_LE(consumed, current);
          if (consumed == current) {
            current = mirror.Next().length;
            consumed = 0;
          }
        }
        EXPECT_EQ(tokens, shape.tokens_per_microbatch);  // fill 1
      }
    }
  }
}

TEST(TokenBalancedTest, CapsWholeDocumentsConservationAndLptBound) {
  util::Rng rng(3);
  for (int trial = 0; trial < 300; ++trial) {
    const auto lengths = RandomLengths(rng, 1 + rng.Below(300), 1 + rng.Below(5000));
    const int64_t cap = 100 + static_cast<int64_t>(rng.Below(3000));
    StepShape shape{1 + rng.Below(16), 1 + rng.Below(4), cap, cap};
    auto policy = MakePolicy(PolicyKind::kTokenBalanced, shape, 0, lengths, nullptr);
    DocumentStream stream(lengths, trial), mirror(lengths, trial);
    StepBatch batch;
    std::map<int64_t, int64_t> placed;  // piece length -> count, over all steps
    int64_t placed_tokens = 0;
    for (int step = 0; step < 3; ++step) {
      batch.Clear();
      ASSERT_TRUE((*policy)->NextStep(stream, batch).ok());
      ASSERT_EQ(batch.microbatches(), shape.microbatches());
      int64_t most = 0, least = INT64_MAX, largest = 0;
      for (size_t m = 0; m < batch.microbatches(); ++m) {
        int64_t tokens = 0;
        for (size_t k = batch.offsets[m]; k < batch.offsets[m + 1]; ++k) {
          tokens += batch.pieces[k];
          largest = std::max(largest, batch.pieces[k]);
          ++placed[batch.pieces[k]];
        }
        EXPECT_LE(tokens, cap);
        most = std::max(most, tokens);
        least = std::min(least, tokens);
        placed_tokens += tokens;
      }
      // LPT: each piece went to the least-loaded microbatch.
      EXPECT_LE(most - least, largest);
    }
    // Every drawn document appears whole (or as cap-sized pieces plus a
    // rest when longer than cap), except those still pending.
    // Placed pieces are a sub-multiset of the drawn documents cut into
    // cap-sized pieces: nothing invented, nothing placed twice, no document
    // <= cap ever cut.
    std::map<int64_t, int64_t> available;
    int64_t drawn_tokens = 0;
    for (uint64_t i = 0; i < stream.drawn(); ++i) {
      const int64_t l = mirror.Next().length;
      drawn_tokens += l;
      for (int64_t rest = l; rest > 0; rest -= std::min(rest, cap))
        ++available[std::min(rest, cap)];
    }
    for (const auto& [piece, count] : placed) {
      EXPECT_LE(piece, cap);
      EXPECT_LE(count, available[piece]) << "piece " << piece;
    }
    EXPECT_LE(placed_tokens, drawn_tokens);
    // Little is left behind: what did not fit one step's budget plus the
    // rest of the one document that crossed it.
    const int64_t longest = *std::max_element(lengths.begin(), lengths.end());
    EXPECT_GE(placed_tokens,
              drawn_tokens - static_cast<int64_t>(shape.microbatches()) * cap - longest);
  }
}

TEST(PolicyTest, UnknownKindIsRejected) {
  auto p = MakePolicy(static_cast<PolicyKind>(42), StepShape{}, 0, {}, nullptr);
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(p.status().message().find("policy = 42"), std::string::npos);
}

}  // namespace
}  // namespace flopspack::sim
