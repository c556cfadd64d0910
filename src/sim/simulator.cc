#include "sim/simulator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <utility>

#include "absl/strings/str_format.h"
#include "pack/planner/pipeline_schedule.h"
#include "pack/planner/sync_metrics.h"
#include "stats/order_statistics.h"
#include "util/checked.h"
#include "util/random.h"
#include "util/validate.h"

namespace flopspack::sim {
namespace {

constexpr size_t kEfficiencyBins = size_t{1} << 16;
constexpr size_t kReservoirCapacity = size_t{1} << 20;
constexpr int64_t kMaxTokensPerMicrobatch = int64_t{1} << 24;
constexpr uint64_t kMaxMicrobatches = uint64_t{1} << 31;

// Costs microbatches. Additive models read a table of per-length document
// costs (pieces never exceed the largest piece length, known up front);
// other models are asked per sequence.
class Coster {
 public:
  // context_parallel_size > 1: every microbatch is sharded over that many
  // CP ranks with `layout` (ShardSequence) and costs its slowest CP rank;
  // its useful work is the mean CP rank's.
  static absl::StatusOr<Coster> Make(const cost::CostModel& model, int64_t max_piece,
                                     int64_t context_parallel_size, pack::CpLayout layout) {
    Coster c;
    c.model_ = &model;
    c.cp_ = context_parallel_size;
    c.layout_ = layout;
    c.additive_ = model.IsAdditive();
    c.overhead_ = model.SequenceOverhead();
    if (c.additive_) {
      c.table_.resize(static_cast<size_t>(max_piece) + 1, 0.0);
      for (int64_t l = 1; l <= max_piece; ++l) {
        absl::StatusOr<double> d = model.DocumentCost(l);
        if (!d.ok()) return d.status();
        c.table_[static_cast<size_t>(l)] = *d;
      }
    }
    return c;
  }

  // Cost of the microbatch, and the part of it that is not padding. extras:
  // the extra cost of each piece, or empty.
  absl::Status Cost(absl::Span<const int64_t> pieces, absl::Span<const double> extras, bool padded,
                    double& cost, double& useful) const {
    if (absl::Status s = ModelCost(pieces, padded, cost, useful); !s.ok()) return s;
    if (extras.empty()) return absl::OkStatus();
    double sum = 0;
    for (double e : extras) sum += e;
    // Under CP each CP rank pays an even share (the step planner's rule).
    const double share = cp_ > 1 && !padded ? sum / static_cast<double>(cp_) : sum;
    cost += share;
    useful += share;
    return absl::OkStatus();
  }

 private:
  absl::Status ModelCost(absl::Span<const int64_t> pieces, bool padded, double& cost,
                         double& useful) const {
    cost = useful = 0;
    if (pieces.empty()) return absl::OkStatus();
    if (cp_ > 1 && !padded) {
      // Each piece attends within itself; where it starts in its document
      // does not change its chunks' costs (the planner's convention).
      shard_.offsets.assign(1, 0);
      shard_.items.clear();
      shard_.chunk_offsets.clear();
      shard_.lengths.clear();
      shard_.costs.clear();
      shard_.kv_tokens.clear();
      shard_.layouts.clear();
      shard_.balances.clear();
      shard_.context_parallel_size = cp_;
      items_.resize(pieces.size());
      for (size_t k = 0; k < pieces.size(); ++k) items_[k] = static_cast<int64_t>(k);
      zeros_.assign(pieces.size(), 0);
      if (absl::Status s = pack::ShardSequence(items_, pieces, zeros_, *model_, layout_, shard_);
          !s.ok()) {
        return s;
      }
      double sum = 0;
      for (double x : shard_.costs) {
        cost = std::max(cost, x);
        sum += x;
      }
      useful = sum / static_cast<double>(cp_);
      return absl::OkStatus();
    }
    if (!padded) {
      if (additive_) {
        double sum = overhead_;
        for (int64_t p : pieces) sum += table_[static_cast<size_t>(p)];
        cost = useful = sum;
        return absl::OkStatus();
      }
      absl::StatusOr<double> c = model_->SequenceCost(pieces);
      if (!c.ok()) return c.status();
      cost = useful = *c;
      return absl::OkStatus();
    }
    // Padded: every piece its own sequence, padded to the longest.
    const int64_t longest = *std::max_element(pieces.begin(), pieces.end());
    absl::StatusOr<double> one = Single(longest);
    if (!one.ok()) return one.status();
    cost = static_cast<double>(pieces.size()) * *one;
    for (int64_t p : pieces) {
      absl::StatusOr<double> c = Single(p);
      if (!c.ok()) return c.status();
      useful += *c;
    }
    return absl::OkStatus();
  }

  absl::StatusOr<double> Single(int64_t length) const {
    if (additive_) return overhead_ + table_[static_cast<size_t>(length)];
    return model_->SequenceCost({&length, 1});
  }

  const cost::CostModel* model_ = nullptr;
  int64_t cp_ = 1;
  pack::CpLayout layout_ = pack::CpLayout::kDocumentHeadTail;
  mutable pack::CpShard shard_;
  mutable std::vector<int64_t> items_, zeros_;
  bool additive_ = false;
  double overhead_ = 0;
  std::vector<double> table_;
};

// A uniform sample of at most `capacity` of the values offered (Vitter's
// algorithm R), with the library's RNG.
class Reservoir {
 public:
  Reservoir(size_t capacity, uint64_t seed) : capacity_(capacity), rng_(seed) {}
  void Add(double value) {
    ++seen_;
    if (values_.size() < capacity_) {
      values_.push_back(value);
    } else {
      const uint64_t j = rng_.Below(seen_);
      if (j < capacity_) values_[static_cast<size_t>(j)] = value;
    }
  }
  std::vector<double>& values() { return values_; }

 private:
  size_t capacity_;
  util::Rng rng_;
  uint64_t seen_ = 0;
  std::vector<double> values_;
};

// mean(G) / E[max of R draws of G] for the empirical G of `sorted`.
double PredictEfficiency(const std::vector<double>& sorted, uint64_t ranks) {
  if (sorted.empty()) return std::numeric_limits<double>::quiet_NaN();
  double sum = 0;
  for (double v : sorted) sum += v;
  const double mean = sum / static_cast<double>(sorted.size());
  absl::StatusOr<double> top = stats::ExpectedMaxSorted(sorted, {}, ranks);
  if (!top.ok() || !(*top > 0)) return 1.0;
  return mean / *top;
}

// Lower quantile of the efficiencies recorded in a fixed histogram: the
// centre of the first bin whose cumulative share reaches q.
double HistogramQuantile(const std::vector<uint32_t>& bins, uint64_t total, double q) {
  uint64_t cum = 0;
  for (size_t b = 0; b < bins.size(); ++b) {
    cum += bins[b];
    if (static_cast<double>(cum) / static_cast<double>(total) >= q) {
      return (static_cast<double>(b) + 0.5) / static_cast<double>(bins.size());
    }
  }
  return 1.0;
}

absl::StatusOr<SimResult> RunOne(absl::Span<const int64_t> lengths, const cost::CostModel& model,
                                 const SimOptions& options, const pack::ExtraCosts& extra,
                                 uint64_t progress_done, uint64_t progress_total,
                                 size_t reservoir_capacity) {
  // Under CP the policies see a CP group's microbatch: C x the per-GPU
  // token counts (the planner policies divide back, see planner_policy.cc).
  const int64_t cp = options.context_parallel_size > 1 ? options.context_parallel_size : 1;
  const int64_t memory_cap =
      cp * (options.max_tokens_per_microbatch == 0 ? options.tokens_per_microbatch
                                                   : options.max_tokens_per_microbatch);
  const int64_t group_tokens = cp * options.tokens_per_microbatch;
  StepShape shape{options.num_ranks, options.microbatches_per_rank, group_tokens, memory_cap};
  shape.context_parallel_size = cp;
  shape.context_parallel_layout = options.context_parallel_layout;
  shape.sync = options.sync;
  shape.pipeline_stages = options.pipeline_stages;
  shape.pipeline_schedule = options.pipeline_schedule;
  // Which step time: the 1F1B makespan with >= 2 stages, else the sync model.
  const int64_t stages = options.pipeline_stages >= 2 ? options.pipeline_stages : 1;
  const bool pipelined = stages >= 2;
  const bool per_microbatch = !pipelined && options.sync == pack::StepSync::kMicrobatch;
  if (cp > 1 && !model.IsAdditive()) {
    return absl::InvalidArgumentError(
        "context_parallel_size > 1 needs an additive cost model (attention within documents): "
        "a model whose attention spans the whole sequence, or a custom callback, gives no cost "
        "per document chunk");
  }
  // The policy may keep the model (the bucket sampler does) no longer than
  // this call: a non-owning handle.
  std::shared_ptr<const cost::CostModel> borrowed(&model, [](const cost::CostModel*) {});
  absl::StatusOr<std::unique_ptr<Policy>> policy = MakePolicy(
      options.policy, shape, util::DeriveSeed(options.seed, 1), lengths, borrowed, extra);
  if (!policy.ok()) return policy.status();
  const int64_t longest = *std::max_element(lengths.begin(), lengths.end());
  const int64_t max_piece = std::min(longest, memory_cap);
  absl::StatusOr<Coster> coster =
      Coster::Make(model, max_piece, cp, options.context_parallel_layout);
  if (!coster.ok()) return coster.status();

  DocumentStream stream(lengths, util::DeriveSeed(options.seed, 0));
  StepBatch batch;
  const uint64_t ranks = options.num_ranks, per_rank = options.microbatches_per_rank;
  const uint64_t microbatches = ranks * per_rank;
  const double capacity_tokens =
      static_cast<double>(microbatches) * static_cast<double>(group_tokens);
  std::vector<double> mb_cost(microbatches), mb_useful(microbatches), rank_cost(ranks);
  std::vector<double> slot_major(microbatches), replica;
  std::vector<uint64_t> piece_counts(static_cast<size_t>(max_piece) + 1, 0);
  std::vector<uint32_t> efficiency_bins(kEfficiencyBins, 0);
  // Order statistics predict the step time when ranks are independent: of
  // rank costs under STEP, of microbatch costs under MICROBATCH (each slot
  // waits for the largest of R); a pipeline's makespan is not a maximum of
  // iid draws.
  const bool independent = (*policy)->independent_ranks() && !pipelined;
  Reservoir reservoir(independent ? reservoir_capacity : 0, util::DeriveSeed(options.seed, 2));

  SimResult r;
  r.num_steps = options.num_steps;
  r.num_ranks = ranks;
  r.microbatches_per_rank = per_rank;
  r.sync = options.sync;
  r.pipeline_stages = options.pipeline_stages;
  r.pipeline_schedule = options.pipeline_schedule;
  double sum_sync_efficiency = 0;
  double sum_efficiency = 0, sum_fill = 0, sum_padding = 0, sum_time = 0, sum_useful_mean = 0;
  if (options.record_steps) r.steps.reserve(options.num_steps);

  for (uint64_t step = 0; step < options.num_steps; ++step) {
    batch.Clear();
    if (absl::Status s = (*policy)->NextStep(stream, batch); !s.ok()) return s;
    if (batch.microbatches() != microbatches) {
      return absl::InternalError(absl::StrFormat("policy formed %u microbatches, expected %u",
                                                 batch.microbatches(), microbatches));
    }
    int64_t real = 0, computed = 0;
    double useful_total = 0;
    for (size_t m = 0; m < microbatches; ++m) {
      const absl::Span<const int64_t> pieces =
          absl::MakeConstSpan(batch.pieces)
              .subspan(batch.offsets[m], batch.offsets[m + 1] - batch.offsets[m]);
      const absl::Span<const double> extras =
          batch.extras.empty()
              ? absl::Span<const double>()
              : absl::MakeConstSpan(batch.extras)
                    .subspan(batch.offsets[m], batch.offsets[m + 1] - batch.offsets[m]);
      if (absl::Status s = coster->Cost(pieces, extras, batch.padded, mb_cost[m], mb_useful[m]);
          !s.ok()) {
        return s;
      }
      int64_t sum = 0, longest_piece = 0;
      for (int64_t p : pieces) {
        sum += p;
        ++piece_counts[static_cast<size_t>(p)];
        longest_piece = std::max(longest_piece, p);
      }
      real += sum;
      computed += batch.padded ? longest_piece * static_cast<int64_t>(pieces.size()) : sum;
    }
    // Rank costs in rank/slot order.
    double total = 0, slowest = 0;
    for (uint64_t rank = 0; rank < ranks; ++rank) {
      double c = 0;
      for (uint64_t slot = 0; slot < per_rank; ++slot) {
        const size_t position = rank * per_rank + slot;
        const size_t m = batch.order.empty() ? position : batch.order[position];
        c += mb_cost[m];
        useful_total += mb_useful[m];
        slot_major[slot * ranks + rank] = mb_cost[m];
        if (independent && per_microbatch) reservoir.Add(mb_cost[m]);
      }
      rank_cost[rank] = c;
      total += c;
      slowest = std::max(slowest, c);
      if (independent && !per_microbatch) reservoir.Add(c);
    }
    // The step time under the model, and the useful work per GPU it is
    // judged against (a stage does 1/P of its replica's work).
    const int64_t ranks_i = static_cast<int64_t>(ranks);
    const double step_time = pipelined
                                 ? pack::MaxReplicaMakespan(slot_major, ranks_i, stages, replica)
                             : per_microbatch ? pack::MicrobatchSyncCost(slot_major, ranks_i)
                                              : slowest;
    const double per_gpu = static_cast<double>(stages);
    // Finite microbatch costs whose sums are not (a custom model near
    // DBL_MAX) would make every efficiency NaN: reject, naming the step.
    if (!std::isfinite(total) || !std::isfinite(useful_total) ||
        !std::isfinite(sum_time + step_time)) {
      return absl::OutOfRangeError(absl::StrFormat(
          "rank cost: the costs of step %u sum past what a double holds; rescale the costs", step));
    }
    StepRecord rec;
    rec.step_time = step_time;
    rec.mean_rank_cost = total / static_cast<double>(ranks);
    rec.balance_efficiency = slowest > 0 ? rec.mean_rank_cost / slowest : 1.0;
    sum_sync_efficiency +=
        step_time > 0 ? (pipelined ? rec.mean_rank_cost / per_gpu : rec.mean_rank_cost) / step_time
                      : 1.0;
    rec.fill = static_cast<double>(real) / capacity_tokens;
    rec.padding_efficiency = computed > 0 ? static_cast<double>(real) / computed : 1.0;
    rec.real_tokens = real;
    sum_efficiency += rec.balance_efficiency;
    sum_fill += rec.fill;
    sum_padding += rec.padding_efficiency;
    sum_time += step_time;
    sum_useful_mean += useful_total / static_cast<double>(ranks) / per_gpu;
    if (!util::AddInt64(r.real_tokens, real, &r.real_tokens) ||
        !util::AddInt64(r.computed_tokens, computed, &r.computed_tokens)) {
      return absl::OutOfRangeError(absl::StrFormat(
          "real_tokens: the tokens of %u steps overflow int64; simulate fewer steps", step + 1));
    }
    const size_t bin = std::min(kEfficiencyBins - 1,
                                static_cast<size_t>(rec.balance_efficiency * kEfficiencyBins));
    ++efficiency_bins[bin];
    if (options.record_steps) r.steps.push_back(rec);
    if (options.progress && !options.progress(progress_done + step + 1, progress_total)) {
      return absl::CancelledError(
          absl::StrFormat("cancelled by the progress callback after %u of %u steps",
                          progress_done + step + 1, progress_total));
    }
  }

  const double steps = static_cast<double>(options.num_steps);
  r.documents_drawn = (*policy)->documents_drawn(stream);
  r.epochs = (*policy)->epochs(stream);
  r.mean_balance_efficiency = sum_efficiency / steps;
  r.mean_sync_efficiency = sum_sync_efficiency / steps;
  r.p5_balance_efficiency = HistogramQuantile(efficiency_bins, options.num_steps, 0.05);
  r.p50_balance_efficiency = HistogramQuantile(efficiency_bins, options.num_steps, 0.5);
  r.p95_balance_efficiency = HistogramQuantile(efficiency_bins, options.num_steps, 0.95);
  r.mean_fill = sum_fill / steps;
  r.mean_padding_efficiency = sum_padding / steps;
  r.mean_step_time = sum_time / steps;
  r.relative_throughput = sum_time > 0 ? sum_useful_mean / sum_time : 1.0;
  r.rank_cost_sample = std::move(reservoir.values());
  std::sort(r.rank_cost_sample.begin(), r.rank_cost_sample.end());
  r.predicted_balance_efficiency = independent ? PredictEfficiency(r.rank_cost_sample, ranks)
                                               : std::numeric_limits<double>::quiet_NaN();
  std::vector<int64_t> piece_lengths(piece_counts.size());
  for (size_t l = 0; l < piece_counts.size(); ++l) piece_lengths[l] = static_cast<int64_t>(l);
  // Length 0 never occurs (count 0 entries are skipped), but FromHistogram
  // rejects a zero length: start at 1.
  absl::StatusOr<stats::LengthStats> pieces =
      stats::LengthStats::FromHistogram(absl::MakeConstSpan(piece_lengths).subspan(1),
                                        absl::MakeConstSpan(piece_counts).subspan(1), &model);
  if (!pieces.ok()) return pieces.status();
  r.pieces = std::move(*pieces);
  return r;
}

}  // namespace

absl::Status ValidateSimulation(absl::Span<const int64_t> lengths, const SimOptions& options,
                                absl::Span<const double> extra_costs) {
  if (lengths.empty()) {
    return absl::InvalidArgumentError("lengths is empty: there is nothing to simulate");
  }
  absl::StatusOr<int64_t> total = util::CheckLengths("lengths", lengths);
  if (!total.ok()) return total.status();
  if (absl::Status s = pack::CheckExtraCosts(extra_costs, lengths.size()); !s.ok()) return s;
  if (options.num_ranks == 0) return absl::InvalidArgumentError("num_ranks = 0: must be >= 1");
  if (options.microbatches_per_rank == 0) {
    return absl::InvalidArgumentError("microbatches_per_rank = 0: must be >= 1");
  }
  if (options.tokens_per_microbatch < 1 ||
      options.tokens_per_microbatch > kMaxTokensPerMicrobatch) {
    return absl::InvalidArgumentError(
        absl::StrFormat("tokens_per_microbatch = %d: must be in [1, %d]",
                        options.tokens_per_microbatch, kMaxTokensPerMicrobatch));
  }
  if (options.max_tokens_per_microbatch != 0 &&
      (options.max_tokens_per_microbatch < options.tokens_per_microbatch ||
       options.max_tokens_per_microbatch > kMaxTokensPerMicrobatch)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "max_tokens_per_microbatch = %d: must be 0 or in [tokens_per_microbatch = %d, %d]",
        options.max_tokens_per_microbatch, options.tokens_per_microbatch, kMaxTokensPerMicrobatch));
  }
  if (options.num_steps == 0) return absl::InvalidArgumentError("num_steps = 0: must be >= 1");
  absl::StatusOr<uint64_t> microbatches = util::CheckedMultiply(
      "num_ranks x microbatches_per_rank", options.num_ranks, options.microbatches_per_rank);
  if (!microbatches.ok()) return microbatches.status();
  if (*microbatches > kMaxMicrobatches) {
    return absl::OutOfRangeError(
        absl::StrFormat("num_ranks x microbatches_per_rank = %u: at most %u microbatches per step",
                        *microbatches, kMaxMicrobatches));
  }
  if (options.sync != pack::StepSync::kStep && options.sync != pack::StepSync::kMicrobatch) {
    return absl::InvalidArgumentError(
        absl::StrFormat("sync = %d: not a synchronization model (0 = step, 1 = microbatch)",
                        static_cast<int>(options.sync)));
  }
  if (options.pipeline_stages < 0 || options.pipeline_stages > pack::kMaxPipelineStages) {
    return absl::InvalidArgumentError(
        absl::StrFormat("pipeline_stages = %d: must be in [0, %d] (0 or 1 = no pipeline)",
                        options.pipeline_stages, pack::kMaxPipelineStages));
  }
  if (options.pipeline_schedule != pack::PipelineSchedule::k1F1B) {
    return absl::InvalidArgumentError(
        absl::StrFormat("pipeline_schedule = %d: not a pipeline schedule (0 = 1F1B)",
                        static_cast<int>(options.pipeline_schedule)));
  }
  if (options.context_parallel_size < 0 ||
      options.context_parallel_size > pack::kMaxContextParallelSize) {
    return absl::InvalidArgumentError(
        absl::StrFormat("context_parallel_size = %d: must be in [0, %d] (0 or 1 = none)",
                        options.context_parallel_size, pack::kMaxContextParallelSize));
  }
  if (options.context_parallel_layout != pack::CpLayout::kSequenceHeadTail &&
      options.context_parallel_layout != pack::CpLayout::kDocumentHeadTail &&
      options.context_parallel_layout != pack::CpLayout::kAdaptive) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "context_parallel_layout = %d: not a CP layout (0 = per sequence, 1 = per document, "
        "2 = adaptive)",
        static_cast<int>(options.context_parallel_layout)));
  }
  if (options.context_parallel_size > 1 && options.policy == PolicyKind::kBuckets) {
    return absl::InvalidArgumentError(
        "context_parallel_size > 1 with the bucket sampler: its padded batches have no CP "
        "layout; use another policy");
  }
  if (static_cast<int>(options.policy) < static_cast<int>(PolicyKind::kRandom) ||
      static_cast<int>(options.policy) > static_cast<int>(PolicyKind::kPlannerSequences)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "policy = %d is not a PolicyKind value (0 .. 6)", static_cast<int>(options.policy)));
  }
  return absl::OkStatus();
}

absl::StatusOr<SimResult> Simulate(absl::Span<const int64_t> lengths, const cost::CostModel& model,
                                   const SimOptions& options,
                                   absl::Span<const double> extra_costs) {
  if (absl::Status s = ValidateSimulation(lengths, options, extra_costs); !s.ok()) return s;
  return RunOne(lengths, model, options, pack::ExtraCosts{extra_costs, lengths}, 0,
                options.num_steps, kReservoirCapacity);
}

absl::StatusOr<std::vector<SweepPoint>> Sweep(absl::Span<const int64_t> lengths,
                                              const cost::CostModel& model,
                                              const SimOptions& options,
                                              absl::Span<const uint64_t> rank_counts,
                                              absl::Span<const double> extra_costs) {
  if (rank_counts.empty()) {
    return absl::InvalidArgumentError("rank_counts is empty: nothing to sweep");
  }
  for (size_t i = 0; i < rank_counts.size(); ++i) {
    SimOptions o = options;
    o.num_ranks = rank_counts[i];
    if (absl::Status s = ValidateSimulation(lengths, o, extra_costs); !s.ok()) {
      return absl::Status(s.code(), absl::StrFormat("rank_counts[%u]: %s", i, s.message()));
    }
  }
  absl::StatusOr<uint64_t> total_steps =
      util::CheckedMultiply("steps x rank counts", options.num_steps, rank_counts.size());
  if (!total_steps.ok()) return total_steps.status();
  std::vector<SweepPoint> points(rank_counts.size());
  std::vector<double> pooled;
  bool independent = false;
  const size_t share = kReservoirCapacity / rank_counts.size();
  for (size_t i = 0; i < rank_counts.size(); ++i) {
    SimOptions o = options;
    o.num_ranks = rank_counts[i];
    o.record_steps = false;
    absl::StatusOr<SimResult> r = RunOne(lengths, model, o, pack::ExtraCosts{extra_costs, lengths},
                                         i * options.num_steps, *total_steps, share);
    if (!r.ok()) return r.status();
    points[i].num_ranks = rank_counts[i];
    points[i].sampled_efficiency = r->mean_sync_efficiency;
    points[i].relative_throughput = r->relative_throughput;
    independent = !std::isnan(r->predicted_balance_efficiency);
    pooled.insert(pooled.end(), r->rank_cost_sample.begin(), r->rank_cost_sample.end());
  }
  std::sort(pooled.begin(), pooled.end());
  for (SweepPoint& p : points) {
    p.predicted_efficiency = independent ? PredictEfficiency(pooled, p.num_ranks)
                                         : std::numeric_limits<double>::quiet_NaN();
  }
  return points;
}

}  // namespace flopspack::sim
