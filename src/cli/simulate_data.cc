#include "simulate_data.h"

#include <algorithm>
#include <limits>
#include <memory>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "options.h"
#include "output.h"
#include "progress.h"
#include "resample.h"
#include "status.h"

namespace flopspack::cli {

const std::vector<SimPolicy>& SimPolicies() {
  static const std::vector<SimPolicy> policies = {
      {"random", "random dealing", FLOPSPACK_SIM_RANDOM},
      {"token-balanced", "token-balanced", FLOPSPACK_SIM_TOKEN_BALANCED},
      {"buckets", "bucket sampler (padded)", FLOPSPACK_SIM_BUCKETS},
      {"planner", "flopspack planner (FLOPs)", FLOPSPACK_SIM_PLANNER_DOCUMENTS},
      {"planner-random", "planner: concatenate + deal", FLOPSPACK_SIM_PLANNER_RANDOM},
      {"planner-tokens", "planner: balance tokens", FLOPSPACK_SIM_PLANNER_TOKENS},
      {"planner-sequences", "planner: packed sequences", FLOPSPACK_SIM_PLANNER_SEQUENCES},
  };
  return policies;
}

std::vector<SimPolicy> ParsePolicies(const std::string& list) {
  if (list == "all") return SimPolicies();
  std::vector<SimPolicy> out;
  for (absl::string_view name : absl::StrSplit(list, ',', absl::SkipWhitespace())) {
    const SimPolicy* found = nullptr;
    for (const SimPolicy& policy : SimPolicies()) {
      if (name == policy.name) found = &policy;
    }
    if (found == nullptr) {
      std::vector<std::string> names;
      for (const SimPolicy& policy : SimPolicies()) names.push_back(policy.name);
      throw UsageError(absl::StrFormat("--policies: unknown policy '%s'; known: all, %s", name,
                                       absl::StrJoin(names, ", ")));
    }
    out.push_back(*found);
  }
  if (out.empty()) throw UsageError("--policies: no policy given");
  return out;
}

namespace {

flopspack_simulate_options Options(const SimPolicy& policy, uint64_t ranks,
                                   const SimSettings& settings) {
  flopspack_simulate_options options;
  flopspack_simulate_options_init(&options);
  options.policy = policy.value;
  options.num_ranks = ranks;
  options.microbatches_per_rank = settings.microbatches;
  options.tokens_per_microbatch = settings.tokens_per_microbatch;
  options.max_tokens_per_microbatch = settings.max_tokens_per_microbatch;
  options.num_steps = settings.steps;
  options.seed = settings.seed;
  options.sync = SyncValue(settings.sync);
  options.pipeline_stages = static_cast<uint32_t>(settings.pipeline_stages);
  options.context_parallel_size = static_cast<uint32_t>(settings.cp);
  options.context_parallel_layout =
      settings.cp_layout == "sequence"   ? FLOPSPACK_CP_SEQUENCE_HEAD_TAIL
      : settings.cp_layout == "adaptive" ? FLOPSPACK_CP_ADAPTIVE
                                         : FLOPSPACK_CP_DOCUMENT_HEAD_TAIL;
  return options;
}

struct ResultDeleter {
  void operator()(flopspack_simulate_result* r) const { flopspack_simulate_result_destroy(r); }
};

int OnProgress(void* user_data, uint64_t done, uint64_t total) {
  auto* progress = static_cast<std::unique_ptr<Progress>*>(user_data);
  if (*progress != nullptr) {
    (*progress)->SetTotal(total);
    (*progress)->Set(done);
  }
  return ShouldStop() ? 1 : 0;
}

// Check(), except that a cancellation (Ctrl-C) is returned as false.
bool CheckOrCancelled(flopspack_status status, const std::string& doing) {
  if (status == FLOPSPACK_CANCELLED && Interrupted()) return false;
  Check(status, doing);
  return true;
}

// Whether the emulator's bucket policy can form one step of `ranks` ranks
// from lengths: the same sampler options as src/sim/bucket_policy.cc
// (padded-token budget of one microbatch, samples clipped to it).
bool BucketsFit(const std::vector<int64_t>& lengths, uint64_t ranks, const SimSettings& settings) {
  std::vector<int64_t> clipped(lengths);
  for (int64_t& l : clipped) l = std::min(l, settings.tokens_per_microbatch);
  flopspack_bucket_sampler_options options;
  flopspack_bucket_sampler_options_init(&options);
  options.budget_kind = FLOPSPACK_BUCKET_BUDGET_PADDED_TOKENS;
  options.max_padded_tokens = settings.tokens_per_microbatch;
  options.num_ranks = ranks;
  options.accumulation_steps = settings.microbatches;
  options.seed = settings.seed;
  flopspack_bucket_sampler* sampler = nullptr;
  const flopspack_status status =
      flopspack_bucket_sampler_create(&options, nullptr, clipped.data(), clipped.size(), &sampler);
  flopspack_bucket_sampler_destroy(sampler);
  return status == FLOPSPACK_OK;
}

bool IsBuckets(const SimPolicy& policy) { return policy.value == FLOPSPACK_SIM_BUCKETS; }

uint64_t PoolSeed(const SimSettings& settings) { return settings.seed ^ 0x9E3779B97F4A7C15ULL; }

// The pool a resampled point runs on: PoolSize(needed) documents drawn with
// replacement, doubled until the bucket sampler fills a step at max_ranks.
// A pool drawn with replacement: lengths, and the extra costs of the same
// draws (the same seed and count draw the same indices) when there are any.
struct SimPool {
  std::vector<int64_t> lengths;
  std::vector<double> extra;
};

SimPool MakePool(const Context& context, const SimPolicy& policy, uint64_t needed,
                 uint64_t max_ranks, const SimSettings& settings) {
  uint64_t size = PoolSize(needed, context.lengths.values.size());
  SimPool pool;
  pool.lengths = DrawWithReplacement(context.lengths.values, size, PoolSeed(settings));
  for (int i = 0; i < 8 && IsBuckets(policy) && !BucketsFit(pool.lengths, max_ranks, settings);
       ++i) {
    size *= 2;
    pool.lengths = DrawWithReplacement(context.lengths.values, size, PoolSeed(settings));
  }
  if (!context.extra_costs.empty()) {
    pool.extra = DrawWithReplacement(context.extra_costs, size, PoolSeed(settings));
  }
  return pool;
}

// NULL = no extra costs.
const double* ExtraOrNull(const std::vector<double>& extra) {
  return extra.empty() ? nullptr : extra.data();
}

}  // namespace

const char* PointStateName(PointState state) {
  switch (state) {
    case PointState::kRun:
      return "ok";
    case PointState::kResampled:
      return "resampled";
    case PointState::kNeedsDocuments:
      return "n/a";
    case PointState::kInterrupted:
      return "interrupted";
  }
  return "unknown";
}

PointNeed Need(const Context& context, const SimPolicy& policy, uint64_t ranks,
               const SimSettings& settings) {
  const uint64_t n = context.lengths.values.size();
  const double step_tokens =
      double(ranks) * double(settings.microbatches) * double(settings.tokens_per_microbatch);
  PointNeed need;
  need.documents = DocumentsForTokens(step_tokens, n, context.tokens);
  need.fits = need.documents <= n;
  if (!IsBuckets(policy)) return need;
  if (need.fits && BucketsFit(context.lengths.values, ranks, settings)) return need;
  // The bucket sampler needs at least one sample per batch of the step and
  // whole batches per bucket: the smallest doubling of the pool that fills
  // a step, as a count the user can act on.
  need.fits = false;
  uint64_t size = std::max<uint64_t>({need.documents, ranks * settings.microbatches, n + 1});
  // Bounded: a pool of twice a step's samples fills it; 8 doublings is far past
  // any sampler this has met.
  for (int i = 0; i < 8; ++i, size *= 2) {
    if (BucketsFit(DrawWithReplacement(context.lengths.values, size, PoolSeed(settings)), ranks,
                   settings)) {
      break;
    }
  }
  need.documents = size;
  return need;
}

SimPoint Simulate(const Context& context, const SimPolicy& policy, uint64_t ranks,
                  const SimSettings& settings) {
  SimPoint point;
  const PointNeed need = Need(context, policy, ranks, settings);
  point.documents_needed = need.documents;
  SimPool pool;
  if (!need.fits) {
    if (!settings.resample) {
      point.state = PointState::kNeedsDocuments;
      return point;
    }
    pool = MakePool(context, policy, need.documents, ranks, settings);
    point.state = PointState::kResampled;
    point.pool_documents = pool.lengths.size();
  }
  const std::vector<int64_t>& lengths = need.fits ? context.lengths.values : pool.lengths;
  const std::vector<double>& extra = need.fits ? context.extra_costs : pool.extra;
  if (Interrupted()) {
    point.state = PointState::kInterrupted;
    return point;
  }
  flopspack_simulate_options options = Options(policy, ranks, settings);
  std::unique_ptr<Progress> progress =
      std::make_unique<Progress>(absl::StrFormat("simulate %s", policy.name), settings.steps);
  options.progress = OnProgress;
  options.progress_user_data = &progress;
  flopspack_simulate_result* raw = nullptr;
  const bool done = CheckOrCancelled(
      flopspack_simulate_with_extra_costs(lengths.data(), ExtraOrNull(extra), lengths.size(),
                                          context.model.get(), &options, &raw),
      absl::StrFormat("simulate %s at %d ranks", policy.name, ranks));
  if (!done) {
    point.state = PointState::kInterrupted;
    return point;
  }
  std::unique_ptr<flopspack_simulate_result, ResultDeleter> result(raw);
  point.summary.struct_size = sizeof(point.summary);
  Check(flopspack_simulate_result_summary(result.get(), &point.summary), "simulation summary");
  return point;
}

SweepResult Sweep(const Context& context, const SimPolicy& policy,
                  const std::vector<uint64_t>& ranks, const SimSettings& settings,
                  const std::string& progress_label) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  SweepResult out;
  out.sampled_efficiency.assign(ranks.size(), nan);
  out.predicted_efficiency.assign(ranks.size(), nan);
  out.relative_throughput.assign(ranks.size(), nan);
  out.state.assign(ranks.size(), PointState::kRun);
  out.documents_needed.assign(ranks.size(), 0);
  out.pool_documents.assign(ranks.size(), 0);
  // Two groups: the points the file fills, and the others.
  std::vector<size_t> on_file, on_pool;
  uint64_t pool_needed = 0, pool_ranks = 0;
  for (size_t i = 0; i < ranks.size(); ++i) {
    const PointNeed need = Need(context, policy, ranks[i], settings);
    out.documents_needed[i] = need.documents;
    if (need.fits) {
      on_file.push_back(i);
    } else if (settings.resample) {
      on_pool.push_back(i);
      out.state[i] = PointState::kResampled;
      pool_needed = std::max(pool_needed, need.documents);
      pool_ranks = std::max(pool_ranks, ranks[i]);
    } else {
      out.state[i] = PointState::kNeedsDocuments;
    }
  }
  std::unique_ptr<Progress> progress;
  if (!progress_label.empty()) progress = std::make_unique<Progress>(progress_label, 0);
  flopspack_simulate_options options = Options(policy, 1, settings);
  options.progress = OnProgress;
  options.progress_user_data = &progress;
  auto run = [&](const std::vector<size_t>& points, const std::vector<int64_t>& lengths,
                 const std::vector<double>& extra) {
    if (points.empty()) return;
    std::vector<uint64_t> counts;
    for (size_t i : points) counts.push_back(ranks[i]);
    std::vector<double> sampled(points.size()), predicted(points.size()), throughput(points.size());
    const bool done =
        !Interrupted() &&
        CheckOrCancelled(
            flopspack_simulate_sweep_with_extra_costs(
                lengths.data(), ExtraOrNull(extra), lengths.size(), context.model.get(), &options,
                counts.data(), counts.size(), sampled.data(), predicted.data(), throughput.data()),
            absl::StrFormat("sweep of %s", policy.name));
    for (size_t k = 0; k < points.size(); ++k) {
      const size_t i = points[k];
      if (!done) {
        out.state[i] = PointState::kInterrupted;
        continue;
      }
      out.sampled_efficiency[i] = sampled[k];
      out.predicted_efficiency[i] = predicted[k];
      out.relative_throughput[i] = throughput[k];
      if (out.state[i] == PointState::kResampled) out.pool_documents[i] = lengths.size();
    }
    if (!done) out.interrupted = true;
  };
  run(on_file, context.lengths.values, context.extra_costs);
  if (!on_pool.empty()) {
    const SimPool pool = MakePool(context, policy, pool_needed, pool_ranks, settings);
    run(on_pool, pool.lengths, pool.extra);
  }
  return out;
}

Json StatusJson(const SweepResult& sweep) {
  Json out = Json::Array();
  for (PointState state : sweep.state) out.Push(PointStateName(state));
  return out;
}

std::string PointCell(PointState state, uint64_t documents_needed, const std::string& value) {
  switch (state) {
    case PointState::kRun:
      return value;
    case PointState::kResampled:
      return value + "*";
    case PointState::kNeedsDocuments:
      return absl::StrFormat("n/a: needs %s documents",
                             Cell(static_cast<int64_t>(documents_needed)));
    case PointState::kInterrupted:
      return "interrupted";
  }
  return value;
}

std::string ResampleNote(const Context& context, bool any_resampled, bool any_missing) {
  std::string note;
  if (any_resampled) {
    note += absl::StrFormat(
        "* the file's %s documents cannot fill one step without repeating documents: these "
        "points ran on documents drawn with replacement from it (the question is about the "
        "length distribution, not the file); --resample=false shows them as n/a instead.\n",
        Cell(static_cast<int64_t>(context.lengths.values.size())));
  }
  if (any_missing) {
    note += absl::StrFormat(
        "n/a: one step needs more documents than the file's %s; give a larger sample, fewer "
        "--ranks or --microbatches, or leave --resample on.\n",
        Cell(static_cast<int64_t>(context.lengths.values.size())));
  }
  return note;
}

// The sentence without context parallelism.
static std::string TopologyTextWithoutCp(const SimSettings& settings) {
  if (settings.pipeline_stages >= 2) {
    return absl::StrFormat(
        "every GPU group is a pipeline of %d stages running its microbatches under 1F1B, and a "
        "step lasts the slowest pipeline's makespan (bubbles included)",
        settings.pipeline_stages);
  }
  if (settings.sync == "microbatch") {
    return "the GPUs synchronize at every microbatch (FSDP / ZeRO-3), so each microbatch waits "
           "for the slowest GPU's";
  }
  return "the GPUs synchronize once per optimizer step (DDP / ZeRO-1/2), so each step waits for "
         "the slowest GPU";
}

std::string TopologyText(const SimSettings& settings) {
  std::string text = TopologyTextWithoutCp(settings);
  if (settings.cp >= 2) {
    text += absl::StrFormat(
        "; every GPU group is a context-parallel group of %d GPUs sharing each microbatch of %d "
        "x the tokens per microbatch (%s layout), which waits for its slowest CP rank",
        settings.cp, settings.cp, settings.cp_layout);
  }
  return text;
}

Json SettingsJson(const SimSettings& settings) {
  Json out = Json::Object();
  out.Set("microbatches_per_rank", settings.microbatches);
  out.Set("tokens_per_microbatch", settings.tokens_per_microbatch);
  out.Set("max_tokens_per_microbatch", settings.max_tokens_per_microbatch);
  out.Set("steps", settings.steps);
  out.Set("seed", settings.seed);
  out.Set("resample", settings.resample);
  out.Set("sync", settings.sync);
  out.Set("pipeline_stages", settings.pipeline_stages);
  // Only with CP, so runs without it report what they always did.
  if (settings.cp >= 2) {
    out.Set("context_parallel_size", settings.cp);
    out.Set("context_parallel_layout", settings.cp_layout);
  }
  return out;
}

Json SummaryJson(const flopspack_simulate_summary& s) {
  Json out = Json::Object();
  out.Set("num_steps", s.num_steps);
  out.Set("num_ranks", s.num_ranks);
  out.Set("microbatches_per_rank", s.microbatches_per_rank);
  out.Set("documents_drawn", s.documents_drawn);
  out.Set("epochs", s.epochs);
  out.Set("mean_balance_efficiency", s.mean_balance_efficiency);
  out.Set("p5_balance_efficiency", s.p5_balance_efficiency);
  out.Set("p50_balance_efficiency", s.p50_balance_efficiency);
  out.Set("p95_balance_efficiency", s.p95_balance_efficiency);
  out.Set("mean_fill", s.mean_fill);
  out.Set("mean_padding_efficiency", s.mean_padding_efficiency);
  out.Set("relative_throughput", s.relative_throughput);
  out.Set("mean_step_time", s.mean_step_time);
  out.Set("predicted_efficiency", s.predicted_efficiency);
  out.Set("real_tokens", s.real_tokens);
  out.Set("computed_tokens", s.computed_tokens);
  out.Set("sync", s.sync == FLOPSPACK_SYNC_MICROBATCH ? "microbatch" : "step");
  out.Set("pipeline_stages", static_cast<uint64_t>(s.pipeline_stages));
  out.Set("pipeline_schedule", "1f1b");  // the only flopspack_pipeline_schedule
  out.Set("mean_sync_efficiency", s.mean_sync_efficiency);
  return out;
}

}  // namespace flopspack::cli
