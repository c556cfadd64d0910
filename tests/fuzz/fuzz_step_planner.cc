// Fuzzes the stateful step planner (create, push, next, pending, save,
// restore) with a program of operations, and its restore with hostile
// bytes: raw random bytes, a fresh save with one byte flipped, and a fresh
// save with one field rewritten and the checksum recomputed (so the parser,
// not the checksum, must catch it). A restored state must be rejected
// cleanly or describe a planner that behaves: every plan it makes satisfies
// the invariants below. Invariants: items of plans are push ids; a document
// is placed in exactly one step, in full (in pieces only under SPLIT);
// microbatches respect the cap; pending documents and tokens equal what
// was pushed minus what was placed; a fresh save restores into a planner
// that makes exactly the same plans; after draining, every document pushed
// has been placed and the token sum is preserved.
#include <map>

#include "fuzz_util.h"

using fuzz::Require;

namespace {

uint64_t Fnv1a64(const uint8_t* data, size_t n) {
  uint64_t hash = 0xCBF29CE484222325ull;
  for (size_t i = 0; i < n; ++i) {
    hash ^= data[i];
    hash *= 0x100000001B3ull;
  }
  return hash;
}

// Rewrites the trailing little-endian FNV-1a 64 checksum over the rest.
void Reseal(std::vector<uint8_t>& bytes) {
  if (bytes.size() < 8) return;
  const uint64_t sum = Fnv1a64(bytes.data(), bytes.size() - 8);
  for (int i = 0; i < 8; ++i) bytes[bytes.size() - 8 + i] = static_cast<uint8_t>(sum >> (8 * i));
}

struct Model {
  std::map<int64_t, int64_t> length;  // push id -> length
  std::map<int64_t, int64_t> placed;  // push id -> tokens placed
  int64_t next_id = 0;
};

std::vector<uint8_t> Save(const flopspack_step_planner* planner) {
  size_t size = 0;
  Require(flopspack_step_planner_save_size(planner, &size) == FLOPSPACK_OK, "save_size");
  std::vector<uint8_t> bytes(size);
  size_t written = 0;
  if (size > 0) {
    Require(flopspack_step_planner_save(planner, bytes.data(), size - 1, &written) ==
                FLOPSPACK_BUFFER_TOO_SMALL,
            "a short buffer is BUFFER_TOO_SMALL");
  }
  Require(
      flopspack_step_planner_save(planner, bytes.data(), bytes.size(), &written) == FLOPSPACK_OK &&
          written == size,
      "save writes save_size bytes");
  return bytes;
}

// Checks one plan of the stateful planner against the pushed documents and
// records what it placed. `strict` = the planner's history is known (not a
// restored forgery), so ids must be documents the harness pushed.
void Account(const fuzz::PlanData& d, int64_t cap, bool split_allowed, Model& model, bool strict) {
  fuzz::CheckGroupMetrics(d);
  std::map<int64_t, int64_t> step_tokens, step_pieces;
  for (const fuzz::Group& g : d.groups) {
    Require(g.real <= cap, "cap respected");
    for (size_t i = 0; i < g.items.size(); ++i) {
      Require(g.items[i] >= 0, "ids are non-negative");
      Require(g.tokens[i] > 0, "pieces are positive");
      step_tokens[g.items[i]] += g.tokens[i];
      ++step_pieces[g.items[i]];
    }
  }
  int64_t deferred_tokens = 0;
  for (int64_t id : d.deferred) {
    Require(step_tokens.count(id) == 0, "a deferred document is not placed");
    if (strict) deferred_tokens += model.length.at(id);
  }
  if (strict) Require(d.metrics.deferred_tokens == deferred_tokens, "deferred tokens counted");
  for (const auto& [id, tokens] : step_tokens) {
    Require(split_allowed || step_pieces[id] == 1, "pieces only under SPLIT");
    if (!strict) continue;
    Require(model.length.count(id) == 1, "ids are push ids");
    Require(model.placed.count(id) == 0, "a document is placed in one step only");
    Require(tokens == model.length[id], "a placed document is placed in full");
    model.placed[id] = tokens;
  }
}

void CheckPending(const flopspack_step_planner* planner, const Model& model) {
  uint64_t documents = 0, steps = 0;
  int64_t tokens = 0;
  Require(flopspack_step_planner_pending(planner, &documents, &tokens, &steps) == FLOPSPACK_OK,
          "pending");
  int64_t expected_tokens = 0;
  uint64_t expected_docs = 0;
  for (const auto& [id, length] : model.length) {
    if (model.placed.count(id) != 0) continue;
    ++expected_docs;
    expected_tokens += length;
  }
  Require(documents == expected_docs && tokens == expected_tokens,
          "pending = pushed - placed (nothing lost)");
}

// Restores bytes that are not a fresh save: must be rejected, or give a
// planner whose plans are well-formed. Never trusted beyond that.
void TryHostile(const std::vector<uint8_t>& bytes, const flopspack_cost_model* cost) {
  flopspack_step_planner* restored = nullptr;
  const flopspack_status s =
      flopspack_step_planner_restore(bytes.data(), bytes.size(), cost, &restored);
  if (s != FLOPSPACK_OK) {
    Require(s == FLOPSPACK_INVALID_ARGUMENT, "bad state is INVALID_ARGUMENT");
    Require(restored == nullptr, "out untouched on failure");
    return;
  }
  // A restored planner is as costly as one created with its options: skip
  // planning for shapes that are legal but too big for a fuzz iteration
  // (R x M microbatches, or pieces = pending tokens / cap).
  auto field = [&](size_t offset) {
    int64_t v = 0;
    for (size_t i = 0; i < 8; ++i) v |= static_cast<int64_t>(bytes[offset + i]) << (8 * i);
    return v;
  };
  const int64_t ranks = field(16), m = std::max<int64_t>(field(24), 1), cap = field(32);
  int64_t pending = 0;
  Require(flopspack_step_planner_pending(restored, nullptr, &pending, nullptr) == FLOPSPACK_OK,
          "pending of a restored planner");
  const bool small = ranks <= 64 && m <= 64 && pending / cap <= 4096;
  Model unknown;
  for (int k = 0; k < (small ? 3 : 0); ++k) {
    flopspack_plan* plan = nullptr;
    const flopspack_status n = flopspack_step_planner_next(restored, &plan);
    if (n != FLOPSPACK_OK) {
      Require(n == FLOPSPACK_INVALID_ARGUMENT || n == FLOPSPACK_INFEASIBLE ||
                  n == FLOPSPACK_OUT_OF_RANGE,
              "a restored planner fails cleanly");
      break;
    }
    Account(fuzz::Read(plan), INT64_MAX, true, unknown, false);
    flopspack_plan_destroy(plan);
  }
  const int64_t one = 1;
  flopspack_step_planner_push(restored, &one, 1, nullptr);
  flopspack_step_planner_destroy(restored);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  flopspack_cost_model* cost = nullptr;
  Require(flopspack_cost_model_polynomial(0, 1, 1, 0.001, &cost) == FLOPSPACK_OK, "model");
  if (in.ConsumeIntegralInRange(0, 3) == 0) {  // arbitrary bytes as a saved state
    TryHostile(in.ConsumeBytes<uint8_t>(in.ConsumeIntegralInRange(0, 600)), cost);
    flopspack_cost_model_destroy(cost);
    return 0;
  }
  flopspack_step_options options;
  flopspack_step_options_init(&options);
  options.num_ranks = in.ConsumeIntegralInRange<uint32_t>(0, 4);
  options.microbatches_per_rank = in.ConsumeIntegralInRange<uint32_t>(0, 3);
  options.algorithm = in.ConsumeIntegralInRange<int32_t>(0, 3);
  options.max_tokens_per_microbatch = in.ConsumeIntegralInRange(0, 7) == 0
                                          ? fuzz::ConsumeExtremeCap(in)
                                          : in.ConsumeIntegralInRange<int64_t>(0, 200);
  options.seed = in.ConsumeIntegral<uint64_t>();
  options.ordering = in.ConsumeIntegralInRange<int32_t>(0, 2);
  const int32_t policies[] = {FLOPSPACK_OVERFLOW_ERROR, FLOPSPACK_OVERFLOW_SPLIT,
                              FLOPSPACK_OVERFLOW_DEFER, FLOPSPACK_OVERFLOW_TRUNCATE};
  options.overflow = policies[in.ConsumeIntegralInRange(0, 3)];
  flopspack_step_planner_options stream;
  flopspack_step_planner_options_init(&stream);
  stream.max_defer_steps = in.ConsumeIntegralInRange<uint32_t>(0, 3);
  stream.tokens_per_step = in.ConsumeIntegralInRange(0, 7) == 0
                               ? fuzz::ConsumeExtremeCap(in)
                               : in.ConsumeIntegralInRange<int64_t>(-1, 2000);
  stream.outlier_min_tokens = in.ConsumeBool() ? in.ConsumeIntegralInRange<int64_t>(-1, 200) : 0;
  stream.max_outliers_per_step = in.ConsumeIntegralInRange<int64_t>(-1, 3);

  flopspack_step_planner* planner = nullptr;
  if (flopspack_step_planner_create(&options, &stream, cost, &planner) != FLOPSPACK_OK) {
    Require(planner == nullptr, "out untouched on failure");
    flopspack_cost_model_destroy(cost);
    return 0;
  }
  const int64_t cap = options.max_tokens_per_microbatch;
  const bool split = options.overflow == FLOPSPACK_OVERFLOW_SPLIT;
  Model model;
  while (in.remaining_bytes() > 0) {
    switch (in.ConsumeIntegralInRange(0, 5)) {
      case 0:
      case 1: {
        std::vector<int64_t> lengths =
            fuzz::ConsumeLengths(in, 12, std::min<int64_t>(400, fuzz::Twice(cap)));
        fuzz::MaybeExtremeLength(in, lengths);
        int64_t first = -1;
        // Half the pushes carry extra costs (finite, bounded: a step's costs
        // stay far from overflowing, so next always succeeds); they change
        // costs, never which documents are placed, so the accounting below
        // holds for both.
        flopspack_status pushed;
        if (in.ConsumeBool()) {
          std::vector<double> extra(lengths.size());
          for (double& e : extra) e = in.ConsumeFloatingPointInRange<double>(0, 1e9);
          pushed = flopspack_step_planner_push_with_extra_costs(
              planner, lengths.data(), extra.data(), lengths.size(), &first);
        } else {
          pushed = flopspack_step_planner_push(planner, lengths.data(), lengths.size(), &first);
        }
        if (pushed == FLOPSPACK_OK) {
          Require(first == model.next_id, "first id = documents pushed so far");
          for (int64_t l : lengths) model.length[model.next_id++] = l;
        } else {
          // Push refuses non-positive lengths, documents over the cap unless
          // split, and (with M > 0) documents no step could hold.
          // With M = 0, a document split into more pieces than a step's
          // 2^24 microbatches hold; pending tokens past int64 (OUT_OF_RANGE).
          const int64_t per_step =
              stream.tokens_per_step > 0
                  ? stream.tokens_per_step
                  : static_cast<int64_t>(options.num_ranks) * options.microbatches_per_rank * cap;
          const int64_t budget = (int64_t{1} << 24) / options.num_ranks * options.num_ranks;
          bool bad = false, out_of_range = false;
          int64_t pending = 0;
          for (const auto& [id, length] : model.length) {
            if (model.placed.count(id) == 0) pending += length;
          }
          for (int64_t l : lengths) {
            bad |= l <= 0 || (!split && l > cap) ||
                   (options.microbatches_per_rank > 0 && l > per_step);
            if (l <= 0) continue;
            const int64_t pieces = l <= cap ? 1 : l / cap + (l % cap != 0);
            out_of_range |= options.microbatches_per_rank == 0 && pieces > budget;
            out_of_range |= __builtin_add_overflow(pending, l, &pending);
          }
          Require(bad || (out_of_range && pushed == FLOPSPACK_OUT_OF_RANGE),
                  "only bad pushes are rejected");
        }
        break;
      }
      case 2: {
        flopspack_plan* plan = nullptr;
        Require(flopspack_step_planner_next(planner, &plan) == FLOPSPACK_OK, "next succeeds");
        Account(fuzz::Read(plan), cap, split || options.algorithm == FLOPSPACK_STEP_RANDOM, model,
                true);
        flopspack_plan_destroy(plan);
        break;
      }
      case 3: {  // a fresh save restores and continues identically
        const std::vector<uint8_t> bytes = Save(planner);
        flopspack_step_planner* restored = nullptr;
        Require(flopspack_step_planner_restore(bytes.data(), bytes.size(), cost, &restored) ==
                    FLOPSPACK_OK,
                "a fresh save restores");
        Require(Save(restored) == bytes, "restore then save gives the same bytes");
        flopspack_plan* a = nullptr;
        flopspack_plan* b = nullptr;
        Require(flopspack_step_planner_next(planner, &a) == FLOPSPACK_OK &&
                    flopspack_step_planner_next(restored, &b) == FLOPSPACK_OK,
                "next on both");
        const fuzz::PlanData da = fuzz::Read(a);
        Require(fuzz::SamePlan(da, fuzz::Read(b)), "restored planner plans identically");
        Account(da, cap, split || options.algorithm == FLOPSPACK_STEP_RANDOM, model, true);
        flopspack_plan_destroy(a);
        flopspack_plan_destroy(b);
        flopspack_step_planner_destroy(planner);
        planner = restored;
        break;
      }
      default: {  // a damaged save: flipped byte, or a rewritten field resealed
        std::vector<uint8_t> bytes = Save(planner);
        const size_t at = in.ConsumeIntegralInRange<size_t>(0, bytes.size() - 1);
        if (in.ConsumeBool()) {
          bytes[at] ^= in.ConsumeIntegralInRange<uint8_t>(1, 255);
          flopspack_step_planner* restored = nullptr;
          Require(flopspack_step_planner_restore(bytes.data(), bytes.size(), cost, &restored) ==
                      FLOPSPACK_INVALID_ARGUMENT,
                  "a flipped byte is rejected (checksum)");
          Require(restored == nullptr, "out untouched");
        } else {
          // Half the time an extreme value (issue 21: a cap of INT64_MAX
          // restored, then corrupted the heap on next()).
          const uint64_t value = in.ConsumeBool()
                                     ? static_cast<uint64_t>(fuzz::ConsumeExtremeLength(in))
                                     : in.ConsumeIntegral<uint64_t>();
          const size_t field = std::min(at / 8 * 8, bytes.size() >= 16 ? bytes.size() - 16 : 0);
          for (size_t i = 0; i < 8 && field + i < bytes.size(); ++i) {
            bytes[field + i] = static_cast<uint8_t>(value >> (8 * i));
          }
          if (in.ConsumeBool()) bytes.resize(in.ConsumeIntegralInRange<size_t>(8, bytes.size()));
          Reseal(bytes);
          TryHostile(bytes, cost);
        }
        break;
      }
    }
    CheckPending(planner, model);
  }
  // Drain: every document is eventually placed, in full.
  const size_t bound = 4 * (model.length.size() + 1) * (stream.max_defer_steps + 2);
  for (size_t k = 0; k < bound; ++k) {
    uint64_t documents = 0;
    Require(flopspack_step_planner_pending(planner, &documents, nullptr, nullptr) == FLOPSPACK_OK,
            "pending");
    if (documents == 0) break;
    flopspack_plan* plan = nullptr;
    Require(flopspack_step_planner_next(planner, &plan) == FLOPSPACK_OK, "next while draining");
    Account(fuzz::Read(plan), cap, split || options.algorithm == FLOPSPACK_STEP_RANDOM, model,
            true);
    flopspack_plan_destroy(plan);
  }
  CheckPending(planner, model);
  Require(model.placed.size() == model.length.size(), "every pushed document is placed");
  flopspack_step_planner_destroy(planner);
  flopspack_cost_model_destroy(cost);
  return 0;
}
