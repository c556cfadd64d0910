// Plan quality of every step-planning algorithm on the long-tail dataset of
// issue 4 (planner_data.h), as the markdown table of docs/planner.md:
// R in {64, 1024, 8192} x M in {1, 4, 8} x fill in {97%, 99%, 99.5%}.
// Time is CPU time of one PlanStep call (the best of three), so it is
// comparable on a busy machine. The last line is a fingerprint of one plan:
// two processes (or machines) must print the same one.
//   build/benchmarks/planner_quality            # the whole table
//   build/benchmarks/planner_quality 64 1024    # only these rank counts
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
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

int main(int argc, char** argv) {
  std::vector<int64_t> rank_counts;
  for (int i = 1; i < argc; ++i) rank_counts.push_back(std::atoll(argv[i]));
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
          double best = 1e300;
          absl::StatusOr<Plan> plan;
          for (int run = 0; run < 3; ++run) {
            const double start = CpuSeconds();
            plan = flopspack::pack::PlanStep(o, *model, lengths);
            best = std::min(best, CpuSeconds() - start);
          }
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
