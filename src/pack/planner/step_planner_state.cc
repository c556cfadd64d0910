#include "pack/planner/step_planner_state.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "pack/primitives/saved_state.h"
#include "util/random.h"
#include "util/validate.h"

namespace flopspack::pack {
namespace {

// Version 2 stores each document's extra cost and always the options
// version 1 appended after its queues; version 1 still restores (extra
// costs 0).
constexpr StateFormat kFormat = {
    {'F', 'P', 'S', 'T', 'E', 'P', 'P', 'L'}, 2, "step planner", /*oldest_version=*/1};

}  // namespace

StreamingStepPlanner::StreamingStepPlanner(const StepOptions& step,
                                           const StepPlannerOptions& stream,
                                           std::shared_ptr<const cost::CostModel> model)
    : step_(step), stream_(stream), model_(std::move(model)) {
  if (stream_.tokens_per_step == 0) {
    stream_.tokens_per_step = step_.num_ranks * step_.microbatches_per_rank * GroupCap(step_);
  }
  if (stream_.max_outliers_per_step == 0) stream_.max_outliers_per_step = step_.num_ranks;
}

absl::Status StreamingStepPlanner::Validate(const StepOptions& step,
                                            const StepPlannerOptions& stream) {
  if (absl::Status s = ValidateStepOptions(step); !s.ok()) return s;
  if (stream.tokens_per_step < 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("tokens_per_step = %d: must be >= 0", stream.tokens_per_step));
  }
  if (step.microbatches_per_rank == 0 && stream.tokens_per_step == 0) {
    return absl::InvalidArgumentError(
        "tokens_per_step = 0 means num_ranks x microbatches_per_rank x cap, which needs "
        "microbatches_per_rank > 0: set one of them");
  }
  if (step.microbatches_per_rank > 0) {
    const int64_t capacity = step.num_ranks * step.microbatches_per_rank * GroupCap(step);
    if (stream.tokens_per_step > capacity) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "tokens_per_step = %d exceeds num_ranks x microbatches_per_rank x cap%s = %d",
          stream.tokens_per_step, ContextParallelSize(step) > 1 ? " x context_parallel_size" : "",
          capacity));
    }
  }
  if (stream.outlier_min_tokens < 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "outlier_min_tokens = %d: must be >= 0 (0 = no outlier queue)", stream.outlier_min_tokens));
  }
  if (stream.max_defer_steps < 0 || stream.max_defer_steps > (1 << 20)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "max_defer_steps = %d: must be between 0 and %d", stream.max_defer_steps, 1 << 20));
  }
  if (stream.max_outliers_per_step < 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "max_outliers_per_step = %d: must be >= 0 (0 = num_ranks)", stream.max_outliers_per_step));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<StreamingStepPlanner>> StreamingStepPlanner::Create(
    const StepOptions& step, const StepPlannerOptions& stream,
    std::shared_ptr<const cost::CostModel> model) {
  if (model == nullptr) return absl::InvalidArgumentError("model must not be null");
  if (absl::Status s = Validate(step, stream); !s.ok()) return s;
  return std::unique_ptr<StreamingStepPlanner>(
      new StreamingStepPlanner(step, stream, std::move(model)));
}

absl::StatusOr<int64_t> StreamingStepPlanner::Push(absl::Span<const int64_t> lengths,
                                                   absl::Span<const double> extra_costs) {
  absl::StatusOr<int64_t> total = util::CheckLengths("lengths", lengths);
  if (!total.ok()) return total.status();
  if (absl::Status s = CheckExtraCosts(extra_costs, lengths.size()); !s.ok()) return s;
  if (step_.overflow != Overflow::kSplit) {
    for (size_t i = 0; i < lengths.size(); ++i) {
      if (lengths[i] > GroupCap(step_)) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "lengths[%u] = %d exceeds max_tokens_per_microbatch%s = %d: a streaming planner whose "
            "overflow policy is not split can never place it (split it, or drop it upstream)",
            i, lengths[i], ContextParallelSize(step_) > 1 ? " x context_parallel_size" : "",
            GroupCap(step_)));
      }
    }
  }
  if (step_.microbatches_per_rank > 0) {
    for (size_t i = 0; i < lengths.size(); ++i) {
      if (lengths[i] > stream_.tokens_per_step) {
        return absl::InvalidArgumentError(
            absl::StrFormat("lengths[%u] = %d exceeds tokens_per_step = %d: no step could hold it",
                            i, lengths[i], stream_.tokens_per_step));
      }
    }
  }
  // A document that alone makes more items than a step can place would be
  // selected, fail, and stay at the front of the queue forever.
  const int64_t item_budget = StepItemBudget(step_);
  for (size_t i = 0; i < lengths.size(); ++i) {
    const int64_t pieces = StepPieces(lengths[i], GroupCap(step_));
    if (pieces > item_budget) {
      return absl::OutOfRangeError(absl::StrFormat(
          "lengths[%u] = %d: split at max_tokens_per_microbatch%s = %d it makes %d pieces, more "
          "than one step of %d ranks can hold (%d)",
          i, lengths[i], ContextParallelSize(step_) > 1 ? " x context_parallel_size" : "",
          GroupCap(step_), pieces, step_.num_ranks, item_budget));
    }
  }
  if (*total > std::numeric_limits<int64_t>::max() - pending_tokens_) {
    return absl::OutOfRangeError("pending tokens would overflow int64");
  }
  const int64_t first = next_id_;
  for (size_t i = 0; i < lengths.size(); ++i) {
    queue_.push_back({next_id_++, lengths[i], 0, extra_costs.empty() ? 0.0 : extra_costs[i]});
  }
  pending_tokens_ += *total;
  return first;
}

absl::StatusOr<Plan> StreamingStepPlanner::Next() {
  // Choose without touching the queues, plan, and only then commit, so a
  // failing cost model leaves the planner as it was.
  const int64_t budget = stream_.tokens_per_step;
  // Besides tokens, a step is limited in items (documents and pieces): with
  // M = 0 and a small cap, documents within the token budget could still
  // need more microbatches than one step may have. Push() guarantees each
  // document alone is within it. Sums stay below 2^63: tokens are pending
  // tokens, items at most 2 x 2^31.
  const int64_t item_budget = StepItemBudget(step_);
  const int64_t cap = GroupCap(step_);
  std::vector<Doc> selected;
  std::deque<Doc> waiting;  // outliers held back after this step
  int64_t tokens = 0, items = 0, outliers_taken = 0;
  auto fits = [&](const Doc& d) {
    return tokens + d.length <= budget && items + StepPieces(d.length, cap) <= item_budget;
  };
  auto select = [&](const Doc& d) {
    selected.push_back(d);
    tokens += d.length;
    items += StepPieces(d.length, cap);
  };
  auto take_outlier = [&](const Doc& d) {
    if (outliers_taken < stream_.max_outliers_per_step && fits(d)) {
      select(d);
      ++outliers_taken;
    } else {
      waiting.push_back(d);
    }
  };
  // 1. Outliers that are due, whatever the per-step limit (but within the
  // step's tokens, so the step stays plannable); 2. the others, oldest
  // first, under the per-step limit.
  for (const Doc& d : outliers_) {
    if (d.waited < stream_.max_defer_steps) continue;
    // An outlier longer than the whole step (possible with M = 0, where the
    // step grows to hold it) would otherwise wait forever: it goes alone.
    if (fits(d) || selected.empty()) {
      select(d);
      ++outliers_taken;
    } else {
      waiting.push_back(d);  // only when due outliers overflow a whole step
    }
  }
  for (const Doc& d : outliers_) {
    if (d.waited < stream_.max_defer_steps) take_outlier(d);
  }
  // 3. The front of the queue.
  size_t from_queue = 0;
  for (; from_queue < queue_.size(); ++from_queue) {
    const Doc& d = queue_[from_queue];
    if (IsOutlier(d.length)) {
      take_outlier(d);
      continue;
    }
    if (!fits(d)) {
      // A budget smaller than the first document would stall the stream:
      // such a document goes alone (it fits a microbatch, or is split).
      if (selected.empty()) {
        select(d);
        ++from_queue;
      }
      break;
    }
    select(d);
  }

  std::vector<int64_t> lengths, ids;
  std::vector<double> extra;
  lengths.reserve(selected.size());
  ids.reserve(selected.size());
  bool any_extra = false;
  for (const Doc& d : selected) {
    lengths.push_back(d.length);
    ids.push_back(d.id);
    any_extra = any_extra || d.extra != 0;
  }
  // Only a step with extra costs passes them (zeros for the documents
  // pushed without): the plan is PlanStepWithExtraCosts's on these
  // documents either way, since zero extra costs give PlanStep's plan.
  if (any_extra) {
    extra.reserve(selected.size());
    for (const Doc& d : selected) extra.push_back(d.extra);
  }
  StepOptions o = step_;
  o.seed = util::DeriveSeed(step_.seed, static_cast<uint64_t>(steps_));
  o.overflow = step_.overflow == Overflow::kSplit ? Overflow::kSplit : Overflow::kDefer;
  absl::StatusOr<Plan> plan = PlanStepWithExtraCosts(o, *model_, lengths, extra, ids);
  if (!plan.ok()) return plan.status();

  // Commit. What the plan could not place goes back: outliers to the
  // outlier queue, the rest to the front of the queue, in push order.
  std::vector<Doc> back_to_queue;
  int64_t placed_tokens = tokens;
  for (int64_t id : plan->deferred()) {
    const auto it =
        std::find_if(selected.begin(), selected.end(), [&](const Doc& d) { return d.id == id; });
    placed_tokens -= it->length;
    if (IsOutlier(it->length)) {
      waiting.push_back(*it);
    } else {
      back_to_queue.push_back(*it);
    }
  }
  queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(from_queue));
  std::sort(back_to_queue.begin(), back_to_queue.end(),
            [](const Doc& a, const Doc& b) { return a.id < b.id; });
  for (auto it = back_to_queue.rbegin(); it != back_to_queue.rend(); ++it) queue_.push_front(*it);
  std::sort(waiting.begin(), waiting.end(), [](const Doc& a, const Doc& b) { return a.id < b.id; });
  for (Doc& d : waiting) ++d.waited;
  outliers_ = std::move(waiting);
  pending_tokens_ -= placed_tokens;
  ++steps_;

  // The plan's deferred list: everything that was due in this step and waits.
  std::vector<int64_t> deferred;
  int64_t deferred_tokens = 0;
  for (const Doc& d : back_to_queue) {
    deferred.push_back(d.id);
    deferred_tokens += d.length;
  }
  for (const Doc& d : outliers_) {
    deferred.push_back(d.id);
    deferred_tokens += d.length;
  }
  std::sort(deferred.begin(), deferred.end());
  plan->deferred() = std::move(deferred);
  plan->metrics().deferred_items = plan->deferred().size();
  plan->metrics().deferred_tokens = deferred_tokens;
  return plan;
}

std::string StreamingStepPlanner::Save() const {
  StateWriter w(kFormat);
  w.I64(step_.num_ranks);
  w.I64(step_.microbatches_per_rank);
  w.I64(step_.max_tokens_per_microbatch);
  w.I64(static_cast<int64_t>(step_.algorithm));
  w.U64(step_.seed);
  w.I64(static_cast<int64_t>(step_.ordering));
  w.I64(static_cast<int64_t>(step_.overflow));
  w.I64(step_.refine ? 1 : 0);
  w.F64(step_.tolerance);
  w.I64(stream_.tokens_per_step);
  w.I64(stream_.outlier_min_tokens);
  w.I64(stream_.max_defer_steps);
  w.I64(stream_.max_outliers_per_step);
  w.I64(next_id_);
  w.I64(steps_);
  w.U64(queue_.size());
  for (const Doc& d : queue_) {
    w.I64(d.id);
    w.I64(d.length);
    w.F64(d.extra);
  }
  w.U64(outliers_.size());
  for (const Doc& d : outliers_) {
    w.I64(d.id);
    w.I64(d.length);
    w.I64(d.waited);
    w.F64(d.extra);
  }
  // The synchronization model and context parallelism (version 1 appended
  // them here, optionally; version 2 always writes them).
  w.I64(static_cast<int64_t>(step_.sync));
  w.I64(step_.pipeline_stages);
  w.I64(static_cast<int64_t>(step_.pipeline_schedule));
  w.I64(step_.context_parallel_size);
  w.I64(static_cast<int64_t>(step_.context_parallel_layout));
  return std::move(w).Finish();
}

absl::StatusOr<std::unique_ptr<StreamingStepPlanner>> StreamingStepPlanner::Restore(
    absl::string_view bytes, std::shared_ptr<const cost::CostModel> model) {
  if (model == nullptr) return absl::InvalidArgumentError("model must not be null");
  absl::StatusOr<StateReader> reader = StateReader::Open(bytes, kFormat);
  if (!reader.ok()) return reader.status();
  StateReader& r = *reader;
  auto Corrupt = [&r](absl::string_view what) { return r.Corrupt(what); };
  StepOptions step;
  StepPlannerOptions stream;
  int64_t algorithm = 0, ordering = 0, overflow = 0, refine = 0, next_id = 0, steps = 0;
  bool ok = r.I64(&step.num_ranks) && r.I64(&step.microbatches_per_rank) &&
            r.I64(&step.max_tokens_per_microbatch) && r.I64(&algorithm) && r.U64(&step.seed) &&
            r.I64(&ordering) && r.I64(&overflow) && r.I64(&refine) && r.F64(&step.tolerance) &&
            r.I64(&stream.tokens_per_step) && r.I64(&stream.outlier_min_tokens) &&
            r.I64(&stream.max_defer_steps) && r.I64(&stream.max_outliers_per_step) &&
            r.I64(&next_id) && r.I64(&steps);
  if (!ok) return Corrupt("truncated header");
  auto in_range = [](int64_t v, int64_t hi) { return v >= 0 && v <= hi; };
  if (!in_range(algorithm, 3) || !in_range(ordering, 2) ||
      !(overflow == 0 || overflow == 2 || overflow == 3) || !in_range(refine, 1)) {
    return Corrupt("an option is out of range");
  }
  step.algorithm = static_cast<StepAlgorithm>(algorithm);
  step.ordering = static_cast<SlotOrder>(ordering);
  step.overflow = static_cast<Overflow>(overflow);
  step.refine = refine == 1;
  // The queues come before the options appended later (synchronization,
  // context parallelism), which the checks of their documents need: read
  // everything, then check.
  // Version 1 has no extra costs (resize() leaves them 0) and may end
  // after the queues or after the synchronization options; version 2 has
  // them all.
  const bool v1 = r.version() == 1;
  const uint64_t extra_bytes = v1 ? 0 : 8;
  uint64_t count = 0;
  std::vector<Doc> queue, outliers;
  if (!r.Count(16 + extra_bytes, &count)) return Corrupt("bad queue length");
  queue.resize(count);
  for (Doc& d : queue) {
    r.I64(&d.id);
    r.I64(&d.length);
    if (!v1) r.F64(&d.extra);
  }
  if (!r.Count(24 + extra_bytes, &count)) return Corrupt("bad outlier queue length");
  outliers.resize(count);
  for (Doc& d : outliers) {
    r.I64(&d.id);
    r.I64(&d.length);
    r.I64(&d.waited);
    if (!v1) r.F64(&d.extra);
  }
  if (!v1 && r.remaining() != 40) return Corrupt("bad option block after the queues");
  if (r.remaining() >= 24) {
    int64_t sync = 0, stages = 0, schedule = 0;
    r.I64(&sync);
    r.I64(&stages);
    r.I64(&schedule);
    if (!in_range(sync, 1) || !in_range(stages, kMaxPipelineStages) || !in_range(schedule, 0)) {
      return Corrupt("a synchronization option is out of range");
    }
    step.sync = static_cast<StepSync>(sync);
    step.pipeline_stages = stages;
    step.pipeline_schedule = static_cast<PipelineSchedule>(schedule);
  }
  if (r.remaining() >= 16) {
    int64_t cp = 0, layout = 0;
    r.I64(&cp);
    r.I64(&layout);
    if (!in_range(cp, kMaxContextParallelSize) || !in_range(layout, 2)) {
      return Corrupt("a context-parallel option is out of range");
    }
    step.context_parallel_size = cp;
    step.context_parallel_layout = static_cast<CpLayout>(layout);
  }
  if (r.remaining() != 0) return Corrupt("trailing bytes");
  if (absl::Status s = Validate(step, stream); !s.ok()) return Corrupt(s.message());
  // Counters far beyond any real run would overflow when incremented.
  constexpr int64_t kMaxCounter = int64_t{1} << 62;
  if (next_id < 0 || steps < 0 || next_id > kMaxCounter || steps > kMaxCounter) {
    return Corrupt("a counter is out of range");
  }
  auto planner = std::unique_ptr<StreamingStepPlanner>(
      new StreamingStepPlanner(step, stream, std::move(model)));
  planner->next_id_ = next_id;
  planner->steps_ = steps;
  // Every document must be one Push() could have accepted (a saved state
  // is never trusted beyond what the planner itself could have produced):
  // a positive length within the cap unless split, within a step when M >
  // 0, pending tokens within int64, ids below next_id and ascending in each
  // queue (both queues are kept in push order), and no outlier waiting
  // longer than the steps planned so far, and a finite, non-negative
  // extra cost.
  auto acceptable = [&](const Doc& d, int64_t& pending) {
    if (d.length <= 0 || d.id < 0 || d.id >= next_id) return false;
    if (!std::isfinite(d.extra) || d.extra < 0) return false;
    if (step.overflow != Overflow::kSplit && d.length > GroupCap(step)) return false;
    if (step.microbatches_per_rank > 0 && d.length > planner->stream_.tokens_per_step) {
      return false;
    }
    if (StepPieces(d.length, GroupCap(step)) > StepItemBudget(step)) return false;
    if (d.length > std::numeric_limits<int64_t>::max() - pending) return false;
    pending += d.length;
    return true;
  };
  int64_t pending = 0;
  for (size_t k = 0; k < queue.size(); ++k) {
    const Doc& d = queue[k];
    if (!acceptable(d, pending) || (k > 0 && d.id <= planner->queue_.back().id)) {
      return Corrupt("bad queued document");
    }
    planner->queue_.push_back(d);
  }
  for (size_t k = 0; k < outliers.size(); ++k) {
    const Doc& d = outliers[k];
    if (!acceptable(d, pending) || d.waited < 0 || d.waited > steps ||
        (k > 0 && d.id <= planner->outliers_.back().id)) {
      return Corrupt("bad outlier");
    }
    planner->outliers_.push_back(d);
  }
  // No document in both queues (each is ascending: one merge pass).
  for (size_t i = 0, j = 0; i < planner->queue_.size() && j < planner->outliers_.size();) {
    if (planner->queue_[i].id == planner->outliers_[j].id) return Corrupt("duplicate document");
    if (planner->queue_[i].id < planner->outliers_[j].id) {
      ++i;
    } else {
      ++j;
    }
  }
  planner->pending_tokens_ = pending;
  return planner;
}

}  // namespace flopspack::pack
