// extern "C" entry points of the streaming packer.
#include <memory>
#include <string>

#include "capi/capi_util.h"
#include "capi/handles.h"
#include "pack/stream/stream_packer.h"

using flopspack::capi::FromStatus;
using flopspack::capi::Guard;
using flopspack::capi::ReadEnum;
using flopspack::capi::ReadOptions;
using flopspack::capi::RequireArray;
using flopspack::capi::RequireNonNull;
using flopspack::capi::SetError;
using flopspack::capi::WriteOutput;
using flopspack::pack::StreamPacker;

struct flopspack_stream_packer {
  std::unique_ptr<StreamPacker> packer;
};

namespace {

std::shared_ptr<const flopspack::cost::CostModel> SharedModelOf(const flopspack_cost_model* model) {
  return model == nullptr ? nullptr : model->model;
}

}  // namespace

static_assert(static_cast<int>(flopspack::pack::Overflow::kError) == FLOPSPACK_OVERFLOW_ERROR &&
                  static_cast<int>(flopspack::pack::Overflow::kTruncate) ==
                      FLOPSPACK_OVERFLOW_TRUNCATE &&
                  static_cast<int>(flopspack::pack::Overflow::kSplit) == FLOPSPACK_OVERFLOW_SPLIT,
              "core and C overflow values agree");

extern "C" {

void flopspack_stream_options_init(flopspack_stream_options* options) {
  if (options == nullptr) return;
  *options = flopspack_stream_options{};
  options->struct_size = sizeof(flopspack_stream_options);
  options->window = 10000;
  options->overflow = FLOPSPACK_OVERFLOW_SPLIT;
}

flopspack_status flopspack_stream_packer_create(const flopspack_stream_options* options,
                                                const flopspack_cost_model* model,
                                                flopspack_stream_packer** out) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(options, "options")) return s;
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    flopspack_stream_options o;
    flopspack_stream_options_init(&o);
    if (flopspack_status s = ReadOptions(options, &o, "flopspack_stream_options")) return s;
    flopspack::pack::StreamOptions core;
    if (flopspack_status s = ReadEnum(
            o.overflow,
            {FLOPSPACK_OVERFLOW_ERROR, FLOPSPACK_OVERFLOW_TRUNCATE, FLOPSPACK_OVERFLOW_SPLIT},
            absl::StrFormat("overflow = %d: the stream packer takes FLOPSPACK_OVERFLOW_ERROR, "
                            "_TRUNCATE or _SPLIT",
                            o.overflow),
            &core.overflow)) {
      return s;
    }
    core.capacity = o.capacity;
    core.window = o.window;
    core.seed = o.seed;
    auto packer = StreamPacker::Create(core, SharedModelOf(model));
    if (!packer.ok()) return FromStatus(packer.status());
    *out = new flopspack_stream_packer{std::move(*packer)};
    return FLOPSPACK_OK;
  });
}

flopspack_status flopspack_stream_packer_push(flopspack_stream_packer* packer,
                                              const int64_t* lengths, size_t n) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(packer, "packer")) return s;
    if (flopspack_status s = RequireArray(lengths, n, sizeof(int64_t), "lengths")) return s;
    return FromStatus(packer->packer->Push(absl::MakeConstSpan(lengths, n)));
  });
}

flopspack_status flopspack_stream_packer_flush(flopspack_stream_packer* packer) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(packer, "packer")) return s;
    return FromStatus(packer->packer->Flush());
  });
}

flopspack_status flopspack_stream_packer_ready(const flopspack_stream_packer* packer,
                                               size_t* out_sequences) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(packer, "packer")) return s;
    if (flopspack_status s = RequireNonNull(out_sequences, "out_sequences")) return s;
    *out_sequences = packer->packer->ready_sequences();
    return FLOPSPACK_OK;
  });
}

flopspack_status flopspack_stream_packer_take(flopspack_stream_packer* packer,
                                              flopspack_plan** out) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(packer, "packer")) return s;
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    absl::StatusOr<flopspack::pack::Plan> taken = packer->packer->Take();
    if (!taken.ok()) return FromStatus(taken.status());
    *out = new flopspack_plan(std::move(*taken));
    return FLOPSPACK_OK;
  });
}

flopspack_status flopspack_stream_packer_totals(const flopspack_stream_packer* packer,
                                                flopspack_stream_totals* out) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(packer, "packer")) return s;
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    const StreamPacker& p = *packer->packer;
    flopspack_stream_totals full{};
    full.struct_size = sizeof(full);
    full.documents_pushed = p.documents_pushed();
    full.pieces_held = p.pieces_held();
    full.sequences_emitted = p.sequences_emitted();
    full.tokens_emitted = p.tokens_emitted();
    full.split_documents = p.split_documents();
    full.truncated_documents = p.truncated_documents();
    full.truncated_tokens = p.truncated_tokens();
    return WriteOutput(full, out, "flopspack_stream_totals");
  });
}

flopspack_status flopspack_stream_packer_save_size(const flopspack_stream_packer* packer,
                                                   size_t* size) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(packer, "packer")) return s;
    if (flopspack_status s = RequireNonNull(size, "size")) return s;
    *size = packer->packer->Save().size();
    return FLOPSPACK_OK;
  });
}

flopspack_status flopspack_stream_packer_save(const flopspack_stream_packer* packer, void* buffer,
                                              size_t capacity, size_t* size) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(packer, "packer")) return s;
    if (flopspack_status s = RequireNonNull(size, "size")) return s;
    const std::string state = packer->packer->Save();
    *size = state.size();
    if (buffer == nullptr) return FLOPSPACK_OK;
    if (capacity < state.size()) {
      return SetError(
          FLOPSPACK_BUFFER_TOO_SMALL,
          absl::StrFormat("the buffer holds %u bytes; the state needs %u", capacity, state.size()));
    }
    std::memcpy(buffer, state.data(), state.size());
    return FLOPSPACK_OK;
  });
}

flopspack_status flopspack_stream_packer_restore(const void* bytes, size_t size,
                                                 const flopspack_cost_model* model,
                                                 flopspack_stream_packer** out) {
  return Guard([&] {
    if (flopspack_status s = RequireArray(bytes, size, 1, "bytes")) return s;
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    auto packer = StreamPacker::Restore(
        absl::MakeConstSpan(static_cast<const uint8_t*>(bytes), size), SharedModelOf(model));
    if (!packer.ok()) return FromStatus(packer.status());
    *out = new flopspack_stream_packer{std::move(*packer)};
    return FLOPSPACK_OK;
  });
}

void flopspack_stream_packer_destroy(flopspack_stream_packer* packer) { delete packer; }

}  // extern "C"
