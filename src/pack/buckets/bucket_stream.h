// The streaming bucket sampler: padded batches from lengths that arrive as
// a stream (an iterable dataset), with memory bounded by a buffer.
//
// What: lengths are pushed in stream order and given global indices 0, 1,
// 2, ... Every `buffer_size` samples form a chunk; a chunk is sampled by the
// offline BucketSampler (bucket_sampler.h: budget-aware buckets, the
// balanced cut, systematic steps, LPT ranks) seeded with DeriveSeed(seed,
// chunk number), and its steps are handed out in order. While a chunk's
// steps are being taken the next chunk fills; Push accepts no more once that
// buffer is full, so at most two chunks are held (2 x buffer_size lengths
// plus one chunk's layout). After Flush the last, partial chunk is sampled
// the same way; if it holds fewer samples than one step has batches
// (num_ranks x accumulation_steps) it cannot form a step and its samples are
// listed by Leftover() (counted, never silently lost).
// Like lhotse's DynamicBucketingSampler, a sample only ever shares a batch
// with samples of its buffer; unlike it, the buffer is cut into chunks so
// that every sample is used exactly once and the stream's steps are a pure
// function of (lengths, options, seed): resume by pushing the same lengths
// again and discarding the steps already taken (docs/buckets.md).
// Complexity: the offline sampler's per chunk, O(buffer log buffer).
// Guarantees: every pushed sample in exactly one step or in Leftover();
// budgets as in the offline sampler; deterministic on every platform.
#ifndef FLOPSPACK_PACK_BUCKETS_BUCKET_STREAM_H_
#define FLOPSPACK_PACK_BUCKETS_BUCKET_STREAM_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "cost/cost_model.h"
#include "pack/buckets/bucket_sampler.h"
#include "pack/primitives/plan.h"

namespace flopspack::pack {

class BucketStream {
 public:
  // options as for BucketSampler (explicit upper_bounds apply to every
  // chunk); buffer_size >= 1 samples per chunk. InvalidArgument for bad
  // options (checked here, not at the first chunk).
  static absl::StatusOr<std::unique_ptr<BucketStream>> Create(
      const BucketSamplerOptions& options, std::shared_ptr<const cost::CostModel> model,
      int64_t buffer_size);

  // Appends lengths in stream order; returns how many were accepted (fewer
  // than given when the buffer is full while a chunk's steps remain: take
  // steps, then push the rest). Errors: Push after Flush
  // (FailedPrecondition); errors of sampling a full chunk (a bad length,
  // an over-budget sample with overflow = error), after which the stream
  // is unusable.
  absl::StatusOr<size_t> Push(absl::Span<const int64_t> lengths);
  // The end of the stream: the partial chunk will be sampled.
  absl::Status Flush();
  // Steps that Take can return now.
  absl::StatusOr<int64_t> Ready();
  // The next step: num_ranks x accumulation_steps groups as in a
  // BucketSampler step plan (slots count from 0 within the stream), items
  // are global stream indices. OutOfRange when no step is ready.
  absl::StatusOr<Plan> Take();

  // Samples of a final chunk too small for one step (ascending indices).
  const std::vector<int64_t>& leftover() const { return leftover_; }
  // Over-budget samples left out with overflow = defer (ascending indices,
  // of the chunks sampled so far).
  const std::vector<int64_t>& deferred() const { return deferred_; }
  int64_t pushed() const { return pushed_; }
  int64_t steps_taken() const { return steps_taken_; }

 private:
  BucketStream() = default;
  absl::Status Seal();  // buffer -> active chunk

  BucketSamplerOptions options_;
  std::shared_ptr<const cost::CostModel> model_;
  int64_t buffer_size_ = 0;
  std::vector<int64_t> buffer_;
  int64_t buffer_first_ = 0;  // global index of buffer_[0]
  std::unique_ptr<BucketSampler> active_;
  int64_t active_first_ = 0, active_step_ = 0, chunks_ = 0;
  int64_t pushed_ = 0, steps_taken_ = 0;
  bool flushed_ = false, failed_ = false;
  std::vector<int64_t> leftover_, deferred_;
};

}  // namespace flopspack::pack

#endif  // FLOPSPACK_PACK_BUCKETS_BUCKET_STREAM_H_
