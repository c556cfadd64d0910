#include "pack/buckets/bucket_stream.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "gtest/gtest.h"
#include "stats/length_reference.h"
#include "util/random.h"

namespace flopspack::pack {
namespace {

// A long-tailed pipeline mix up to 8K (Pareto 1.3 from 300), shuffled order.
std::vector<int64_t> Lengths(size_t n, uint64_t seed) {
  util::Rng rng(seed);
  std::vector<int64_t> v(n);
  for (int64_t& l : v) {
    l = std::min<int64_t>(8192, static_cast<int64_t>(300 / std::pow(1 - rng.Uniform(), 1 / 1.3)));
  }
  return v;
}

BucketSamplerOptions Options() {
  BucketSamplerOptions o;
  o.max_padded_tokens = 49152;
  o.num_ranks = 8;
  o.seed = 5;
  return o;
}

// Pushes everything in slices of `slice`, taking steps whenever the buffer
// is full; returns every step.
std::vector<Plan> Drain(BucketStream& s, const std::vector<int64_t>& lengths, size_t slice) {
  std::vector<Plan> steps;
  size_t at = 0;
  while (at < lengths.size()) {
    const size_t n = std::min(slice, lengths.size() - at);
    absl::StatusOr<size_t> accepted = s.Push(absl::MakeConstSpan(lengths).subspan(at, n));
    EXPECT_TRUE(accepted.ok()) << accepted.status();
    if (!accepted.ok()) return steps;
    at += *accepted;
    while (*s.Ready() > 0) steps.push_back(*s.Take());
  }
  EXPECT_TRUE(s.Flush().ok());
  while (*s.Ready() > 0) steps.push_back(*s.Take());
  EXPECT_EQ(s.Take().status().code(), absl::StatusCode::kOutOfRange);
  return steps;
}

TEST(BucketStreamTest, EverySampleOnceWithinBudgetAndDeterministic) {
  const std::vector<int64_t> lengths = Lengths(23456, 1);
  BucketSamplerOptions o = Options();
  o.accumulation_steps = 2;
  auto a = BucketStream::Create(o, nullptr, 5000);
  auto b = BucketStream::Create(o, nullptr, 5000);
  ASSERT_TRUE(a.ok() && b.ok());
  const std::vector<Plan> sa = Drain(**a, lengths, 777);
  const std::vector<Plan> sb = Drain(**b, lengths, 10000);  // other slices, same steps
  ASSERT_EQ(sa.size(), sb.size());
  std::vector<int> seen(lengths.size(), 0);
  for (size_t t = 0; t < sa.size(); ++t) {
    ASSERT_EQ(sa[t].group_count(), 16u);
    for (size_t g = 0; g < sa[t].group_count(); ++g) {
      ASSERT_TRUE(std::equal(sa[t].group_items(g).begin(), sa[t].group_items(g).end(),
                             sb[t].group_items(g).begin(), sb[t].group_items(g).end()));
      EXPECT_LE(sa[t].group_computed_tokens(g), 49152);
      EXPECT_EQ(sa[t].group_slot(g) / 2, static_cast<int64_t>(t));
      int64_t longest = 0;
      for (size_t k = 0; k < sa[t].group_items(g).size(); ++k) {
        const int64_t i = sa[t].group_items(g)[k];
        ++seen[i];
        EXPECT_EQ(sa[t].group_tokens(g)[k], lengths[i]);
        longest = std::max(longest, lengths[i]);
      }
      EXPECT_EQ(sa[t].group_computed_tokens(g),
                longest * static_cast<int64_t>(sa[t].group_items(g).size()));
    }
  }
  for (int64_t i : (*a)->leftover()) ++seen[i];
  for (size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i], 1) << "sample " << i;
  // The tail chunk (3,456 samples) forms steps too: nothing left over.
  EXPECT_TRUE((*a)->leftover().empty());
  EXPECT_EQ((*a)->pushed(), 23456);
}

TEST(BucketStreamTest, ResumeByReplayingTheStream) {
  const std::vector<int64_t> lengths = Lengths(12000, 2);
  auto full = BucketStream::Create(Options(), nullptr, 4000);
  ASSERT_TRUE(full.ok());
  const std::vector<Plan> all = Drain(**full, lengths, 1000);
  for (size_t resume : {size_t{1}, all.size() / 2, all.size() - 1}) {
    auto again = BucketStream::Create(Options(), nullptr, 4000);
    ASSERT_TRUE(again.ok());
    const std::vector<Plan> replay = Drain(**again, lengths, 4096);
    ASSERT_EQ(replay.size(), all.size());
    for (size_t t = resume; t < all.size(); ++t) {
      for (size_t g = 0; g < all[t].group_count(); ++g) {
        ASSERT_TRUE(std::equal(all[t].group_items(g).begin(), all[t].group_items(g).end(),
                               replay[t].group_items(g).begin(), replay[t].group_items(g).end()));
      }
    }
  }
}

TEST(BucketStreamTest, WithinAStatedMarginOfTheOfflineSamplerAtBuffer10000) {
  // docs/buckets.md states the margin: padding within 1 point, step balance
  // within 2.5 points (each chunk has its own partial batches), token-
  // weighted step KS (against the whole stream) within 0.02.
  const std::vector<int64_t> lengths = Lengths(60000, 3);
  const BucketSamplerOptions o = Options();
  auto offline = BucketSampler::Create(o, nullptr, lengths);
  ASSERT_TRUE(offline.ok());
  const Plan epoch = *(*offline)->Epoch(0);
  auto stream = BucketStream::Create(o, nullptr, 10000);
  ASSERT_TRUE(stream.ok());
  const std::vector<Plan> steps = Drain(**stream, lengths, 2500);
  const LengthReference whole = *LengthReference::Create(lengths);
  std::vector<uint32_t> scratch;
  double real = 0, padded = 0, mean = 0, slowest = 0, ks = 0;
  for (const Plan& step : steps) {
    std::vector<int64_t> items;
    double total = 0, top = 0;
    for (size_t g = 0; g < step.group_count(); ++g) {
      items.insert(items.end(), step.group_items(g).begin(), step.group_items(g).end());
      for (int64_t t : step.group_tokens(g)) real += static_cast<double>(t);
      padded += static_cast<double>(step.group_computed_tokens(g));
      total += step.group_cost(g);
      top = std::max(top, step.group_cost(g));
    }
    mean += total / 8;
    slowest += top;
    ks += whole.Distance(items, scratch).tokens;
  }
  ks /= static_cast<double>(steps.size());
  const PlanMetrics& m = epoch.metrics();
  EXPECT_NEAR(real / padded, m.padding_efficiency, 0.01);
  EXPECT_NEAR(mean / slowest, m.balance_efficiency, 0.025);
  EXPECT_GE(mean / slowest, 0.97);
  EXPECT_NEAR(ks, m.diversity_distance, 0.02);
  // Roughly the same number of steps (each chunk rounds up to whole steps).
  EXPECT_LE(static_cast<int64_t>(steps.size()), (*offline)->steps_per_epoch() + 6);
}

TEST(BucketStreamTest, TinyTailAndDeferredAreListed) {
  std::vector<int64_t> lengths = Lengths(10003, 4);
  lengths[5] = 100000;  // over the budget
  BucketSamplerOptions o = Options();
  o.overflow = Overflow::kDefer;
  auto s = BucketStream::Create(o, nullptr, 10000);
  ASSERT_TRUE(s.ok());
  const std::vector<Plan> steps = Drain(**s, lengths, 10003);
  EXPECT_EQ((*s)->leftover(), (std::vector<int64_t>{10000, 10001, 10002}));
  EXPECT_EQ((*s)->deferred(), std::vector<int64_t>{5});
  size_t placed = 0;
  for (const Plan& p : steps) {
    for (size_t g = 0; g < p.group_count(); ++g) placed += p.group_items(g).size();
  }
  EXPECT_EQ(placed, lengths.size() - 4);
}

TEST(BucketStreamTest, BadInput) {
  EXPECT_EQ(BucketStream::Create(Options(), nullptr, 0).status().code(),
            absl::StatusCode::kInvalidArgument);
  BucketSamplerOptions o = Options();
  o.num_ranks = 0;
  EXPECT_EQ(BucketStream::Create(o, nullptr, 100).status().code(),
            absl::StatusCode::kInvalidArgument);
  auto s = BucketStream::Create(Options(), nullptr, 100);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ((*s)->Take().status().code(), absl::StatusCode::kOutOfRange);
  ASSERT_TRUE((*s)->Flush().ok());
  const int64_t one = 5;
  EXPECT_EQ((*s)->Push({&one, 1}).status().code(), absl::StatusCode::kFailedPrecondition);
  // An over-budget sample with overflow = error fails its chunk, naming it.
  auto e = BucketStream::Create(Options(), nullptr, 4);
  ASSERT_TRUE(e.ok());
  const std::vector<int64_t> bad = {10, 20, 60000, 30};
  absl::StatusOr<size_t> pushed = (*e)->Push(bad);
  EXPECT_EQ(pushed.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(pushed.status().message().find("chunk 0 (stream samples 0..3): lengths[2] = 60000"),
            std::string::npos)
      << pushed.status();
  EXPECT_EQ((*e)->Push(bad).status().code(), absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace flopspack::pack
