#include "pack/context_parallel/context_parallel.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "cost/custom.h"
#include "cost/polynomial.h"
#include "cost/transformer.h"
#include "gtest/gtest.h"
#include "support/cases.h"
#include "util/random.h"

namespace flopspack::pack {
namespace {

// Document cost = l(l+1)/2 = the causal attention pairs of l tokens, so a
// chunk's cost is the number of pairs whose query it holds.
std::unique_ptr<cost::PolynomialModel> PairCount() {
  return *cost::PolynomialModel::Create({0, 0, 0.5, 0.5});
}

std::unique_ptr<cost::TransformerModel> SmallTransformer(bool causal) {
  cost::TransformerShape s;
  s.num_layers = 2;
  s.hidden_size = 64;
  s.num_attention_heads = 4;
  s.num_key_value_heads = 2;
  s.intermediate_size = 160;
  s.vocab_size = 100;
  s.gated_mlp = true;
  s.causal = causal;
  return *cost::TransformerModel::Create(s);
}

// Llama-2-7B's shape (as benchmarks/planner_data.h).
std::unique_ptr<cost::TransformerModel> SevenB() {
  cost::TransformerShape s;
  s.num_layers = 32;
  s.hidden_size = 4096;
  s.num_attention_heads = 32;
  s.num_key_value_heads = 32;
  s.intermediate_size = 11008;
  s.vocab_size = 32000;
  s.gated_mlp = true;
  return *cost::TransformerModel::Create(s);
}

// A plan of random groups of random pieces (items reused across groups as
// pieces, offsets from FillPieceOffsets).
Plan RandomPlan(util::Rng& rng, size_t groups, int64_t max_length) {
  Plan plan;
  int64_t next_item = 0;
  for (size_t g = 0; g < groups; ++g) {
    std::vector<int64_t> items, tokens;
    const size_t n = rng.Below(6);
    for (size_t k = 0; k < n; ++k) {
      items.push_back(next_item++);
      tokens.push_back(1 + static_cast<int64_t>(rng.Below(static_cast<uint64_t>(max_length))));
    }
    int64_t sum = 0;
    for (int64_t t : tokens) sum += t;
    plan.AddGroup(items, tokens, sum, static_cast<double>(sum));
  }
  plan.FillPieceOffsets();
  return plan;
}

// For group g: every (item, token) covered exactly once by its chunks, and
// exactly the tokens of the group's pieces.
void ExpectTiles(const Plan& plan, const CpShard& shard, size_t g) {
  std::map<int64_t, std::map<int64_t, int>> want, got;
  for (size_t k = 0; k < plan.group_items(g).size(); ++k) {
    for (int64_t t = 0; t < plan.group_tokens(g)[k]; ++t) {
      ++want[plan.group_items(g)[k]][plan.group_piece_offsets(g)[k] + t];
    }
  }
  for (int64_t r = 0; r < shard.context_parallel_size; ++r) {
    const size_t i = shard.Index(g, r);
    for (int64_t e = shard.offsets[i]; e < shard.offsets[i + 1]; ++e) {
      const auto ee = static_cast<size_t>(e);
      ASSERT_GT(shard.lengths[ee], 0) << "empty chunk";
      for (int64_t t = 0; t < shard.lengths[ee]; ++t) {
        ++got[shard.items[ee]][shard.chunk_offsets[ee] + t];
      }
    }
  }
  EXPECT_EQ(want, got) << "group " << g;
}

// Brute force: the causal pairs (query, key) with key <= query inside the
// query's piece, counted one by one, per CP rank; and the key/value tokens
// each CP rank needs but does not hold.
struct Brute {
  std::vector<double> pairs;
  std::vector<int64_t> kv;
};
Brute BruteForce(const Plan& plan, const CpShard& shard, size_t g) {
  // Which piece (entry) each (item, token) belongs to, and the piece start.
  std::map<std::pair<int64_t, int64_t>, int64_t> piece_start;
  for (size_t k = 0; k < plan.group_items(g).size(); ++k) {
    for (int64_t t = 0; t < plan.group_tokens(g)[k]; ++t) {
      const int64_t o = plan.group_piece_offsets(g)[k];
      piece_start[{plan.group_items(g)[k], o + t}] = o;
    }
  }
  Brute out;
  for (int64_t r = 0; r < shard.context_parallel_size; ++r) {
    const size_t i = shard.Index(g, r);
    double pairs = 0;
    std::set<std::pair<int64_t, int64_t>> held, needed;
    for (int64_t e = shard.offsets[i]; e < shard.offsets[i + 1]; ++e) {
      const auto ee = static_cast<size_t>(e);
      for (int64_t t = 0; t < shard.lengths[ee]; ++t) {
        const int64_t item = shard.items[ee], query = shard.chunk_offsets[ee] + t;
        held.insert({item, query});
        for (int64_t key = piece_start[{item, query}]; key <= query; ++key) {
          pairs += 1;
          needed.insert({item, key});
        }
      }
    }
    int64_t kv = 0;
    for (const auto& key : needed) kv += held.count(key) == 0 ? 1 : 0;
    out.pairs.push_back(pairs);
    out.kv.push_back(kv);
  }
  return out;
}

TEST(ContextParallelTest, CostsAndTrafficMatchBruteForce) {
  util::Rng rng(7);
  const auto model = PairCount();
  // Under a sanitizer 10 plans (support/cases.h): each still sharded at 5
  // CP degrees x 3 layouts and compared exactly, group by group.
  const int trials = test_support::CasesUnderSanitizer(30, 10);
  for (int trial = 0; trial < trials; ++trial) {
    const Plan plan = RandomPlan(rng, 4, 40);
    for (int64_t c : {1, 2, 3, 4, 8}) {
      for (CpLayout layout :
           {CpLayout::kSequenceHeadTail, CpLayout::kDocumentHeadTail, CpLayout::kAdaptive}) {
        absl::StatusOr<CpShard> shard = ShardContextParallel(plan, *model, c, layout);
        ASSERT_TRUE(shard.ok()) << shard.status();
        ASSERT_EQ(shard->group_count(), plan.group_count());
        for (size_t g = 0; g < plan.group_count(); ++g) {
          ExpectTiles(plan, *shard, g);
          const Brute brute = BruteForce(plan, *shard, g);
          for (int64_t r = 0; r < c; ++r) {
            EXPECT_EQ(shard->costs[shard->Index(g, r)], brute.pairs[static_cast<size_t>(r)])
                << "group " << g << " cp rank " << r << " C " << c;
            EXPECT_EQ(shard->kv_tokens[shard->Index(g, r)], brute.kv[static_cast<size_t>(r)]);
          }
        }
      }
    }
  }
}

TEST(ContextParallelTest, TransformerChunksMatchPairCounts) {
  // Transformer chunk cost = m (dense x queries + per-score x pairs), pairs
  // counted one by one; without the causal mask every query sees the piece.
  for (bool causal : {true, false}) {
    const auto model = SmallTransformer(causal);
    Plan plan;
    const std::vector<int64_t> items = {0, 1, 2}, tokens = {13, 1, 30};
    plan.AddGroup(items, tokens, 44, 0);
    plan.FillPieceOffsets();
    absl::StatusOr<CpShard> shard = ShardContextParallel(plan, *model, 3, CpLayout::kAdaptive);
    ASSERT_TRUE(shard.ok()) << shard.status();
    double total = 0;
    for (int64_t r = 0; r < 3; ++r) {
      const size_t i = shard->Index(0, r);
      double pairs = 0, queries = 0;
      for (int64_t e = shard->offsets[i]; e < shard->offsets[i + 1]; ++e) {
        const auto ee = static_cast<size_t>(e);
        const int64_t piece = tokens[static_cast<size_t>(shard->items[ee])];
        for (int64_t q = shard->chunk_offsets[ee];
             q < shard->chunk_offsets[ee] + shard->lengths[ee]; ++q) {
          queries += 1;
          for (int64_t key = 0; key < piece; ++key) pairs += (causal && key > q) ? 0 : 1;
        }
      }
      const double want =
          model->training_multiplier() * (model->dense_forward_flops_per_token() * queries +
                                          model->AttentionForwardFlops(1) * pairs);
      EXPECT_NEAR(shard->costs[i], want, 1e-12 * want) << "causal " << causal << " r " << r;
      total += shard->costs[i];
    }
    // The CP ranks together cost what the sequence costs.
    const double sequence = *model->SequenceCost(tokens);
    EXPECT_NEAR(total, sequence, 1e-12 * sequence);
  }
}

TEST(ContextParallelTest, PrefixRuleOfTheBaseClassMatchesClosedForms) {
  // A custom model computing the same polynomial goes through the base
  // class's prefix rule: same chunk costs as the closed form.
  const auto poly = *cost::PolynomialModel::Create({0, 3, 2, 0.25});
  cost::CustomModel custom([&](absl::Span<const int64_t> l) { return poly->SequenceCost(l); });
  for (int64_t length : {1, 7, 100}) {
    for (int64_t begin = 0; begin <= length; begin += 3) {
      for (int64_t end = begin; end <= length; end += 5) {
        EXPECT_NEAR(*custom.DocumentChunkCost(length, begin, end),
                    *poly->DocumentChunkCost(length, begin, end), 1e-9);
      }
    }
  }
  // Chunks that tile a document sum to its cost (per_document once).
  EXPECT_DOUBLE_EQ(*poly->DocumentChunkCost(10, 0, 4) + *poly->DocumentChunkCost(10, 4, 10),
                   poly->Document(10));
}

TEST(ContextParallelTest, HeadTailEvensOneDocument) {
  // One document of 2C x q tokens: both layouts give every CP rank the same
  // pair count; the naive split (C equal chunks) would not.
  const auto model = PairCount();
  for (int64_t c : {2, 4, 8}) {
    Plan plan;
    const std::vector<int64_t> items = {0}, tokens = {2 * c * 16};
    plan.AddGroup(items, tokens, tokens[0], 0);
    for (CpLayout layout : {CpLayout::kSequenceHeadTail, CpLayout::kDocumentHeadTail}) {
      absl::StatusOr<CpShard> shard = ShardContextParallel(plan, *model, c, layout);
      ASSERT_TRUE(shard.ok());
      EXPECT_DOUBLE_EQ(shard->metrics.balance_efficiency, 1.0);
      // Rank 0 holds the first and last chunk.
      EXPECT_EQ(shard->chunk_offsets[0], 0);
      EXPECT_EQ(shard->chunk_offsets[1], (2 * c - 1) * 16);
    }
  }
}

TEST(ContextParallelTest, PackedDocumentsNeedTheDocumentLayout) {
  // One long document and many short ones: the per-sequence split is uneven;
  // the per-document split is even to the remainder tokens, and adaptive
  // takes it.
  util::Rng rng(3);
  const auto model = PairCount();
  std::vector<int64_t> items, tokens;
  for (int64_t k = 0; k < 40; ++k) {
    items.push_back(k);
    tokens.push_back(k == 0 ? 3000 : 50 + static_cast<int64_t>(rng.Below(200)));
  }
  Plan plan;
  plan.AddGroup(items, tokens, 0, 0);
  for (int64_t c : {2, 4, 8}) {
    const CpShard seq = *ShardContextParallel(plan, *model, c, CpLayout::kSequenceHeadTail);
    const CpShard doc = *ShardContextParallel(plan, *model, c, CpLayout::kDocumentHeadTail);
    const CpShard ada = *ShardContextParallel(plan, *model, c, CpLayout::kAdaptive);
    EXPECT_LT(seq.metrics.balance_efficiency, 0.9) << c;
    // Pure attention work: a remainder token costs its position, so the
    // remainders leave a few per mille.
    EXPECT_GT(doc.metrics.balance_efficiency, 0.995) << c;
    // With the dense work of a 7B-class model beside it, the target 99.9%.
    const CpShard doc_7b = *ShardContextParallel(plan, *SevenB(), c, CpLayout::kDocumentHeadTail);
    EXPECT_GT(doc_7b.metrics.balance_efficiency, 0.999) << c;
    EXPECT_LT(ShardContextParallel(plan, *SevenB(), c, CpLayout::kSequenceHeadTail)
                  ->metrics.balance_efficiency,
              doc_7b.metrics.balance_efficiency)
        << c;
    EXPECT_EQ(ada.layouts[0], CpLayout::kDocumentHeadTail);
    EXPECT_EQ(ada.metrics.max_cp_rank_cost, doc.metrics.max_cp_rank_cost);
    EXPECT_EQ(ada.metrics.document_layout_groups, 1u);
    // Per-document sharding pays in key/value traffic.
    EXPECT_GT(doc.metrics.kv_tokens, seq.metrics.kv_tokens);
  }
}

TEST(ContextParallelTest, AdaptivePicksTheLowerMaxAndPrefersSequenceOnTies) {
  util::Rng rng(11);
  const auto model = PairCount();
  for (int trial = 0; trial < 20; ++trial) {
    const Plan plan = RandomPlan(rng, 6, 300);
    const CpShard seq = *ShardContextParallel(plan, *model, 4, CpLayout::kSequenceHeadTail);
    const CpShard doc = *ShardContextParallel(plan, *model, 4, CpLayout::kDocumentHeadTail);
    const CpShard ada = *ShardContextParallel(plan, *model, 4, CpLayout::kAdaptive);
    for (size_t g = 0; g < plan.group_count(); ++g) {
      double max_seq = 0, max_doc = 0, max_ada = 0;
      for (int64_t r = 0; r < 4; ++r) {
        max_seq = std::max(max_seq, seq.costs[seq.Index(g, r)]);
        max_doc = std::max(max_doc, doc.costs[doc.Index(g, r)]);
        max_ada = std::max(max_ada, ada.costs[ada.Index(g, r)]);
      }
      EXPECT_EQ(max_ada, std::min(max_seq, max_doc));
      EXPECT_EQ(ada.layouts[g],
                max_doc < max_seq ? CpLayout::kDocumentHeadTail : CpLayout::kSequenceHeadTail);
    }
    EXPECT_EQ(ada.metrics.sequence_layout_groups + ada.metrics.document_layout_groups,
              plan.group_count());
  }
}

TEST(ContextParallelTest, ShortDocumentsGiveFewerChunksStillTiling) {
  // Documents shorter than 2C tokens: some CP ranks get no chunk of them;
  // no empty chunk is listed and the remainders rotate across documents.
  const auto model = PairCount();
  Plan plan;
  const std::vector<int64_t> items = {0, 1, 2, 3, 4, 5, 6, 7}, tokens = {1, 1, 1, 1, 1, 1, 1, 1};
  plan.AddGroup(items, tokens, 8, 0);
  plan.FillPieceOffsets();
  const CpShard shard = *ShardContextParallel(plan, *model, 8, CpLayout::kDocumentHeadTail);
  ExpectTiles(plan, shard, 0);
  // Eight one-token documents on eight CP ranks: one each.
  for (int64_t r = 0; r < 8; ++r) EXPECT_EQ(shard.costs[shard.Index(0, r)], 1.0) << r;
  EXPECT_EQ(shard.metrics.num_chunks, 8u);
}

TEST(ContextParallelTest, SequenceOverheadOnEveryCpRank) {
  const auto model = *cost::PolynomialModel::Create({5, 0, 1, 0});
  Plan plan;
  const std::vector<int64_t> items = {0}, tokens = {8};
  plan.AddGroup(items, tokens, 8, 0);
  plan.AddGroup({}, {}, 0, 0);
  const CpShard shard = *ShardContextParallel(plan, *model, 2, CpLayout::kAdaptive);
  EXPECT_EQ(shard.costs[shard.Index(0, 0)], 5 + 4);
  EXPECT_EQ(shard.costs[shard.Index(0, 1)], 5 + 4);
  // An empty sequence costs nothing on any CP rank.
  EXPECT_EQ(shard.costs[shard.Index(1, 0)], 0);
  EXPECT_EQ(shard.offsets.size(), 2u * 2 + 1);
}

TEST(ContextParallelTest, PiecesAttendWithinThemselvesAndKeepTheirOffsets) {
  // Item 0 split into pieces [0, 10) in group 0 and [10, 16) in group 1:
  // the second piece's chunks start at offset 10 and cost as a 6-token
  // document.
  const auto model = PairCount();
  Plan plan;
  plan.AddGroup(std::vector<int64_t>{0}, std::vector<int64_t>{10}, 10, 0);
  plan.AddGroup(std::vector<int64_t>{0, 1}, std::vector<int64_t>{6, 2}, 8, 0);
  const CpShard shard = *ShardContextParallel(plan, *model, 1, CpLayout::kDocumentHeadTail);
  EXPECT_EQ(shard.costs[shard.Index(1, 0)], 6 * 7 / 2 + 3);
  const size_t first = static_cast<size_t>(shard.offsets[shard.Index(1, 0)]);
  EXPECT_EQ(shard.items[first], 0);
  EXPECT_EQ(shard.chunk_offsets[first], 10);
}

TEST(ContextParallelTest, Deterministic) {
  util::Rng rng(5);
  const auto model = SmallTransformer(true);
  const Plan plan = RandomPlan(rng, 10, 500);
  const CpShard a = *ShardContextParallel(plan, *model, 4, CpLayout::kAdaptive);
  const CpShard b = *ShardContextParallel(plan, *model, 4, CpLayout::kAdaptive);
  EXPECT_EQ(a.items, b.items);
  EXPECT_EQ(a.chunk_offsets, b.chunk_offsets);
  EXPECT_EQ(a.lengths, b.lengths);
  EXPECT_EQ(a.costs, b.costs);
  EXPECT_EQ(a.layouts, b.layouts);
}

TEST(ContextParallelTest, BadInput) {
  const auto model = PairCount();
  Plan plan;
  plan.AddGroup(std::vector<int64_t>{0}, std::vector<int64_t>{4}, 4, 0);
  EXPECT_EQ(ShardContextParallel(plan, *model, 0, CpLayout::kAdaptive).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ShardContextParallel(plan, *model, -2, CpLayout::kAdaptive).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ShardContextParallel(plan, *model, kMaxContextParallelSize + 1, CpLayout::kAdaptive)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  cost::CustomModel custom([](absl::Span<const int64_t> l) -> absl::StatusOr<double> {
    return static_cast<double>(l.size());
  });
  EXPECT_EQ(ShardContextParallel(plan, custom, 2, CpLayout::kAdaptive).status().code(),
            absl::StatusCode::kInvalidArgument);
  cost::TransformerShape s;
  s.num_layers = s.hidden_size = s.num_attention_heads = s.num_key_value_heads = 1;
  s.intermediate_size = 1;
  s.attention_span = cost::AttentionSpan::kSequence;
  EXPECT_EQ(ShardContextParallel(plan, **cost::TransformerModel::Create(s), 2, CpLayout::kAdaptive)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace flopspack::pack
