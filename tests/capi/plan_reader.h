// Reads a flopspack_plan back through the C ABI into plain vectors, and the
// per-document accounting the "nothing lost" and limits tests check.
#ifndef FLOPSPACK_TESTS_CAPI_PLAN_READER_H_
#define FLOPSPACK_TESTS_CAPI_PLAN_READER_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "flopspack/flopspack.h"
#include "gtest/gtest.h"

namespace flopspack_test {

struct ReadPlan {
  std::vector<std::vector<int64_t>> items, tokens, offsets;
  std::vector<int64_t> real, computed;
  std::vector<double> cost;
  std::vector<int64_t> deferred, dropped;
  struct flopspack_plan_metrics metrics {};
};

inline ReadPlan ReadBack(const flopspack_plan* plan) {
  ReadPlan r;
  const size_t groups = flopspack_plan_group_count(plan);
  for (size_t g = 0; g < groups; ++g) {
    const int64_t* items = nullptr;
    const int64_t* tokens = nullptr;
    size_t n = 0;
    EXPECT_EQ(flopspack_plan_group(plan, g, &items, &tokens, &n), FLOPSPACK_OK);
    r.items.emplace_back(items, items + n);
    r.tokens.emplace_back(tokens, tokens + n);
    const int64_t* offsets = nullptr;
    size_t n_offsets = 0;
    EXPECT_EQ(flopspack_plan_group_offsets(plan, g, &offsets, &n_offsets), FLOPSPACK_OK);
    EXPECT_EQ(n_offsets, n);
    r.offsets.emplace_back(offsets, offsets + n_offsets);
    int64_t real = 0, computed = 0;
    double cost = 0;
    EXPECT_EQ(flopspack_plan_group_info(plan, g, &real, &computed, &cost), FLOPSPACK_OK);
    r.real.push_back(real);
    r.computed.push_back(computed);
    r.cost.push_back(cost);
  }
  const int64_t* list = nullptr;
  size_t n = 0;
  EXPECT_EQ(flopspack_plan_deferred(plan, &list, &n), FLOPSPACK_OK);
  r.deferred.assign(list, list + n);
  EXPECT_EQ(flopspack_plan_dropped(plan, &list, &n), FLOPSPACK_OK);
  r.dropped.assign(list, list + n);
  r.metrics.struct_size = sizeof(r.metrics);
  EXPECT_EQ(flopspack_plan_metrics(plan, &r.metrics), FLOPSPACK_OK);
  return r;
}

// Every field the C API reads back is equal, doubles bit for bit, and every
// group's (rank, slot) or the status that says a plan has none. `where`
// names the comparison in a failure.
inline void ExpectSamePlan(const flopspack_plan* a, const flopspack_plan* b,
                           const char* where = "") {
  SCOPED_TRACE(where);
  const ReadPlan ra = ReadBack(a), rb = ReadBack(b);
  EXPECT_EQ(ra.items, rb.items);
  EXPECT_EQ(ra.tokens, rb.tokens);
  EXPECT_EQ(ra.offsets, rb.offsets);
  EXPECT_EQ(ra.real, rb.real);
  EXPECT_EQ(ra.computed, rb.computed);
  EXPECT_EQ(ra.deferred, rb.deferred);
  EXPECT_EQ(ra.dropped, rb.dropped);
  ASSERT_EQ(ra.cost.size(), rb.cost.size());
  EXPECT_EQ(std::memcmp(ra.cost.data(), rb.cost.data(), ra.cost.size() * sizeof(double)), 0);
  EXPECT_EQ(std::memcmp(&ra.metrics, &rb.metrics, sizeof(ra.metrics)), 0);
  for (size_t g = 0; g < ra.cost.size(); ++g) {
    size_t rank_a = 0, slot_a = 0, rank_b = 1, slot_b = 1;
    const flopspack_status status_a = flopspack_plan_group_slot(a, g, &rank_a, &slot_a);
    ASSERT_EQ(status_a, flopspack_plan_group_slot(b, g, &rank_b, &slot_b));
    if (status_a != FLOPSPACK_OK) continue;
    EXPECT_EQ(rank_a, rank_b);
    EXPECT_EQ(slot_a, slot_b);
  }
}

// Per document (item index < n): tokens placed in groups, the number of
// groups (pieces) it appears in and its pieces as (offset, tokens); false if
// an item is out of range.
struct Placement {
  std::vector<int64_t> tokens, pieces, deferred, dropped;
  std::vector<std::vector<std::pair<int64_t, int64_t>>> spans;
};

// The pieces (offset, tokens) of one document tile [0, sum of tokens): the
// first starts at 0, each next one where the previous ended. Returns the
// end of the tiling (-1 if they do not tile).
inline int64_t TilingEnd(std::vector<std::pair<int64_t, int64_t>> spans) {
  std::sort(spans.begin(), spans.end());
  int64_t end = 0;
  for (const auto& [offset, tokens] : spans) {
    if (offset != end || tokens <= 0) return -1;
    end += tokens;
  }
  return end;
}

// check_tiling: every document's pieces in this plan tile [0, its tokens
// here) (true for every plan but the stream packer's, whose pieces of a
// document may span plans).
inline Placement Place(const ReadPlan& r, size_t n, bool check_tiling = true) {
  Placement p;
  p.tokens.assign(n, 0);
  p.pieces.assign(n, 0);
  p.deferred.assign(n, 0);
  p.dropped.assign(n, 0);
  p.spans.assign(n, {});
  for (size_t g = 0; g < r.items.size(); ++g) {
    for (size_t i = 0; i < r.items[g].size(); ++i) {
      const int64_t item = r.items[g][i];
      EXPECT_TRUE(item >= 0 && static_cast<size_t>(item) < n) << "item " << item;
      if (item < 0 || static_cast<size_t>(item) >= n) continue;
      p.tokens[item] += r.tokens[g][i];
      ++p.pieces[item];
      if (i < r.offsets[g].size()) p.spans[item].push_back({r.offsets[g][i], r.tokens[g][i]});
    }
  }
  for (size_t item = 0; check_tiling && item < n; ++item) {
    EXPECT_EQ(TilingEnd(p.spans[item]), p.tokens[item])
        << "the pieces of item " << item << " do not tile [0, its tokens)";
  }
  for (int64_t d : r.deferred) {
    EXPECT_TRUE(d >= 0 && static_cast<size_t>(d) < n) << "deferred " << d;
    if (d >= 0 && static_cast<size_t>(d) < n) ++p.deferred[d];
  }
  for (int64_t d : r.dropped) {
    EXPECT_TRUE(d >= 0 && static_cast<size_t>(d) < n) << "dropped " << d;
    if (d >= 0 && static_cast<size_t>(d) < n) ++p.dropped[d];
  }
  return p;
}

// A test-side random source: std::mt19937_64's output is fixed by the
// standard (distributions are not, so none are used).
class Random {
 public:
  explicit Random(uint64_t seed) : engine_(seed) {}
  int64_t Uniform(int64_t lo, int64_t hi) {  // inclusive
    return lo + static_cast<int64_t>(engine_() % static_cast<uint64_t>(hi - lo + 1));
  }
  std::vector<int64_t> Lengths(size_t n, int64_t hi) {
    std::vector<int64_t> v(n);
    for (int64_t& l : v) l = Uniform(1, hi);
    return v;
  }

 private:
  std::mt19937_64 engine_;
};

}  // namespace flopspack_test

#endif  // FLOPSPACK_TESTS_CAPI_PLAN_READER_H_
