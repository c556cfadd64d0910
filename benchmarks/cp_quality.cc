// Context-parallel balance on the planner's benchmark step (issue 16): the
// long-tail step of 8,192 ranks x 4 microbatches under a cap of 16,384
// tokens (planner_data.h, fill 99%, the 7B-class model), planned by the
// default step planner, then every microbatch sharded over a CP group of C
// GPUs. Per layout and C: the worst microbatch's CP-rank balance (mean / max
// CP-rank cost), the balance over all microbatches (Σ mean / Σ max), the
// key/value tokens received per CP rank and microbatch, and for adaptive
// how many microbatches took the per-document layout. Figures of
// docs/context-parallel.md:
//   build/dev/benchmarks/cp_quality [ranks microbatches]
#include <cstdio>
#include <cstdlib>

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
  return 0;
}
