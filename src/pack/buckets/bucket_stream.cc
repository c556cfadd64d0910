#include "pack/buckets/bucket_stream.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "util/random.h"

namespace flopspack::pack {

absl::StatusOr<std::unique_ptr<BucketStream>> BucketStream::Create(
    const BucketSamplerOptions& options, std::shared_ptr<const cost::CostModel> model,
    int64_t buffer_size) {
  if (buffer_size < 1) {
    return absl::InvalidArgumentError(
        absl::StrFormat("buffer_size = %d: a chunk needs at least one sample", buffer_size));
  }
  // The options are checked once, on a one-sample probe that any valid
  // options accept (a budget error on the probe is not an options error).
  const int64_t probe = 1;
  absl::StatusOr<std::unique_ptr<BucketSampler>> check =
      BucketSampler::Create(options, model, {&probe, 1});
  if (!check.ok() && check.status().code() == absl::StatusCode::kInvalidArgument) {
    return check.status();
  }
  std::unique_ptr<BucketStream> s(new BucketStream());
  s->options_ = options;
  s->model_ = std::move(model);
  s->buffer_size_ = buffer_size;
  return s;
}

absl::Status BucketStream::Seal() {
  const int64_t chunk_first = buffer_first_;
  std::vector<int64_t> chunk;
  chunk.swap(buffer_);
  buffer_first_ += static_cast<int64_t>(chunk.size());
  if (chunk.empty()) return absl::OkStatus();
  BucketSamplerOptions o = options_;
  o.seed = util::DeriveSeed(options_.seed, static_cast<uint64_t>(chunks_++));
  const int64_t per_step = o.num_ranks * o.accumulation_steps;
  if (flushed_ && static_cast<int64_t>(chunk.size()) < per_step) {
    // A final chunk too small for one step: listed, never silently lost.
    for (size_t i = 0; i < chunk.size(); ++i) leftover_.push_back(chunk_first + i);
    return absl::OkStatus();
  }
  absl::StatusOr<std::unique_ptr<BucketSampler>> sampler = BucketSampler::Create(o, model_, chunk);
  if (!sampler.ok() && flushed_ &&
      sampler.status().code() == absl::StatusCode::kFailedPrecondition &&
      absl::StrContains(sampler.status().message(), "pad_last")) {
    // The final chunk cannot fill a step without repeating samples.
    for (size_t i = 0; i < chunk.size(); ++i) leftover_.push_back(chunk_first + i);
    return absl::OkStatus();
  }
  if (!sampler.ok()) {
    failed_ = true;
    return absl::Status(
        sampler.status().code(),
        absl::StrFormat("chunk %d (stream samples %d..%d): %s", chunks_ - 1, chunk_first,
                        chunk_first + chunk.size() - 1, sampler.status().message()));
  }
  active_ = std::move(*sampler);
  for (int64_t i : active_->deferred()) deferred_.push_back(chunk_first + i);
  active_first_ = chunk_first;
  active_step_ = 0;
  return absl::OkStatus();
}

absl::StatusOr<size_t> BucketStream::Push(absl::Span<const int64_t> lengths) {
  if (failed_) return absl::FailedPreconditionError("the stream failed earlier");
  if (flushed_) return absl::FailedPreconditionError("push after flush: the stream has ended");
  size_t accepted = 0;
  for (int64_t length : lengths) {
    if (static_cast<int64_t>(buffer_.size()) == buffer_size_) {
      if (active_ != nullptr) break;
      if (absl::Status s = Seal(); !s.ok()) return s;
    }
    buffer_.push_back(length);
    ++accepted;
    ++pushed_;
  }
  if (static_cast<int64_t>(buffer_.size()) == buffer_size_ && active_ == nullptr) {
    if (absl::Status s = Seal(); !s.ok()) return s;
  }
  return accepted;
}

absl::Status BucketStream::Flush() {
  if (failed_) return absl::FailedPreconditionError("the stream failed earlier");
  flushed_ = true;
  if (active_ == nullptr) return Seal();
  return absl::OkStatus();
}

absl::StatusOr<int64_t> BucketStream::Ready() {
  if (failed_) return absl::FailedPreconditionError("the stream failed earlier");
  if (active_ == nullptr) return int64_t{0};
  return active_->steps_per_epoch() - active_step_;
}

absl::StatusOr<Plan> BucketStream::Take() {
  if (failed_) return absl::FailedPreconditionError("the stream failed earlier");
  if (active_ == nullptr) {
    return absl::OutOfRangeError(
        flushed_ ? "the stream is exhausted: every step has been taken"
                 : "no step is ready: push more lengths (or flush at the end of the stream)");
  }
  absl::StatusOr<Plan> step = active_->Step(0, static_cast<uint64_t>(active_step_));
  if (!step.ok()) return step.status();
  // Global indices and stream-wide slots; the same metrics.
  Plan plan;
  const int64_t accumulation = options_.accumulation_steps;
  std::vector<int64_t> ranks, slots;
  for (size_t g = 0; g < step->group_count(); ++g) {
    std::vector<int64_t> items(step->group_items(g).begin(), step->group_items(g).end());
    for (int64_t& i : items) i += active_first_;
    plan.AddGroup(items, step->group_tokens(g), step->group_computed_tokens(g),
                  step->group_cost(g));
    ranks.push_back(step->group_rank(g));
    slots.push_back(steps_taken_ * accumulation + step->group_slot(g) % accumulation);
  }
  plan.metrics() = step->metrics();
  plan.SetSlots(std::move(ranks), std::move(slots));
  ++steps_taken_;
  if (++active_step_ == active_->steps_per_epoch()) {
    active_.reset();
    if (static_cast<int64_t>(buffer_.size()) == buffer_size_ || (flushed_ && !buffer_.empty())) {
      if (absl::Status s = Seal(); !s.ok()) return s;
    }
  }
  return plan;
}

}  // namespace flopspack::pack
