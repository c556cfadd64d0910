#include "pack/binpack/packer.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "cost/polynomial.h"
#include "gtest/gtest.h"
#include "pack/primitives/pack_test_util.h"
#include "util/random.h"

namespace flopspack::pack {
namespace {

constexpr PackAlgorithm kPackAlgorithms[] = {
    PackAlgorithm::kBestFitDecreasing, PackAlgorithm::kFirstFitDecreasing, PackAlgorithm::kNextFit,
    PackAlgorithm::kShuffledFirstFit};

// Every document's pieces sum to its (possibly truncated) length, no
// document twice in one sequence, sequences within capacity, costs from the
// model, metrics consistent.
void ExpectValidPack(const Plan& plan, absl::Span<const int64_t> lengths,
                     const PackOptions& options, const cost::CostModel* model) {
  const int64_t c = options.capacity;
  std::vector<int64_t> placed(lengths.size(), 0);
  std::vector<int> pieces(lengths.size(), 0);
  int64_t real = 0;
  for (size_t g = 0; g < plan.group_count(); ++g) {
    const auto items = plan.group_items(g);
    const auto tokens = plan.group_tokens(g);
    ASSERT_FALSE(items.empty());
    std::vector<int64_t> sorted(items.begin(), items.end());
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end());
    int64_t sum = 0;
    for (size_t j = 0; j < items.size(); ++j) {
      ASSERT_GE(items[j], 0);
      ASSERT_LT(items[j], static_cast<int64_t>(lengths.size()));
      ASSERT_GT(tokens[j], 0);
      placed[items[j]] += tokens[j];
      ++pieces[items[j]];
      sum += tokens[j];
    }
    EXPECT_LE(sum, c);
    EXPECT_EQ(plan.group_real_tokens(g), sum);
    EXPECT_EQ(plan.group_computed_tokens(g), c);
    const double expected = model ? *model->SequenceCost(tokens) : static_cast<double>(sum);
    EXPECT_DOUBLE_EQ(plan.group_cost(g), expected);
    real += sum;
  }
  uint64_t split = 0, truncated = 0;
  int64_t truncated_tokens = 0;
  for (size_t i = 0; i < lengths.size(); ++i) {
    if (lengths[i] <= c) {
      EXPECT_EQ(placed[i], lengths[i]);
      EXPECT_EQ(pieces[i], 1);
    } else if (options.overflow == Overflow::kTruncate) {
      EXPECT_EQ(placed[i], c);
      ++truncated;
      truncated_tokens += lengths[i] - c;
    } else {
      EXPECT_EQ(placed[i], lengths[i]);
      EXPECT_EQ(pieces[i], (lengths[i] + c - 1) / c);
      ++split;
    }
  }
  const PlanMetrics& m = plan.metrics();
  EXPECT_EQ(m.num_groups, plan.group_count());
  EXPECT_EQ(m.num_items, lengths.size());
  EXPECT_EQ(m.real_tokens, real);
  EXPECT_EQ(m.capacity, c);
  EXPECT_EQ(m.split_items, split);
  EXPECT_EQ(m.truncated_items, truncated);
  EXPECT_EQ(m.truncated_tokens, truncated_tokens);
  if (plan.group_count() > 0) {
    EXPECT_DOUBLE_EQ(m.fill, static_cast<double>(real) / (plan.group_count() * c));
    EXPECT_DOUBLE_EQ(m.padding_efficiency, m.fill);
  }
}

// The packer sets the piece offsets when every item is a whole document
// (all zero); they equal what Plan::FillPieceOffsets derives for the same
// groups, and plans with pieces are left to it.
TEST(PackerTest, PieceOffsetsMatchTheConvention) {
  util::Rng rng(7);
  auto uniform = [&](int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(rng.Below(static_cast<uint64_t>(hi - lo + 1)));
  };
  for (int trial = 0; trial < 40; ++trial) {
    const int64_t capacity = 50 + uniform(0, 200);
    std::vector<int64_t> lengths(static_cast<size_t>(uniform(1, 300)));
    const bool longer = trial % 2 == 1;  // some documents over the capacity
    for (int64_t& l : lengths) l = uniform(1, longer ? 3 * capacity : capacity);
    for (PackAlgorithm algorithm : kPackAlgorithms) {
      PackOptions options;
      options.capacity = capacity;
      options.algorithm = algorithm;
      options.overflow = Overflow::kSplit;
      absl::StatusOr<Plan> plan = Pack(lengths, options);
      ASSERT_TRUE(plan.ok()) << plan.status();
      const bool whole = *std::max_element(lengths.begin(), lengths.end()) <= capacity;
      ASSERT_EQ(plan->has_piece_offsets(), whole);
      Plan derived;
      for (size_t g = 0; g < plan->group_count(); ++g) {
        derived.AddGroup(plan->group_items(g), plan->group_tokens(g),
                         plan->group_computed_tokens(g), plan->group_cost(g));
      }
      derived.FillPieceOffsets();
      plan->FillPieceOffsets();
      for (size_t g = 0; g < plan->group_count(); ++g) {
        const auto got = plan->group_piece_offsets(g), want = derived.group_piece_offsets(g);
        ASSERT_EQ(std::vector<int64_t>(got.begin(), got.end()),
                  std::vector<int64_t>(want.begin(), want.end()));
      }
    }
  }
}

TEST(PackerTest, InvariantsOverRandomCases) {
  util::Rng rng(51);
  const std::shared_ptr<cost::CostModel> quadratic = *cost::PolynomialModel::Create({3, 1, 2, 0.5});
  for (int trial = 0; trial < 4000; ++trial) {
    PackOptions options;
    options.algorithm = kPackAlgorithms[trial % 4];
    options.overflow = static_cast<Overflow>(1 + rng.Below(2));
    options.capacity = 1 + static_cast<int64_t>(rng.Below(100));
    options.seed = rng.Next();
    options.cost_model = rng.Below(2) ? quadratic.get() : nullptr;
    std::vector<int64_t> lengths(rng.Below(80));
    for (int64_t& l : lengths) l = 1 + static_cast<int64_t>(rng.Below(2 * options.capacity + 5));
    SCOPED_TRACE(::testing::Message() << "trial " << trial);
    absl::StatusOr<Plan> plan = Pack(lengths, options);
    ASSERT_TRUE(plan.ok()) << plan.status();
    ExpectValidPack(*plan, lengths, options, options.cost_model);
  }
}

TEST(PackerTest, SameSeedSamePlanDifferentSeedDifferentShuffle) {
  const std::vector<int64_t> lengths = test_util::LognormalLengths(3000, 500, 8192, 2);
  PackOptions options;
  options.algorithm = PackAlgorithm::kShuffledFirstFit;
  options.capacity = 8192;
  options.seed = 7;
  const Plan a = *Pack(lengths, options), b = *Pack(lengths, options);
  options.seed = 8;
  const Plan c = *Pack(lengths, options);
  ASSERT_EQ(a.group_count(), b.group_count());
  bool differs = a.group_count() != c.group_count();
  for (size_t g = 0; g < a.group_count(); ++g) {
    EXPECT_EQ(std::vector<int64_t>(a.group_items(g).begin(), a.group_items(g).end()),
              std::vector<int64_t>(b.group_items(g).begin(), b.group_items(g).end()));
    if (!differs && g < c.group_count()) {
      differs = !std::equal(a.group_items(g).begin(), a.group_items(g).end(),
                            c.group_items(g).begin(), c.group_items(g).end());
    }
  }
  EXPECT_TRUE(differs);
}

TEST(PackerTest, NextFitConcatenatesInOrderAndSplitsLongDocuments) {
  const std::vector<int64_t> lengths = {6, 3, 25, 4};
  PackOptions options;
  options.algorithm = PackAlgorithm::kNextFit;
  options.capacity = 10;
  options.overflow = Overflow::kSplit;
  const Plan plan = *Pack(lengths, options);
  // Pieces in order: 6 3 | 10 | 10 | 5 4.
  ASSERT_EQ(plan.group_count(), 4u);
  EXPECT_EQ(std::vector<int64_t>(plan.group_items(0).begin(), plan.group_items(0).end()),
            (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(std::vector<int64_t>(plan.group_tokens(3).begin(), plan.group_tokens(3).end()),
            (std::vector<int64_t>{5, 4}));
  EXPECT_EQ(plan.metrics().split_items, 1u);
  options.overflow = Overflow::kTruncate;
  const Plan truncated = *Pack(lengths, options);
  EXPECT_EQ(truncated.metrics().truncated_items, 1u);
  EXPECT_EQ(truncated.metrics().truncated_tokens, 15);
  EXPECT_EQ(truncated.metrics().real_tokens, 6 + 3 + 10 + 4);
}

TEST(PackerTest, BadInput) {
  PackOptions options;
  options.capacity = 10;
  const std::vector<int64_t> long_doc = {3, 11};
  EXPECT_EQ(Pack(long_doc, options).status().message(),
            "lengths[1] = 11 exceeds capacity = 10: choose the truncate or split overflow "
            "policy to pack documents longer than a sequence");
  const std::vector<int64_t> zero = {3, 0};
  EXPECT_EQ(Pack(zero, options).status().message(),
            "lengths[1] = 0: every length must be positive");
  options.capacity = 0;
  EXPECT_EQ(Pack(long_doc, options).status().message(),
            "capacity = 0: the sequence capacity in tokens must be positive");
  options.capacity = 10;
  // Enum values out of range are the C layer's to reject (tests/capi,
  // ErrorsTest); the core rejects the policy packing does not offer.
  options.overflow = Overflow::kDefer;
  EXPECT_EQ(Pack(long_doc, options).status().message(),
            "overflow = defer: sequence packing takes error, truncate or split");
}

TEST(PackerTest, EmptyInputGivesAnEmptyPlan) {
  PackOptions options;
  options.capacity = 16;
  const Plan plan = *Pack({}, options);
  EXPECT_EQ(plan.group_count(), 0u);
  EXPECT_EQ(plan.metrics().real_tokens, 0);
}

}  // namespace
}  // namespace flopspack::pack
