// Fuzzes the streaming packer: arbitrary options, a program of pushes,
// takes, flushes, saves and restores, and restores from arbitrary bytes
// (which must be rejected cleanly or describe a valid packer). Invariants:
// no sequence exceeds the capacity; no document gets more tokens than its
// length; after a final flush every accepted document's tokens are all
// placed (all of them under split, min(length, capacity) under truncate),
// and the pieces' offsets (flopspack_plan_group_offsets), over every take,
// tile what was placed exactly.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#include "flopspack/flopspack.h"
#include "fuzz_util.h"

namespace {

void Require(bool condition, const char* what) {
  if (!condition) {
    std::fprintf(stderr, "invariant violated: %s\n", what);
    std::abort();
  }
}

// Rewrites the trailing little-endian FNV-1a 64 checksum over the rest.
void Reseal(std::vector<uint8_t>& bytes) {
  uint64_t hash = 0xCBF29CE484222325ull;
  for (size_t i = 0; i + 8 < bytes.size(); ++i) {
    hash ^= bytes[i];
    hash *= 0x100000001B3ull;
  }
  for (int i = 0; i < 8; ++i) bytes[bytes.size() - 8 + i] = static_cast<uint8_t>(hash >> (8 * i));
}

using Spans = std::vector<std::vector<std::pair<int64_t, int64_t>>>;  // (offset, tokens)

void Drain(flopspack_stream_packer* packer, int64_t capacity, std::vector<int64_t>& placed,
           Spans& spans) {
  flopspack_plan* plan = nullptr;
  Require(flopspack_stream_packer_take(packer, &plan) == FLOPSPACK_OK, "take succeeds");
  for (size_t g = 0; g < flopspack_plan_group_count(plan); ++g) {
    const int64_t* items = nullptr;
    const int64_t* tokens = nullptr;
    size_t n = 0;
    Require(flopspack_plan_group(plan, g, &items, &tokens, &n) == FLOPSPACK_OK, "group");
    const int64_t* offsets = nullptr;
    size_t n_offsets = 0;
    Require(flopspack_plan_group_offsets(plan, g, &offsets, &n_offsets) == FLOPSPACK_OK &&
                n_offsets == n,
            "one offset per entry");
    int64_t used = 0;
    for (size_t i = 0; i < n; ++i) {
      Require(items[i] >= 0 && static_cast<size_t>(items[i]) < placed.size(), "item id");
      Require(tokens[i] > 0, "positive piece");
      placed[items[i]] += tokens[i];
      spans[items[i]].push_back({offsets[i], tokens[i]});
      used += tokens[i];
    }
    Require(used <= capacity, "capacity respected");
  }
  flopspack_plan_destroy(plan);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  if (in.ConsumeBool()) {  // arbitrary bytes as a saved state
    std::vector<uint8_t> bytes = in.ConsumeBytes<uint8_t>(in.ConsumeIntegralInRange(0, 512));
    flopspack_stream_packer* restored = nullptr;
    if (flopspack_stream_packer_restore(bytes.data(), bytes.size(), nullptr, &restored) ==
        FLOPSPACK_OK) {
      Require(flopspack_stream_packer_flush(restored) == FLOPSPACK_OK, "flush restored");
    } else {
      Require(restored == nullptr, "out untouched on failure");
    }
    flopspack_stream_packer_destroy(restored);
    return 0;
  }
  flopspack_stream_options options;
  flopspack_stream_options_init(&options);
  options.capacity = in.ConsumeIntegralInRange<int64_t>(-1, 5000);
  options.window = in.ConsumeIntegralInRange<uint64_t>(0, 300);
  options.overflow = in.ConsumeIntegralInRange<int32_t>(-1, 3);
  options.seed = in.ConsumeIntegral<uint64_t>();
  flopspack_stream_packer* packer = nullptr;
  if (flopspack_stream_packer_create(&options, nullptr, &packer) != FLOPSPACK_OK) return 0;
  std::vector<int64_t> length_of, placed;
  Spans spans;
  while (in.remaining_bytes() > 0) {
    switch (in.ConsumeIntegralInRange(0, 4)) {
      case 0: {
        std::vector<int64_t> lengths(in.ConsumeIntegralInRange<size_t>(0, 40));
        for (int64_t& l : lengths) l = in.ConsumeIntegralInRange<int64_t>(-1, 3 * options.capacity);
        // Extreme lengths (issue 21): truncated-token and token totals
        // that would overflow int64, splits into more pieces than the
        // pending chunk holds. Rejected whole, or accepted and accounted.
        fuzz::MaybeExtremeLength(in, lengths);
        const flopspack_status pushed =
            flopspack_stream_packer_push(packer, lengths.data(), lengths.size());
        if (pushed == FLOPSPACK_OK) {
          length_of.insert(length_of.end(), lengths.begin(), lengths.end());
          placed.resize(length_of.size(), 0);
          spans.resize(length_of.size());
        } else {
          Require(pushed == FLOPSPACK_INVALID_ARGUMENT || pushed == FLOPSPACK_OUT_OF_RANGE,
                  "a push fails cleanly");
        }
        break;
      }
      case 1:
        Drain(packer, options.capacity, placed, spans);
        break;
      case 2:
        Require(flopspack_stream_packer_flush(packer) == FLOPSPACK_OK, "flush");
        break;
      default: {
        size_t needed = 0;
        Require(flopspack_stream_packer_save(packer, nullptr, 0, &needed) == FLOPSPACK_OK,
                "size query");
        std::vector<uint8_t> state(needed);
        Require(flopspack_stream_packer_save(packer, state.data(), state.size(), &needed) ==
                    FLOPSPACK_OK,
                "save");
        if (state.size() > 24 && in.ConsumeIntegralInRange(0, 3) == 0) {
          // A field rewritten to an extreme value with a valid checksum: the
          // parser must reject it, or restore a packer that only ever makes
          // sequences within its capacity (a crafted state must not
          // overflow a sum while being validated).
          const size_t field =
              8 + 8 * in.ConsumeIntegralInRange<size_t>(0, (state.size() - 24) / 8);
          const int64_t value =
              in.ConsumeBool() ? fuzz::ConsumeExtremeLength(in) : -fuzz::ConsumeExtremeLength(in);
          for (int i = 0; i < 8; ++i) {
            state[field + i] = static_cast<uint8_t>(static_cast<uint64_t>(value) >> (8 * i));
          }
          Reseal(state);
          flopspack_stream_packer* forged = nullptr;
          const flopspack_status s =
              flopspack_stream_packer_restore(state.data(), state.size(), nullptr, &forged);
          if (s != FLOPSPACK_OK) {
            Require(s == FLOPSPACK_INVALID_ARGUMENT && forged == nullptr,
                    "a forged state is rejected cleanly");
            break;
          }
          flopspack_stream_totals totals{};
          totals.struct_size = sizeof(totals);
          Require(flopspack_stream_packer_totals(forged, &totals) == FLOPSPACK_OK, "totals");
          int64_t forged_capacity = 0;  // the capacity field (after magic and version)
          for (int i = 0; i < 8; ++i) {
            forged_capacity |=
                static_cast<int64_t>(static_cast<uint64_t>(state[16 + i]) << (8 * i));
          }
          if (totals.pieces_held <= 4096) {  // forged counts may be legal but large
            const int64_t one = 1;
            flopspack_stream_packer_push(forged, &one, 1);
            Require(flopspack_stream_packer_flush(forged) == FLOPSPACK_OK, "flush forged");
            flopspack_plan* plan = nullptr;
            const flopspack_status t = flopspack_stream_packer_take(forged, &plan);
            Require(t == FLOPSPACK_OK || t == FLOPSPACK_OUT_OF_RANGE, "take of a forged state");
            for (size_t g = 0; t == FLOPSPACK_OK && g < flopspack_plan_group_count(plan); ++g) {
              const int64_t* tokens = nullptr;
              size_t n = 0;
              Require(flopspack_plan_group(plan, g, nullptr, &tokens, &n) == FLOPSPACK_OK, "group");
              int64_t used = 0;
              for (size_t i = 0; i < n; ++i) {
                Require(tokens[i] > 0 && tokens[i] <= forged_capacity, "forged piece in range");
                used += tokens[i];
              }
              Require(used <= forged_capacity, "forged sequence within capacity");
            }
            flopspack_plan_destroy(plan);
          }
          flopspack_stream_packer_destroy(forged);
          break;
        }
        if (!state.empty() && in.ConsumeBool()) {
          state[in.ConsumeIntegralInRange<size_t>(0, state.size() - 1)] ^=
              in.ConsumeIntegralInRange<uint8_t>(1, 255);
          flopspack_stream_packer* corrupt = nullptr;
          Require(flopspack_stream_packer_restore(state.data(), state.size(), nullptr, &corrupt) !=
                      FLOPSPACK_OK,
                  "a corrupted state is rejected");
          break;
        }
        flopspack_stream_packer* restored = nullptr;
        Require(flopspack_stream_packer_restore(state.data(), state.size(), nullptr, &restored) ==
                    FLOPSPACK_OK,
                "restore of a fresh save");
        flopspack_stream_packer_destroy(packer);
        packer = restored;
        break;
      }
    }
    for (size_t i = 0; i < placed.size(); ++i) {
      Require(placed[i] <= length_of[i], "no document gets more tokens than its length");
    }
  }
  Require(flopspack_stream_packer_flush(packer) == FLOPSPACK_OK, "final flush");
  Drain(packer, options.capacity, placed, spans);
  const bool truncate = options.overflow == 1;
  for (size_t i = 0; i < placed.size(); ++i) {
    const int64_t expected = truncate ? std::min(length_of[i], options.capacity) : length_of[i];
    Require(placed[i] == expected, "every accepted document is placed in full");
    std::sort(spans[i].begin(), spans[i].end());
    int64_t end = 0;
    for (const auto& [offset, tokens] : spans[i]) {
      Require(offset == end, "the pieces' offsets tile the document");
      end += tokens;
    }
  }
  flopspack_stream_packer_destroy(packer);
  return 0;
}
