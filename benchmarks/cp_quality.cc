// Context-parallel balance on the planner's benchmark step (issue 16): the
// long-tail step of 8,192 ranks x 4 microbatches under a cap of 16,384
// tokens (planner_data.h, fill 99%, the 7B-class model), planned by the
// default step planner, then every microbatch sharded over a CP group of C
// GPUs. Per layout and C: the worst microbatch's CP-rank balance (mean / max
// CP-rank cost), the balance over all microbatches (Σ mean / Σ max), the
// key/value tokens received per CP rank and microbatch, and for adaptive
// how many microbatches took the per-document layout. Figures of
// docs/context-parallel.md:
// Then the same step planned with CP (context_parallel_size = C, the cap
// 16,384 / C per GPU) against the plan above sharded afterwards, both judged
// by each microbatch's slowest CP rank.
//   build/dev/benchmarks/cp_quality [ranks microbatches]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "pack/context_parallel/context_parallel.h"
#include "pack/planner/step_planner.h"
#include "planner_data.h"

int main(int argc, char** argv) {
  using flopspack::pack::CpLayout;
  const int64_t ranks = argc > 2 ? std::atoll(argv[1]) : 8192;
  const int64_t microbatches = argc > 2 ? std::atoll(argv[2]) : 4;
  constexpr int64_t kCap = 16384;
  const auto lengths = flopspack::bench::LongTailBatch(ranks, microbatches, kCap, 0.99, 1);
  const auto model = flopspack::bench::SevenB();
  flopspack::pack::StepOptions o;
  o.num_ranks = ranks;
  o.microbatches_per_rank = microbatches;
  o.max_tokens_per_microbatch = kCap;
  o.overflow = flopspack::pack::Overflow::kDefer;
  // Slots as planned (the order does not change any figure here): plans
  // whose costs differ can then be compared group by group.
  o.ordering = flopspack::pack::SlotOrder::kAsPlanned;
  auto plan = flopspack::pack::PlanStep(o, *model, lengths);
  if (!plan.ok()) {
    std::fprintf(stderr, "%s\n", plan.status().ToString().c_str());
    return 1;
  }
  std::printf("%lld ranks x %lld microbatches, %zu documents, %zu microbatches planned\n",
              static_cast<long long>(ranks), static_cast<long long>(microbatches), lengths.size(),
              plan->group_count());
  std::printf("%-4s %-10s %14s %14s %16s %10s\n", "C", "layout", "worst balance", "balance",
              "kv tokens/rank", "per-doc");
  for (int64_t c : {2, 4, 8}) {
    for (CpLayout layout :
         {CpLayout::kSequenceHeadTail, CpLayout::kDocumentHeadTail, CpLayout::kAdaptive}) {
      auto shard = flopspack::pack::ShardContextParallel(*plan, *model, c, layout);
      if (!shard.ok()) {
        std::fprintf(stderr, "%s\n", shard.status().ToString().c_str());
        return 1;
      }
      const auto& m = shard->metrics;
      const char* name = layout == CpLayout::kSequenceHeadTail   ? "sequence"
                         : layout == CpLayout::kDocumentHeadTail ? "document"
                                                                 : "adaptive";
      std::printf("%-4lld %-10s %13.4f%% %13.4f%% %16.1f %10llu\n", static_cast<long long>(c), name,
                  100 * m.worst_balance, 100 * m.balance_efficiency,
                  static_cast<double>(m.kv_tokens) /
                      static_cast<double>(m.num_groups * static_cast<uint64_t>(c)),
                  static_cast<unsigned long long>(m.document_layout_groups));
    }
  }
  // Planning with CP (StepOptions::context_parallel_size) against
  // plan-then-shard: the same CP group cap (16,384 tokens per sequence, so
  // 16,384 / C per GPU), the step balance judged by each microbatch's
  // slowest CP rank (rank cost = the sum of those) and the CP-rank balance.
  std::printf("\nplanning with CP vs plan-then-shard (group cap %lld)\n",
              static_cast<long long>(kCap));
  std::printf("%-4s %-10s %-16s %14s %14s %14s %10s\n", "C", "layout", "planner", "step balance",
              "CP worst", "CP balance", "same plan");
  for (int64_t c : {2, 4, 8}) {
    for (CpLayout layout :
         {CpLayout::kSequenceHeadTail, CpLayout::kDocumentHeadTail, CpLayout::kAdaptive}) {
      flopspack::pack::StepOptions with_cp = o;
      with_cp.max_tokens_per_microbatch = kCap / c;
      with_cp.context_parallel_size = c;
      with_cp.context_parallel_layout = layout;
      auto planned = flopspack::pack::PlanStep(with_cp, *model, lengths);
      if (!planned.ok()) {
        std::fprintf(stderr, "%s\n", planned.status().ToString().c_str());
        return 1;
      }
      const char* name = layout == CpLayout::kSequenceHeadTail   ? "sequence"
                         : layout == CpLayout::kDocumentHeadTail ? "document"
                                                                 : "adaptive";
      bool same = planned->group_count() == plan->group_count();
      for (size_t g = 0; same && g < plan->group_count(); ++g) {
        const auto a = plan->group_items(g), b = planned->group_items(g);
        same = std::equal(a.begin(), a.end(), b.begin(), b.end());
      }
      for (int pass = 0; pass < 2; ++pass) {
        const flopspack::pack::Plan& p = pass == 0 ? *plan : *planned;
        auto shard = flopspack::pack::ShardContextParallel(p, *model, c, layout);
        if (!shard.ok()) return 1;
        std::vector<double> rank(static_cast<size_t>(ranks), 0.0);
        for (size_t g = 0; g < p.group_count(); ++g) {
          double slowest = 0;
          for (int64_t r = 0; r < c; ++r) {
            slowest = std::max(slowest, shard->costs[shard->Index(g, r)]);
          }
          rank[static_cast<size_t>(p.group_rank(g))] += slowest;
        }
        double sum = 0, max = 0;
        for (double v : rank) {
          sum += v;
          max = std::max(max, v);
        }
        std::printf(
            "%-4lld %-10s %-16s %13.4f%% %13.4f%% %13.4f%% %10s\n", static_cast<long long>(c), name,
            pass == 0 ? "plan, then shard" : "plan with CP",
            100 * sum / static_cast<double>(ranks) / max, 100 * shard->metrics.worst_balance,
            100 * shard->metrics.balance_efficiency, pass == 0 ? "" : (same ? "yes" : "no"));
      }
    }
  }
  return 0;
}
