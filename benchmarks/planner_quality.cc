// Plan quality of every step-planning algorithm on the long-tail dataset of
// issue 4 (planner_data.h), as the markdown table of docs/planner.md:
// R in {64, 1024, 8192} x M in {1, 4, 8} x fill in {97%, 99%, 99.5%}.
// Time is CPU time of one PlanStep call (the best of three), so it is
// comparable on a busy machine. The last line is a fingerprint of one plan:
// two processes (or machines) must print the same one.
//   build/benchmarks/planner_quality            # the whole table
//   build/benchmarks/planner_quality 64 1024    # only these rank counts
// With `split` first, the issue-13 table instead: documents far past the
// cap under overflow split, R x M x memory slack (cap / capacity), the
// default planner against random dealing and the token-balanced planner on
// the same step (planner_data.h, HeavyTailStep), on a heavy-tail dataset
// (median 1,500 tokens) and a long-document one (median 4 x capacity):
//   build/benchmarks/planner_quality split 8 64 1024
// With `sync` first, the issue-15 table: the long-tail batch at 97% fill,
// R in {1024, 8192} x M in {4, 8} x pipeline stages in {1, 4, 8}, the
// planner for sync = step (with stages >= 2 it orders for the 1F1B
// makespan) and sync = microbatch, and the baselines (random,
// token-balanced, sequences; they ignore the objective): rank balance,
// microbatch-sync efficiency (and its gap to the bound), 1F1B efficiency
// (and its gap), time (CPU, best of three):
//   build/benchmarks/planner_quality sync 1024 8192
// followed by the corpora table (R = 1,024, M in {4, 8}): the generated
// code, prose and short corpora of planner_data.h (CorpusBatch) under
// overflow split, the planner for each objective and the baselines; alone:
//   build/benchmarks/planner_quality corpora 1024
// With `fingerprints`, one line per MICROBATCH plan (long-tail batch and
// corpora): a change meant to keep the plans must keep these lines. With
// `candidate`, the 216 steps on which the small-step candidate is decided.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <utility>
#include <vector>

#include "pack/planner/step_planner.h"
#include "planner_data.h"

namespace {

using flopspack::pack::Overflow;
using flopspack::pack::Plan;
using flopspack::pack::StepAlgorithm;
using flopspack::pack::StepOptions;

constexpr int64_t kCap = 16384;

double CpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Plans the step three times: the plan, and in *seconds the least CPU time
// of one call (the time the tables report).
absl::StatusOr<Plan> PlanBestOfThree(const StepOptions& o, const flopspack::cost::CostModel& model,
                                     const std::vector<int64_t>& lengths, double* seconds) {
  double best = 1e300;
  absl::StatusOr<Plan> plan;
  for (int run = 0; run < 3; ++run) {
    const double start = CpuSeconds();
    plan = flopspack::pack::PlanStep(o, model, lengths);
    best = std::min(best, CpuSeconds() - start);
  }
  *seconds = best;
  return plan;
}

struct Algorithm {
  const char* name;
  StepAlgorithm algorithm;
  bool refine;
};

const Algorithm kAlgorithms[] = {
    {"random (concat + cut)", StepAlgorithm::kRandom, true},
    {"sequences (FFD + LPT)", StepAlgorithm::kSequences, true},
    {"tokens (document LPT + refine)", StepAlgorithm::kTokens, true},
    {"documents, LPT only", StepAlgorithm::kDocuments, false},
    {"documents (default)", StepAlgorithm::kDocuments, true},
};

uint64_t Fingerprint(const Plan& plan) {
  uint64_t h = 0xCBF29CE484222325ull;
  auto mix = [&](uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= (v >> (8 * i)) & 0xFF;
      h *= 0x100000001B3ull;
    }
  };
  for (size_t g = 0; g < plan.group_count(); ++g) {
    for (int64_t item : plan.group_items(g)) mix(static_cast<uint64_t>(item));
    for (int64_t tokens : plan.group_tokens(g)) mix(static_cast<uint64_t>(tokens));
    uint64_t bits;
    const double cost = plan.group_cost(g);
    std::memcpy(&bits, &cost, sizeof(bits));
    mix(bits);
  }
  return h;
}

}  // namespace

// One plan under split; its rank balance, gap and split documents.
struct SplitRow {
  double balance = 0, gap = 0, ms = 0;
  uint64_t split = 0;
  int planned_by = 0;
  bool ok = false;
};

SplitRow PlanSplit(const flopspack::cost::CostModel& model, const std::vector<int64_t>& lengths,
                   int64_t ranks, int64_t microbatches, int64_t cap, StepAlgorithm algorithm) {
  StepOptions o;
  o.num_ranks = ranks;
  o.microbatches_per_rank = microbatches;
  o.max_tokens_per_microbatch = cap;
  o.algorithm = algorithm;
  o.overflow = Overflow::kSplit;
  flopspack::pack::StepStats stats;
  const double start = CpuSeconds();
  absl::StatusOr<Plan> plan = flopspack::pack::PlanStep(o, model, lengths, {}, &stats);
  SplitRow row;
  row.ms = 1e3 * (CpuSeconds() - start);
  if (!plan.ok()) return row;
  row.ok = true;
  row.balance = plan->metrics().rank_balance_efficiency;
  row.gap = plan->metrics().rank_gap_to_lower_bound;
  row.split = plan->metrics().split_items;
  row.planned_by = static_cast<int>(stats.planned_by);
  return row;
}

int SplitTable(const std::vector<int64_t>& rank_counts) {
  const auto model = flopspack::bench::SevenB();
  constexpr int64_t kCapacity = 8192;
  const char* by[] = {"documents", "cut to share", "tokens"};
  std::printf(
      "| data | R | M | slack | random at capacity | random at cap | tokens | planner | planner "
      "gap | planned by | split docs | docs | planner ms |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const double median : {1500.0, 4.0 * kCapacity}) {
    for (int64_t ranks : rank_counts) {
      for (int64_t microbatches : {1, 2, 4, 8}) {
        for (double slack : {1.0, 1.25, 1.5}) {
          const int64_t cap = static_cast<int64_t>(slack * kCapacity);
          const std::vector<int64_t> lengths = flopspack::bench::HeavyTailStep(
              ranks, microbatches, kCapacity, cap, median, static_cast<uint64_t>(ranks));
          const SplitRow dealt =
              PlanSplit(*model, lengths, ranks, microbatches, kCapacity, StepAlgorithm::kRandom);
          const SplitRow random =
              PlanSplit(*model, lengths, ranks, microbatches, cap, StepAlgorithm::kRandom);
          const SplitRow tokens =
              PlanSplit(*model, lengths, ranks, microbatches, cap, StepAlgorithm::kTokens);
          const SplitRow planner =
              PlanSplit(*model, lengths, ranks, microbatches, cap, StepAlgorithm::kDocuments);
          std::printf(
              "| %s | %lld | %lld | %.2f | %.2f%% | %.2f%% | %.2f%% | **%.2f%%** | %.2f%% | %s | "
              "%llu | %zu | %.0f |\n",
              median < kCapacity ? "heavy tail" : "long documents", static_cast<long long>(ranks),
              static_cast<long long>(microbatches), slack, 100 * dealt.balance,
              100 * random.balance, 100 * tokens.balance, 100 * planner.balance, 100 * planner.gap,
              planner.ok ? by[planner.planned_by] : "error",
              static_cast<unsigned long long>(planner.split), lengths.size(), planner.ms);
          std::fflush(stdout);
        }
      }
    }
  }
  return 0;
}

// One row of the issue-15 table.
void SyncRow(int64_t ranks, int64_t microbatches, int64_t stages, const char* objective,
             const char* policy, const absl::StatusOr<Plan>& plan, double seconds) {
  if (!plan.ok()) {
    std::printf("| %lld | %lld | %lld | %s | %s | error: %s |\n", static_cast<long long>(ranks),
                static_cast<long long>(microbatches), static_cast<long long>(stages), objective,
                policy, std::string(plan.status().message()).c_str());
    return;
  }
  const auto& m = plan->metrics();
  char pipe[64] = "-", pipe_gap[64] = "-";
  if (stages > 1) {
    std::snprintf(pipe, sizeof(pipe), "%.2f%%", 100 * m.pipeline_efficiency);
    std::snprintf(pipe_gap, sizeof(pipe_gap), "%.2f%%", 100 * m.pipeline_gap_to_lower_bound);
  }
  const bool planner = std::strcmp(policy, "planner") == 0;
  std::printf("| %lld | %lld | %lld | %s | %s | %.3f%% | %s%.2f%%%s | %.2f%% | %s | %s | %.0f |\n",
              static_cast<long long>(ranks), static_cast<long long>(microbatches),
              static_cast<long long>(stages), objective, policy, 100 * m.rank_balance_efficiency,
              planner ? "**" : "", 100 * m.microbatch_sync_efficiency, planner ? "**" : "",
              100 * m.microbatch_sync_gap_to_lower_bound, pipe, pipe_gap, 1e3 * seconds);
  std::fflush(stdout);
}

// The issue-15 table: objective (step, microbatch; with stages >= 2 the
// planner also orders for the 1F1B makespan) x policy (the planner and the
// baselines, which ignore the objective: one row per R, M, stages).
int SyncTable(const std::vector<int64_t>& rank_counts) {
  const auto model = flopspack::bench::SevenB();
  std::printf(
      "| R | M | stages | objective | policy | rank balance | microbatch sync | its gap "
      "| 1F1B efficiency | its gap | time (ms) |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (int64_t ranks : rank_counts) {
    for (int64_t microbatches : {4, 8}) {
      const std::vector<int64_t> lengths =
          flopspack::bench::LongTailBatch(ranks, microbatches, kCap, 0.97, 1);
      for (int64_t stages : {1, 4, 8}) {
        StepOptions o;
        o.num_ranks = ranks;
        o.microbatches_per_rank = microbatches;
        o.max_tokens_per_microbatch = kCap;
        o.overflow = Overflow::kDefer;
        o.pipeline_stages = stages;
        for (const auto sync :
             {flopspack::pack::StepSync::kStep, flopspack::pack::StepSync::kMicrobatch}) {
          o.sync = sync;
          double seconds = 0;
          const absl::StatusOr<Plan> plan = PlanBestOfThree(o, *model, lengths, &seconds);
          const bool micro = sync == flopspack::pack::StepSync::kMicrobatch;
          SyncRow(ranks, microbatches, stages,
                  micro ? "microbatch" : (stages > 1 ? "step + 1F1B" : "step"), "planner", plan,
                  seconds);
        }
        o.sync = flopspack::pack::StepSync::kStep;
        for (const auto [algorithm, name] : {std::pair{StepAlgorithm::kRandom, "random"},
                                             std::pair{StepAlgorithm::kTokens, "token-balanced"},
                                             std::pair{StepAlgorithm::kSequences, "sequences"}}) {
          o.algorithm = algorithm;
          double seconds = 0;
          const absl::StatusOr<Plan> plan = PlanBestOfThree(o, *model, lengths, &seconds);
          SyncRow(ranks, microbatches, stages, "any", name, plan, seconds);
        }
      }
    }
  }
  return 0;
}

// The issue-15 corpora (planner_data.h, CorpusBatch: code, prose, short)
// at 97% fill under overflow split: the planner for sync = step and sync =
// microbatch, and the baselines, one pipeline stage.
int CorporaTable(const std::vector<int64_t>& rank_counts) {
  const auto model = flopspack::bench::SevenB();
  std::printf(
      "| corpus | R | M | objective | policy | rank balance | microbatch sync | its gap | split "
      "docs | docs | time (ms) |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
  using flopspack::bench::Corpus;
  for (const Corpus corpus : {Corpus::kCode, Corpus::kProse, Corpus::kShort}) {
    for (int64_t ranks : rank_counts) {
      for (int64_t microbatches : {4, 8}) {
        const std::vector<int64_t> lengths =
            flopspack::bench::CorpusBatch(corpus, ranks, microbatches, kCap, 0.97, 1);
        StepOptions o;
        o.num_ranks = ranks;
        o.microbatches_per_rank = microbatches;
        o.max_tokens_per_microbatch = kCap;
        o.overflow = Overflow::kSplit;
        auto row = [&](const char* objective, const char* policy) {
          double best = 0;
          const absl::StatusOr<Plan> plan = PlanBestOfThree(o, *model, lengths, &best);
          if (!plan.ok()) {
            std::printf("| %s | %lld | %lld | %s | %s | error: %s |\n",
                        flopspack::bench::CorpusName(corpus), static_cast<long long>(ranks),
                        static_cast<long long>(microbatches), objective, policy,
                        std::string(plan.status().message()).c_str());
            return;
          }
          const auto& m = plan->metrics();
          const bool planner = std::strcmp(policy, "planner") == 0;
          std::printf(
              "| %s | %lld | %lld | %s | %s | %.3f%% | %s%.2f%%%s | %.2f%% | %llu | %zu | %.0f |\n",
              flopspack::bench::CorpusName(corpus), static_cast<long long>(ranks),
              static_cast<long long>(microbatches), objective, policy,
              100 * m.rank_balance_efficiency, planner ? "**" : "",
              100 * m.microbatch_sync_efficiency, planner ? "**" : "",
              100 * m.microbatch_sync_gap_to_lower_bound,
              static_cast<unsigned long long>(m.split_items), lengths.size(), 1e3 * best);
          std::fflush(stdout);
        };
        o.sync = flopspack::pack::StepSync::kStep;
        row("step", "planner");
        o.sync = flopspack::pack::StepSync::kMicrobatch;
        row("microbatch", "planner");
        o.sync = flopspack::pack::StepSync::kStep;
        for (const auto [algorithm, name] : {std::pair{StepAlgorithm::kRandom, "random"},
                                             std::pair{StepAlgorithm::kTokens, "token-balanced"},
                                             std::pair{StepAlgorithm::kSequences, "sequences"}}) {
          o.algorithm = algorithm;
          row("any", name);
        }
      }
    }
  }
  return 0;
}

// One MICROBATCH step as the fingerprint and candidate modes plan it: the
// long-tail batch (data 0, 97% fill, overflow defer) or corpus data - 1
// (97% fill, overflow split), printed as one line: its name, `shape`, the
// plan's fingerprint and its microbatch-synchronous efficiency to 1e-6
// points, so two builds' outputs can be diffed.
void PrintMicrobatchStep(const flopspack::cost::CostModel& model, int data, int64_t ranks,
                         int64_t microbatches, uint64_t seed, const char* shape) {
  using flopspack::bench::Corpus;
  const std::vector<int64_t> lengths =
      data == 0 ? flopspack::bench::LongTailBatch(ranks, microbatches, kCap, 0.97, seed)
                : flopspack::bench::CorpusBatch(static_cast<Corpus>(data - 1), ranks, microbatches,
                                                kCap, 0.97, seed);
  StepOptions o;
  o.num_ranks = ranks;
  o.microbatches_per_rank = microbatches;
  o.max_tokens_per_microbatch = kCap;
  o.overflow = data == 0 ? Overflow::kDefer : Overflow::kSplit;
  o.sync = flopspack::pack::StepSync::kMicrobatch;
  const absl::StatusOr<Plan> plan = flopspack::pack::PlanStep(o, model, lengths);
  std::printf("%s %s: %016llx %.6f%%\n",
              data == 0 ? "long-tail" : flopspack::bench::CorpusName(static_cast<Corpus>(data - 1)),
              shape, static_cast<unsigned long long>(plan.ok() ? Fingerprint(*plan) : 0),
              plan.ok() ? 100 * plan->metrics().microbatch_sync_efficiency : 0.0);
  std::fflush(stdout);
}

// Fingerprints of MICROBATCH plans (long-tail batch at 97% fill, and the
// corpora at R = 1,024): a change meant to keep plans bit for bit must not
// change one of these lines.
int MicrobatchFingerprints() {
  const auto model = flopspack::bench::SevenB();
  for (int data = 0; data < 4; ++data) {
    for (const auto [ranks, microbatches] : {std::pair<int64_t, int64_t>{64, 2},
                                             {64, 8},
                                             {256, 2},
                                             {256, 4},
                                             {1024, 1},
                                             {1024, 2},
                                             {1024, 4},
                                             {1024, 8},
                                             {8192, 2},
                                             {8192, 4}}) {
      if (data > 0 && ranks != 1024) continue;
      char shape[64];
      std::snprintf(shape, sizeof shape, "R=%lld M=%lld", static_cast<long long>(ranks),
                    static_cast<long long>(microbatches));
      PrintMicrobatchStep(*model, data, ranks, microbatches, 1, shape);
    }
  }
  return 0;
}

// The 216 small MICROBATCH steps on which the token-balanced candidate
// (step 5 of Planning for microbatch synchronization, docs/planner.md) is
// decided: R in {64, 256, 1024} x M in {1, 2, 4, 8} x seeds 1-6 of the
// long-tail batch (97% fill, defer) and of the code and prose corpora
// (split); one line per step, the efficiency to 1e-6 points and whether
// the candidate was kept, so two builds' outputs can be diffed.
int CandidateSteps() {
  const auto model = flopspack::bench::SevenB();
  for (int data = 0; data < 3; ++data) {
    for (const int64_t ranks : {64, 256, 1024}) {
      for (const int64_t microbatches : {1, 2, 4, 8}) {
        for (uint64_t seed = 1; seed <= 6; ++seed) {
          char shape[64];
          std::snprintf(shape, sizeof shape, "R=%lld M=%lld seed=%llu",
                        static_cast<long long>(ranks), static_cast<long long>(microbatches),
                        static_cast<unsigned long long>(seed));
          PrintMicrobatchStep(*model, data, ranks, microbatches, seed, shape);
        }
      }
    }
  }
  return 0;
}

int main(int argc, char** argv) {
  std::vector<int64_t> rank_counts;
  const bool split = argc > 1 && std::strcmp(argv[1], "split") == 0;
  const bool sync = argc > 1 && std::strcmp(argv[1], "sync") == 0;
  const bool corpora = argc > 1 && std::strcmp(argv[1], "corpora") == 0;
  for (int i = split || sync || corpora ? 2 : 1; i < argc; ++i) {
    rank_counts.push_back(std::atoll(argv[i]));
  }
  if (argc > 1 && std::strcmp(argv[1], "fingerprints") == 0) return MicrobatchFingerprints();
  if (argc > 1 && std::strcmp(argv[1], "candidate") == 0) return CandidateSteps();
  if (corpora) {
    if (rank_counts.empty()) rank_counts = {1024};
    return CorporaTable(rank_counts);
  }
  if (sync) {
    if (rank_counts.empty()) rank_counts = {1024, 8192};
    SyncTable(rank_counts);
    std::printf("\n");
    return CorporaTable({1024});
  }
  if (split) {
    if (rank_counts.empty()) rank_counts = {8, 64, 1024};
    return SplitTable(rank_counts);
  }
  if (rank_counts.empty()) rank_counts = {64, 1024, 8192};
  const auto model = flopspack::bench::SevenB();
  std::printf(
      "| R | M | fill target | algorithm | balance efficiency | fill | gap to lower bound | "
      "deferred docs | worst slot balance | time (ms) |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
  for (int64_t ranks : rank_counts) {
    for (int64_t microbatches : {1, 4, 8}) {
      for (double fill : {0.97, 0.99, 0.995}) {
        const std::vector<int64_t> lengths =
            flopspack::bench::LongTailBatch(ranks, microbatches, kCap, fill, 1);
        for (const Algorithm& a : kAlgorithms) {
          StepOptions o;
          o.num_ranks = ranks;
          o.microbatches_per_rank = microbatches;
          o.max_tokens_per_microbatch = kCap;
          o.algorithm = a.algorithm;
          o.refine = a.refine;
          o.overflow = Overflow::kDefer;
          double best = 0;
          const absl::StatusOr<Plan> plan = PlanBestOfThree(o, *model, lengths, &best);
          if (!plan.ok()) {
            std::printf("| %lld | %lld | %.1f%% | %s | error: %s |\n",
                        static_cast<long long>(ranks), static_cast<long long>(microbatches),
                        100 * fill, a.name, std::string(plan.status().message()).c_str());
            continue;
          }
          const auto& m = plan->metrics();
          std::printf(
              "| %lld | %lld | %.1f%% | %s | %.3f%% | %.2f%% | %.3f%% | %llu of %zu | %.3f | %.2f "
              "|\n",
              static_cast<long long>(ranks), static_cast<long long>(microbatches), 100 * fill,
              a.name, 100 * m.rank_balance_efficiency, 100 * m.fill,
              100 * m.rank_gap_to_lower_bound, static_cast<unsigned long long>(m.deferred_items),
              lengths.size(), m.worst_slot_balance, 1e3 * best);
          std::fflush(stdout);
        }
      }
    }
  }
  // Determinism across processes: this must not change between runs.
  StepOptions o;
  o.num_ranks = 1024;
  o.microbatches_per_rank = 4;
  o.max_tokens_per_microbatch = kCap;
  const std::vector<int64_t> lengths = flopspack::bench::LongTailBatch(1024, 4, kCap, 0.99, 1);
  absl::StatusOr<Plan> plan = flopspack::pack::PlanStep(o, *model, lengths);
  std::printf("\nfingerprint of the R=1024 M=4 99%% plan: %016llx\n",
              static_cast<unsigned long long>(plan.ok() ? Fingerprint(*plan) : 0));
  return 0;
}
