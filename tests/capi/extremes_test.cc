// Extreme but legal values at every entry point (issue 21): INT64_MAX caps
// and lengths, near-maximum counts, costs near DBL_MAX. Each test is the
// regression test of one finding: the call either succeeds with a valid
// plan (checked: every token placed once, no microbatch over its cap) or
// fails at once with FLOPSPACK_OUT_OF_RANGE and a message naming the
// argument, never with a crash, a wedge or inf/NaN metrics. Run under
// ASan + UBSan in CI.
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "capi_test_util.h"
#include "plan_reader.h"

namespace {

using flopspack_test::Place;
using flopspack_test::Placement;
using flopspack_test::ReadBack;
using flopspack_test::ReadPlan;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

flopspack_cost_model* Tokens() {
  static flopspack_cost_model* model = [] {
    flopspack_cost_model* m = nullptr;
    EXPECT_EQ(flopspack_cost_model_tokens(&m), FLOPSPACK_OK);
    return m;
  }();
  return model;
}

flopspack_step_options Step(uint32_t ranks, uint32_t m, int64_t cap, int32_t algorithm,
                            int32_t overflow = FLOPSPACK_OVERFLOW_SPLIT) {
  flopspack_step_options o;
  flopspack_step_options_init(&o);
  o.num_ranks = ranks;
  o.microbatches_per_rank = m;
  o.max_tokens_per_microbatch = cap;
  o.algorithm = algorithm;
  o.overflow = overflow;
  return o;
}

// Every document's tokens placed exactly once and no group over the cap.
void ExpectStepPlanValid(const flopspack_plan* plan, const std::vector<int64_t>& lengths,
                         int64_t cap) {
  const ReadPlan r = ReadBack(plan);
  const Placement p = Place(r, lengths.size());
  for (size_t i = 0; i < lengths.size(); ++i) {
    EXPECT_EQ(p.tokens[i], lengths[i]) << "document " << i;
  }
  for (size_t g = 0; g < r.real.size(); ++g) EXPECT_LE(r.real[g], cap) << "group " << g;
  EXPECT_TRUE(std::isfinite(r.metrics.rank_balance_efficiency));
  EXPECT_TRUE(std::isfinite(r.metrics.max_rank_cost));
}

// Issue 21 item 1: cap = INT64_MAX made the document planner pick no
// microbatch (an empty one has INT64_MAX free, never below the INT64_MAX
// sentinel) and write mb_tokens[-1]: heap corruption.
TEST(ExtremesTest, StepCapInt64MaxPlansEveryDocument) {
  const std::vector<int64_t> lengths = {5, 7};
  for (int32_t algorithm : {FLOPSPACK_STEP_DOCUMENTS, FLOPSPACK_STEP_TOKENS, FLOPSPACK_STEP_RANDOM,
                            FLOPSPACK_STEP_SEQUENCES}) {
    for (uint32_t m : {0u, 1u, 3u}) {
      for (uint32_t ranks : {1u, 2u}) {
        SCOPED_TRACE(testing::Message()
                     << "algorithm " << algorithm << " M " << m << " R " << ranks);
        flopspack_step_options o = Step(ranks, m, kMax, algorithm);
        flopspack_plan* plan = nullptr;
        if (ranks * m > 1) {
          // R x M x cap must fit int64 (the step's total room).
          EXPECT_FLOPSPACK_ERROR(
              flopspack_plan_step(&o, Tokens(), lengths.data(), lengths.size(), &plan),
              FLOPSPACK_OUT_OF_RANGE, "overflows");
          continue;
        }
        ASSERT_EQ(flopspack_plan_step(&o, Tokens(), lengths.data(), lengths.size(), &plan),
                  FLOPSPACK_OK)
            << flopspack_last_error_message();
        ExpectStepPlanValid(plan, lengths, kMax);
        flopspack_plan_destroy(plan);
      }
    }
  }
  // A document of INT64_MAX tokens at cap INT64_MAX is one item.
  const std::vector<int64_t> one = {kMax};
  flopspack_step_options o = Step(1, 1, kMax, FLOPSPACK_STEP_DOCUMENTS);
  flopspack_plan* plan = nullptr;
  ASSERT_EQ(flopspack_plan_step(&o, Tokens(), one.data(), 1, &plan), FLOPSPACK_OK);
  ExpectStepPlanValid(plan, one, kMax);
  flopspack_plan_destroy(plan);
}

// The same through the stateful planner, and through a state saved with
// that cap and restored (it restored, then corrupted the heap on next()).
TEST(ExtremesTest, StepPlannerCapInt64MaxSurvivesSaveRestore) {
  flopspack_step_options o = Step(1, 0, kMax, FLOPSPACK_STEP_DOCUMENTS);
  flopspack_step_planner_options po;
  flopspack_step_planner_options_init(&po);
  po.tokens_per_step = kMax;
  flopspack_step_planner* planner = nullptr;
  ASSERT_EQ(flopspack_step_planner_create(&o, &po, Tokens(), &planner), FLOPSPACK_OK);
  const std::vector<int64_t> lengths = {5, 7};
  ASSERT_EQ(flopspack_step_planner_push(planner, lengths.data(), 2, nullptr), FLOPSPACK_OK);
  size_t size = 0;
  ASSERT_EQ(flopspack_step_planner_save_size(planner, &size), FLOPSPACK_OK);
  std::vector<char> bytes(size);
  ASSERT_EQ(flopspack_step_planner_save(planner, bytes.data(), size, &size), FLOPSPACK_OK);
  flopspack_step_planner* restored = nullptr;
  ASSERT_EQ(flopspack_step_planner_restore(bytes.data(), size, Tokens(), &restored), FLOPSPACK_OK);
  for (flopspack_step_planner* p : {planner, restored}) {
    flopspack_plan* plan = nullptr;
    ASSERT_EQ(flopspack_step_planner_next(p, &plan), FLOPSPACK_OK)
        << flopspack_last_error_message();
    ExpectStepPlanValid(plan, lengths, kMax);
    flopspack_plan_destroy(plan);
  }
  flopspack_step_planner_destroy(planner);
  flopspack_step_planner_destroy(restored);
}

// Issue 21 item 7: `total / cap + n` overflowed for [INT64_MAX] at cap 1
// (UB), then the planner allocated for 18 s until OUT_OF_MEMORY. Now the
// item count and the microbatch count are checked before anything is made.
TEST(ExtremesTest, PlanStepHugeSplitFailsAtOnce) {
  const int64_t lengths[] = {kMax};
  for (int32_t algorithm : {FLOPSPACK_STEP_DOCUMENTS, FLOPSPACK_STEP_TOKENS, FLOPSPACK_STEP_RANDOM,
                            FLOPSPACK_STEP_SEQUENCES}) {
    flopspack_step_options o = Step(1, 0, 1, algorithm);
    flopspack_plan* plan = nullptr;
    EXPECT_FLOPSPACK_ERROR(flopspack_plan_step(&o, Tokens(), lengths, 1, &plan),
                           FLOPSPACK_OUT_OF_RANGE, "max_tokens_per_microbatch = 1");
    EXPECT_EQ(plan, nullptr);
  }
  // Within the item limit but over the microbatch limit with M = 0.
  const int64_t big[] = {int64_t{1} << 30};
  flopspack_step_options o = Step(4, 0, 1, FLOPSPACK_STEP_DOCUMENTS);
  flopspack_plan* plan = nullptr;
  EXPECT_FLOPSPACK_ERROR(flopspack_plan_step(&o, Tokens(), big, 1, &plan), FLOPSPACK_OUT_OF_RANGE,
                         "the batch needs num_ranks x microbatches_per_rank = 4 x 268435456 "
                         "microbatches of 1 tokens: at most 16777216 per step");
  // With M fixed the same batch simply does not fit.
  o = Step(4, 2, 1, FLOPSPACK_STEP_DOCUMENTS);
  EXPECT_EQ(flopspack_plan_step(&o, Tokens(), big, 1, &plan), FLOPSPACK_INFEASIBLE);
  // Deferred instead of split: nothing is cut, the plan is valid.
  o = Step(1, 0, 1, FLOPSPACK_STEP_DOCUMENTS, FLOPSPACK_OVERFLOW_DEFER);
  const int64_t mixed[] = {kMax - 1, 1};
  ASSERT_EQ(flopspack_plan_step(&o, Tokens(), mixed, 2, &plan), FLOPSPACK_OK);
  const ReadPlan r = ReadBack(plan);
  EXPECT_EQ(r.deferred, std::vector<int64_t>{0});
  EXPECT_EQ(r.metrics.deferred_tokens, kMax - 1);
  EXPECT_EQ(r.metrics.real_tokens, 1);
  flopspack_plan_destroy(plan);
}

// One token more than 2^24 microbatches of cap 1 hold (M = 0) is rejected
// before anything is allocated. (A plan at the limit itself, 2^24
// microbatches, takes about 1.5 GB and seconds to build: measured in
// docs/errors.md, Limits, not run here.)
TEST(ExtremesTest, PlanStepOverTheMicrobatchLimit) {
  const int64_t over[] = {(int64_t{1} << 24) + 1};
  flopspack_step_options o = Step(1 << 12, 0, 1, FLOPSPACK_STEP_TOKENS);
  flopspack_plan* plan = nullptr;
  EXPECT_FLOPSPACK_ERROR(flopspack_plan_step(&o, Tokens(), over, 1, &plan), FLOPSPACK_OUT_OF_RANGE,
                         "4096 x 4097 microbatches of 1 tokens");
  EXPECT_EQ(plan, nullptr);
  // 10^8 ranks (issue 21 item 12: 102 s to OUT_OF_MEMORY) are out of range.
  o = Step(100000000, 0, 4096, FLOPSPACK_STEP_DOCUMENTS);
  const int64_t one[] = {5};
  EXPECT_FLOPSPACK_ERROR(flopspack_plan_step(&o, Tokens(), one, 1, &plan),
                         FLOPSPACK_INVALID_ARGUMENT,
                         "num_ranks = 100000000: must be between 1 and 16777216");
}

// Issue 21 item 6: R = 1, M = 0, cap 1, SPLIT, tokens_per_step 1: pushing
// [2^40, 5] succeeded, then every next() failed ("too many items for one
// step") and the document behind it never ran. The document is rejected at
// push (all or nothing), and documents that each fit but together exceed a
// step's microbatches go in separate steps.
TEST(ExtremesTest, StepPlannerNeverWedges) {
  flopspack_step_options o = Step(1, 0, 1, FLOPSPACK_STEP_DOCUMENTS);
  flopspack_step_planner_options po;
  flopspack_step_planner_options_init(&po);
  po.tokens_per_step = 1;
  flopspack_step_planner* planner = nullptr;
  ASSERT_EQ(flopspack_step_planner_create(&o, &po, Tokens(), &planner), FLOPSPACK_OK);
  const int64_t huge[] = {int64_t{1} << 40, 5};
  EXPECT_FLOPSPACK_ERROR(flopspack_step_planner_push(planner, huge, 2, nullptr),
                         FLOPSPACK_OUT_OF_RANGE, "lengths[0] = 1099511627776");
  uint64_t docs = 7;
  ASSERT_EQ(flopspack_step_planner_pending(planner, &docs, nullptr, nullptr), FLOPSPACK_OK);
  EXPECT_EQ(docs, 0u);  // nothing pushed
  flopspack_step_planner_destroy(planner);

  // A document within the limit is accepted and planned with the one
  // behind it (2^16 tokens at cap 1 on 1024 ranks: 64 microbatches each).
  o.num_ranks = 1024;
  po.tokens_per_step = kMax;
  ASSERT_EQ(flopspack_step_planner_create(&o, &po, Tokens(), &planner), FLOPSPACK_OK);
  const int64_t fits[] = {int64_t{1} << 16, 5};
  ASSERT_EQ(flopspack_step_planner_push(planner, fits, 2, nullptr), FLOPSPACK_OK);
  flopspack_plan* plan = nullptr;
  ASSERT_EQ(flopspack_step_planner_next(planner, &plan), FLOPSPACK_OK)
      << flopspack_last_error_message();
  ExpectStepPlanValid(plan, {int64_t{1} << 16, 5}, 1);
  flopspack_plan_destroy(plan);
  flopspack_step_planner_destroy(planner);
}

}  // namespace

namespace {

// Each document costs 1e308 (finite); several in one sequence are refused
// by the custom model's own finiteness check, so callers keep one document
// per sequence and only the library's sums overflow.
int HugeCost(void*, const int64_t*, size_t n, double* out) {
  *out = 1e308 * static_cast<double>(n);
  return 0;
}
flopspack_cost_model* Huge() {
  static flopspack_cost_model* model = [] {
    flopspack_cost_model* m = nullptr;
    EXPECT_EQ(flopspack_cost_model_custom(HugeCost, nullptr, &m), FLOPSPACK_OK);
    return m;
  }();
  return model;
}

flopspack_stream_packer* NewStream(int64_t capacity, int32_t overflow, uint64_t window = 16,
                                   const flopspack_cost_model* model = nullptr) {
  flopspack_stream_options o;
  flopspack_stream_options_init(&o);
  o.capacity = capacity;
  o.overflow = overflow;
  o.window = window;
  flopspack_stream_packer* packer = nullptr;
  EXPECT_EQ(flopspack_stream_packer_create(&o, model, &packer), FLOPSPACK_OK);
  return packer;
}

std::vector<uint8_t> SaveStream(const flopspack_stream_packer* packer) {
  size_t size = 0;
  EXPECT_EQ(flopspack_stream_packer_save(packer, nullptr, 0, &size), FLOPSPACK_OK);
  std::vector<uint8_t> bytes(size);
  EXPECT_EQ(flopspack_stream_packer_save(packer, bytes.data(), size, &size), FLOPSPACK_OK);
  return bytes;
}

flopspack_stream_totals Totals(const flopspack_stream_packer* packer) {
  flopspack_stream_totals t{};
  t.struct_size = sizeof(t);
  EXPECT_EQ(flopspack_stream_packer_totals(packer, &t), FLOPSPACK_OK);
  return t;
}

// The saved formats end in an FNV-1a 64 checksum of everything before it.
void Reseal(std::vector<uint8_t>& bytes) {
  uint64_t hash = 0xCBF29CE484222325ull;
  for (size_t i = 0; i + 8 < bytes.size(); ++i) {
    hash ^= bytes[i];
    hash *= 0x100000001B3ull;
  }
  for (int i = 0; i < 8; ++i) bytes[bytes.size() - 8 + i] = static_cast<uint8_t>(hash >> (8 * i));
}

void PutI64(std::vector<uint8_t>& bytes, size_t at, int64_t v) {
  for (int i = 0; i < 8; ++i) {
    bytes[at + i] = static_cast<uint8_t>(static_cast<uint64_t>(v) >> (8 * i));
  }
}

// Issue 21 item 4: TRUNCATE of two INT64_MAX documents at capacity 10
// overflowed the truncated-token counter (signed overflow) to -22, and the
// packer's own saved state was then rejected by restore.
TEST(ExtremesTest, StreamTruncatedTokensNeverOverflow) {
  flopspack_stream_packer* packer = NewStream(10, FLOPSPACK_OVERFLOW_TRUNCATE);
  const int64_t one[] = {kMax};
  ASSERT_EQ(flopspack_stream_packer_push(packer, one, 1), FLOPSPACK_OK);
  EXPECT_EQ(Totals(packer).truncated_tokens, kMax - 10);
  EXPECT_FLOPSPACK_ERROR(flopspack_stream_packer_push(packer, one, 1), FLOPSPACK_OUT_OF_RANGE,
                         "lengths[0] = 9223372036854775807: the truncated-token count would "
                         "overflow int64");
  const flopspack_stream_totals t = Totals(packer);
  EXPECT_EQ(t.documents_pushed, 1u);  // the failed push pushed nothing
  EXPECT_EQ(t.truncated_tokens, kMax - 10);
  // The state still saves and restores, and the restored packer agrees.
  const std::vector<uint8_t> bytes = SaveStream(packer);
  flopspack_stream_packer* restored = nullptr;
  ASSERT_EQ(flopspack_stream_packer_restore(bytes.data(), bytes.size(), nullptr, &restored),
            FLOPSPACK_OK)
      << flopspack_last_error_message();
  EXPECT_EQ(Totals(restored).truncated_tokens, kMax - 10);
  EXPECT_EQ(flopspack_stream_packer_push(restored, one, 1), FLOPSPACK_OUT_OF_RANGE);
  flopspack_stream_packer_destroy(restored);
  flopspack_stream_packer_destroy(packer);
}

// Tokens pushed since creation (emitted + held) stay within int64, so
// tokens_emitted can never overflow: a restored state with tokens_emitted
// = INT64_MAX - 5 (valid checksum) takes 5 more tokens and refuses the 6th.
TEST(ExtremesTest, StreamTokenTotalsNeverOverflow) {
  flopspack_stream_packer* fresh = NewStream(1 << 24, FLOPSPACK_OVERFLOW_SPLIT);
  std::vector<uint8_t> bytes = SaveStream(fresh);
  flopspack_stream_packer_destroy(fresh);
  // magic, version, capacity, window, overflow, seed, chunk_index,
  // documents_pushed, pending_documents, smallest_piece, sequences_emitted,
  // then tokens_emitted: 8 bytes each.
  PutI64(bytes, 88, kMax - 5);
  Reseal(bytes);
  flopspack_stream_packer* packer = nullptr;
  ASSERT_EQ(flopspack_stream_packer_restore(bytes.data(), bytes.size(), nullptr, &packer),
            FLOPSPACK_OK)
      << flopspack_last_error_message();
  EXPECT_EQ(Totals(packer).tokens_emitted, kMax - 5);
  const int64_t three[] = {3}, two[] = {2}, one[] = {1};
  ASSERT_EQ(flopspack_stream_packer_push(packer, three, 1), FLOPSPACK_OK);
  ASSERT_EQ(flopspack_stream_packer_push(packer, two, 1), FLOPSPACK_OK);
  EXPECT_FLOPSPACK_ERROR(flopspack_stream_packer_push(packer, one, 1), FLOPSPACK_OUT_OF_RANGE,
                         "the tokens pushed since creation would overflow int64");
  ASSERT_EQ(flopspack_stream_packer_flush(packer), FLOPSPACK_OK);
  EXPECT_EQ(Totals(packer).tokens_emitted, kMax);
  flopspack_stream_packer_destroy(packer);
}

// Issue 21 item 5: SPLIT of a huge document at capacity 1 allocated for
// 15 s until OUT_OF_MEMORY and left pieces_held = 67108864 behind although
// a failed push promises nothing was pushed.
TEST(ExtremesTest, StreamHugeSplitFailsAtOnceAndPushesNothing) {
  flopspack_stream_packer* packer = NewStream(1, FLOPSPACK_OVERFLOW_SPLIT);
  const int64_t huge[] = {3, int64_t{1} << 40};
  EXPECT_FLOPSPACK_ERROR(flopspack_stream_packer_push(packer, huge, 2), FLOPSPACK_OUT_OF_RANGE,
                         "lengths[1] = 1099511627776: split at capacity 1 it makes "
                         "1099511627776 pieces");
  flopspack_stream_totals t = Totals(packer);
  EXPECT_EQ(t.documents_pushed, 0u);
  EXPECT_EQ(t.pieces_held, 0u);
  // The pieces of one pending chunk add up: two documents of 2^23 + 1
  // pieces each exceed 2^24 together (checked before anything is made; a
  // chunk at the limit itself, 2^24 pieces, takes minutes on a loaded
  // machine and is not run here).
  const int64_t two[] = {(int64_t{1} << 23) + 1, (int64_t{1} << 23) + 1};
  EXPECT_FLOPSPACK_ERROR(flopspack_stream_packer_push(packer, two, 2), FLOPSPACK_OUT_OF_RANGE,
                         "lengths[1] = 8388609: split at capacity 1 it makes 8388609 pieces, and "
                         "the pending chunk holds at most 16777216");
  t = Totals(packer);
  EXPECT_EQ(t.documents_pushed, 0u);
  EXPECT_EQ(t.pieces_held, 0u);
  flopspack_stream_packer_destroy(packer);
}

// Issue 21 item 8: a crafted state with a valid checksum made Validate sum
// the tokens of a ready sequence before range-checking them (signed
// overflow). Now each piece is checked first: INVALID_ARGUMENT.
TEST(ExtremesTest, StreamRestoreOfCraftedTokensIsRejected) {
  flopspack_stream_packer* packer = NewStream(10, FLOPSPACK_OVERFLOW_ERROR);
  const int64_t lengths[] = {3, 4};
  ASSERT_EQ(flopspack_stream_packer_push(packer, lengths, 2), FLOPSPACK_OK);
  ASSERT_EQ(flopspack_stream_packer_flush(packer), FLOPSPACK_OK);
  std::vector<uint8_t> bytes = SaveStream(packer);
  flopspack_stream_packer_destroy(packer);
  // No open sequences, so the state ends: ..., ready count 1, piece count 2,
  // (doc, tokens) x 2, checksum. Rewrite both token counts to INT64_MAX.
  const size_t end = bytes.size() - 8;
  PutI64(bytes, end - 8, kMax);
  PutI64(bytes, end - 24, kMax);
  Reseal(bytes);
  flopspack_stream_packer* restored = reinterpret_cast<flopspack_stream_packer*>(uintptr_t{0x5});
  EXPECT_FLOPSPACK_ERROR(
      flopspack_stream_packer_restore(bytes.data(), bytes.size(), nullptr, &restored),
      FLOPSPACK_INVALID_ARGUMENT, "ready sequence out of range");
  EXPECT_EQ(restored, reinterpret_cast<flopspack_stream_packer*>(uintptr_t{0x5}));
}

// Issue 21 item 12: a packer with capacity 2^24 cost ~68 MB empty (a bucket
// head per token of capacity); 8 restores took 72 -> 613 MB RSS. The heads
// are now paged: an empty packer's resident memory is a few MB.
long ResidentKiB() {
  FILE* f = std::fopen("/proc/self/status", "r");
  long kib = -1;
  char line[256];
  while (f != nullptr && std::fgets(line, sizeof(line), f) != nullptr) {
    if (std::sscanf(line, "VmRSS: %ld kB", &kib) == 1) break;
  }
  if (f != nullptr) std::fclose(f);
  return kib;
}

TEST(ExtremesTest, StreamPackerMemoryFollowsUse) {
  const long before = ResidentKiB();
  std::vector<flopspack_stream_packer*> packers;
  for (int i = 0; i < 8; ++i) {
    flopspack_stream_packer* p = NewStream(1 << 24, FLOPSPACK_OVERFLOW_SPLIT);
    const int64_t lengths[] = {5, 1 << 20, 7};
    ASSERT_EQ(flopspack_stream_packer_push(p, lengths, 3), FLOPSPACK_OK);
    packers.push_back(p);
  }
  const long after = ResidentKiB();
  for (flopspack_stream_packer* p : packers) flopspack_stream_packer_destroy(p);
  if (before < 0 || after < 0) GTEST_SKIP() << "no /proc/self/status";
  // 8 x 68 MB before the fix; now 8 x ~2 MB (the bit tree) plus pages.
  EXPECT_LT(after - before, 64 * 1024) << "resident KiB grew from " << before << " to " << after;
}

// Finite costs whose sums overflow a double: OUT_OF_RANGE naming the
// argument at every entry point that sums costs, never inf/NaN metrics.
TEST(ExtremesTest, CostSumsOverflowingADoubleAreOutOfRange) {
  flopspack_plan* plan = nullptr;
  // balance: issue 21 item 9 (k = 2 gave efficiency inf, mean above max).
  const double costs[] = {1e308, 1e308, 1e308};
  for (int64_t k : {1, 2, 3}) {
    flopspack_balance_options b;
    flopspack_balance_options_init(&b);
    b.num_groups = k;
    EXPECT_FLOPSPACK_ERROR(flopspack_balance(&b, costs, nullptr, 3, &plan), FLOPSPACK_OUT_OF_RANGE,
                           "costs: the sum of costs overflows a double at index 1");
    EXPECT_EQ(plan, nullptr);
  }
  // Near DBL_MAX but with a finite total: fine, and the metrics are finite.
  const double near[] = {DBL_MAX / 4, DBL_MAX / 4, DBL_MAX / 4};
  flopspack_balance_options b;
  flopspack_balance_options_init(&b);
  b.num_groups = 2;
  ASSERT_EQ(flopspack_balance(&b, near, nullptr, 3, &plan), FLOPSPACK_OK);
  const ReadPlan r = ReadBack(plan);
  EXPECT_TRUE(std::isfinite(r.metrics.balance_efficiency));
  EXPECT_LE(r.metrics.mean_group_cost, r.metrics.max_group_cost);
  EXPECT_GE(r.metrics.gap_to_lower_bound, 0);
  flopspack_plan_destroy(plan);
  plan = nullptr;

  // pack: one document per sequence, 1e308 each.
  const int64_t lengths[] = {8, 8, 8};
  flopspack_pack_options p;
  flopspack_pack_options_init(&p);
  p.capacity = 8;
  p.cost_model = Huge();
  EXPECT_FLOPSPACK_ERROR(flopspack_pack(&p, lengths, 3, &plan), FLOPSPACK_OUT_OF_RANGE,
                         "sequence cost: the sum of costs overflows a double");
  EXPECT_EQ(plan, nullptr);

  // plan_step (also a row of docs/errors.md) and the stateful planner.
  flopspack_step_options s = Step(3, 1, 8, FLOPSPACK_STEP_DOCUMENTS);
  EXPECT_FLOPSPACK_ERROR(flopspack_plan_step(&s, Huge(), lengths, 3, &plan), FLOPSPACK_OUT_OF_RANGE,
                         "document cost: the sum of costs overflows");
  flopspack_step_planner* planner = nullptr;
  ASSERT_EQ(flopspack_step_planner_create(&s, nullptr, Huge(), &planner), FLOPSPACK_OK);
  ASSERT_EQ(flopspack_step_planner_push(planner, lengths, 3, nullptr), FLOPSPACK_OK);
  EXPECT_FLOPSPACK_ERROR(flopspack_step_planner_next(planner, &plan), FLOPSPACK_OUT_OF_RANGE,
                         "the sum of costs overflows a double");
  uint64_t docs = 0;
  ASSERT_EQ(flopspack_step_planner_pending(planner, &docs, nullptr, nullptr), FLOPSPACK_OK);
  EXPECT_EQ(docs, 3u);  // the failed step took nothing
  flopspack_step_planner_destroy(planner);

  // stream packer take: the sequences stay ready after the failure.
  flopspack_stream_packer* packer = NewStream(8, FLOPSPACK_OVERFLOW_ERROR, 16, Huge());
  ASSERT_EQ(flopspack_stream_packer_push(packer, lengths, 3), FLOPSPACK_OK);
  ASSERT_EQ(flopspack_stream_packer_flush(packer), FLOPSPACK_OK);
  EXPECT_FLOPSPACK_ERROR(flopspack_stream_packer_take(packer, &plan), FLOPSPACK_OUT_OF_RANGE,
                         "sequence cost: the sum of costs overflows a double");
  size_t ready = 0;
  ASSERT_EQ(flopspack_stream_packer_ready(packer, &ready), FLOPSPACK_OK);
  EXPECT_EQ(ready, 3u);
  flopspack_stream_packer_destroy(packer);
}

// The bucket sampler, statistics and the straggler emulator: the same.
TEST(ExtremesTest, CostSumsOverflowingADoubleAreOutOfRangeInSamplerStatsSimulate) {
  const int64_t eight[] = {8, 8, 8, 8};
  flopspack_plan* plan = nullptr;
  // A batch of 4 samples x 1e308: the batch cost itself overflows.
  flopspack_bucket_sampler_options bo;
  flopspack_bucket_sampler_options_init(&bo);
  bo.max_padded_tokens = 100;
  flopspack_bucket_sampler* sampler = nullptr;
  ASSERT_EQ(flopspack_bucket_sampler_create(&bo, Huge(), eight, 4, &sampler), FLOPSPACK_OK)
      << flopspack_last_error_message();
  EXPECT_FLOPSPACK_ERROR(flopspack_bucket_sampler_epoch(sampler, 0, &plan), FLOPSPACK_OUT_OF_RANGE,
                         "batch cost: 4 samples x sequence cost 1e+308 overflows a double");
  EXPECT_EQ(plan, nullptr);
  flopspack_bucket_sampler_destroy(sampler);
  // Four batches of one sample, 1e308 each: their sum overflows.
  bo.max_padded_tokens = 8;
  ASSERT_EQ(flopspack_bucket_sampler_create(&bo, Huge(), eight, 4, &sampler), FLOPSPACK_OK);
  EXPECT_FLOPSPACK_ERROR(flopspack_bucket_sampler_step(sampler, 0, 0, &plan),
                         FLOPSPACK_OUT_OF_RANGE,
                         "batch cost: the sum of costs overflows a double at index 1");
  EXPECT_EQ(plan, nullptr);
  flopspack_bucket_sampler_destroy(sampler);

  // stats: the total cost of three documents of 1e308.
  flopspack_stats* stats = nullptr;
  EXPECT_FLOPSPACK_ERROR(flopspack_stats_create(eight, 3, Huge(), &stats), FLOPSPACK_OUT_OF_RANGE,
                         "the total cost of the documents overflows a double");
  EXPECT_EQ(stats, nullptr);
  const int64_t one_length[] = {8};
  const uint64_t counts[] = {3};
  EXPECT_FLOPSPACK_ERROR(
      flopspack_stats_create_from_histogram(one_length, counts, 1, Huge(), &stats),
      FLOPSPACK_OUT_OF_RANGE, "the total cost of the documents overflows a double");

  // simulate: one document per microbatch, three microbatches per rank.
  flopspack_simulate_options so;
  flopspack_simulate_options_init(&so);
  so.num_ranks = 1;
  so.microbatches_per_rank = 3;
  so.tokens_per_microbatch = 8;
  so.num_steps = 2;
  flopspack_simulate_result* result = nullptr;
  EXPECT_FLOPSPACK_ERROR(flopspack_simulate(eight, 4, Huge(), &so, &result), FLOPSPACK_OUT_OF_RANGE,
                         "rank cost: the costs of step 0 sum past");
  EXPECT_EQ(result, nullptr);
}

// The bucket sampler's padded tokens (samples x longest, summed into
// computed_tokens) must fit int64: creation refuses data whose samples x
// longest length does not, and at the edge the epoch's totals are exact.
TEST(ExtremesTest, SamplerPaddedTokensNeverOverflow) {
  const int64_t over[] = {int64_t{1} << 62, (int64_t{1} << 62) - 1};
  flopspack_bucket_sampler_options bo;
  flopspack_bucket_sampler_options_init(&bo);
  bo.max_padded_tokens = kMax;
  flopspack_bucket_sampler* sampler = nullptr;
  EXPECT_FLOPSPACK_ERROR(flopspack_bucket_sampler_create(&bo, nullptr, over, 2, &sampler),
                         FLOPSPACK_OUT_OF_RANGE,
                         "2 samples x longest length 4611686018427387904 overflows int64");
  EXPECT_EQ(sampler, nullptr);
  const int64_t edge[] = {kMax / 2, kMax / 2};
  ASSERT_EQ(flopspack_bucket_sampler_create(&bo, nullptr, edge, 2, &sampler), FLOPSPACK_OK)
      << flopspack_last_error_message();
  flopspack_plan* plan = nullptr;
  ASSERT_EQ(flopspack_bucket_sampler_epoch(sampler, 0, &plan), FLOPSPACK_OK)
      << flopspack_last_error_message();
  const ReadPlan r = ReadBack(plan);
  EXPECT_EQ(r.metrics.computed_tokens, kMax - 1);
  EXPECT_EQ(r.metrics.real_tokens, kMax - 1);
  EXPECT_TRUE(std::isfinite(r.metrics.balance_efficiency));
  flopspack_plan_destroy(plan);
  flopspack_bucket_sampler_destroy(sampler);
}

// pack: sequences x capacity (the computed_tokens metric) must fit int64.
TEST(ExtremesTest, PackComputedTokensNeverOverflow) {
  const int64_t a = kMax / 3;
  const int64_t lengths[] = {a, a, a};
  flopspack_pack_options p;
  flopspack_pack_options_init(&p);
  p.capacity = 2 * a - 1;  // one document per sequence: 3 x (2a - 1) > INT64_MAX
  flopspack_plan* plan = nullptr;
  EXPECT_FLOPSPACK_ERROR(flopspack_pack(&p, lengths, 3, &plan), FLOPSPACK_OUT_OF_RANGE,
                         "3 sequences of it compute more than int64 tokens");
  EXPECT_EQ(plan, nullptr);
  p.capacity = kMax;  // one sequence of all three
  ASSERT_EQ(flopspack_pack(&p, lengths, 3, &plan), FLOPSPACK_OK);
  const ReadPlan r = ReadBack(plan);
  EXPECT_EQ(r.metrics.real_tokens, 3 * a);
  EXPECT_EQ(r.metrics.computed_tokens, kMax);
  flopspack_plan_destroy(plan);
}

}  // namespace
