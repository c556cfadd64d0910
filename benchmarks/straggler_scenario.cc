// The seeds' scenario of docs/straggler-emulator.md: two datasets with the
// same mean document length, one with a small extra mass of 12K–16K-token
// documents. Prints balance efficiency at 1,024 and 8,192 ranks under each
// policy, and the difference between the datasets.
//
//   build/benchmarks/straggler_scenario [tail_share] [steps] [documents]
//
// Defaults: tail_share 2e-6 (of documents moved to 12,288..16,384 tokens),
// 400 steps, 4,000,000 documents (lognormal, median 1,000, sigma 0.7,
// clipped to 8,192).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "cost/transformer.h"
#include "sim/simulator.h"
#include "sim/synthetic.h"
#include "stats/length_stats.h"

namespace {

flopspack::cost::TransformerShape Llama3_8B() {
  flopspack::cost::TransformerShape s;
  s.num_layers = 32;
  s.hidden_size = 4096;
  s.num_attention_heads = 32;
  s.num_key_value_heads = 8;
  s.intermediate_size = 14336;
  s.vocab_size = 128256;
  s.gated_mlp = true;
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace flopspack;
  const double share = argc > 1 ? std::atof(argv[1]) : 2e-6;
  const uint64_t steps = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 400;
  const size_t documents = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 4'000'000;
  const std::vector<int64_t> a = sim::LognormalLengths(documents, 1000, 0.7, 8192, 1);
  const std::vector<int64_t> b = sim::WithTailMass(a, share, 12288, 16384, 2);
  auto model = *cost::TransformerModel::Create(Llama3_8B());
  auto sa = *stats::LengthStats::Create(a, nullptr);
  auto sb = *stats::LengthStats::Create(b, nullptr);
  std::printf("dataset A: %llu docs, mean %.2f, p99 %lld, p99.9 %lld, max %lld\n",
              static_cast<unsigned long long>(sa.count()), sa.mean(),
              static_cast<long long>(*sa.Quantile(0.99)),
              static_cast<long long>(*sa.Quantile(0.999)), static_cast<long long>(sa.max()));
  std::printf(
      "dataset B: %llu docs (%llu in 12,288..16,384), mean %.2f, p99 %lld, p99.9 %lld, "
      "max %lld\n",
      static_cast<unsigned long long>(sb.count()),
      static_cast<unsigned long long>(sb.Above(12287).documents), sb.mean(),
      static_cast<long long>(*sb.Quantile(0.99)), static_cast<long long>(*sb.Quantile(0.999)),
      static_cast<long long>(sb.max()));
  std::printf(
      "Llama-3-8B FLOPs, document attention, 16,384 tokens per microbatch, 1 microbatch "
      "per rank, %llu steps, seed 7\n\n",
      static_cast<unsigned long long>(steps));
  std::printf(
      "| policy | ranks | efficiency A | efficiency B | A - B | predicted A | predicted B |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|\n");
  for (sim::PolicyKind policy :
       {sim::PolicyKind::kRandom, sim::PolicyKind::kTokenBalanced, sim::PolicyKind::kBuckets}) {
    for (uint64_t ranks : {1024ull, 8192ull}) {
      sim::SimOptions o;
      o.policy = policy;
      o.num_ranks = ranks;
      o.microbatches_per_rank = 1;
      o.tokens_per_microbatch = 16384;
      o.num_steps = steps;
      o.seed = 7;
      auto ra = sim::Simulate(a, *model, o);
      auto rb = sim::Simulate(b, *model, o);
      if (!ra.ok() || !rb.ok()) {
        std::fprintf(stderr, "simulation failed\n");
        return 1;
      }
      auto pct = [](double x) { return 100 * x; };
      // The prediction exists only for policies whose ranks are independent.
      auto predicted = [](double x) {
        return std::isnan(x) ? std::string("n/a") : absl::StrFormat("%.2f%%", 100 * x);
      };
      std::printf("| %s | %llu | %.2f%% | %.2f%% | %.2f pp | %s | %s |\n",
                  policy == sim::PolicyKind::kRandom          ? "random"
                  : policy == sim::PolicyKind::kTokenBalanced ? "token-balanced"
                                                              : "buckets",
                  static_cast<unsigned long long>(ranks), pct(ra->mean_balance_efficiency),
                  pct(rb->mean_balance_efficiency),
                  pct(ra->mean_balance_efficiency - rb->mean_balance_efficiency),
                  predicted(ra->predicted_balance_efficiency).c_str(),
                  predicted(rb->predicted_balance_efficiency).c_str());
    }
  }
  // Document-level FLOPs balancing. It needs two things the set-up above
  // lacks: ranks whose fair share exceeds the longest document (four
  // microbatches of 16,384 tokens per rank, 64K tokens) and memory slack to
  // give a rank with a long document fewer other tokens (a cap of 20,480
  // per microbatch for the planner).
  std::printf("\n4 microbatches of 16,384 tokens per rank (planner cap 20,480), %llu steps\n\n",
              static_cast<unsigned long long>(steps / 4));
  std::printf("| policy | ranks | efficiency A | efficiency B | A - B |\n");
  std::printf("|---|---:|---:|---:|---:|\n");
  for (sim::PolicyKind policy :
       {sim::PolicyKind::kTokenBalanced, sim::PolicyKind::kPlannerDocuments}) {
    for (uint64_t ranks : {1024ull, 8192ull}) {
      sim::SimOptions o;
      o.policy = policy;
      o.num_ranks = ranks;
      o.microbatches_per_rank = 4;
      o.tokens_per_microbatch = 16384;
      o.max_tokens_per_microbatch = 20480;
      o.num_steps = steps / 4;
      o.seed = 7;
      auto ra = sim::Simulate(a, *model, o);
      auto rb = sim::Simulate(b, *model, o);
      if (!ra.ok() || !rb.ok()) {
        std::fprintf(stderr, "simulation failed\n");
        return 1;
      }
      std::printf("| %s | %llu | %.2f%% | %.2f%% | %.2f pp |\n",
                  policy == sim::PolicyKind::kTokenBalanced ? "token-balanced"
                                                            : "planner (FLOPs, documents)",
                  static_cast<unsigned long long>(ranks), 100 * ra->mean_balance_efficiency,
                  100 * rb->mean_balance_efficiency,
                  100 * (ra->mean_balance_efficiency - rb->mean_balance_efficiency));
    }
  }

  // Efficiency versus GPUs, random dealing, both datasets: the sampled mean
  // balance efficiency, the relative throughput and its order-statistics
  // prediction.
  const std::vector<uint64_t> counts = {64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384};
  std::printf("\nrandom dealing, %llu steps per point\n\n",
              static_cast<unsigned long long>(steps / 4));
  std::printf(
      "| ranks | efficiency A | throughput A | predicted A | efficiency B | throughput B "
      "| predicted B |\n");
  std::printf("|---:|---:|---:|---:|---:|---:|---:|\n");
  sim::SimOptions o;
  o.tokens_per_microbatch = 16384;
  o.num_steps = steps / 4;
  o.seed = 7;
  auto wa = sim::Sweep(a, *model, o, counts);
  auto wb = sim::Sweep(b, *model, o, counts);
  if (!wa.ok() || !wb.ok()) {
    std::fprintf(stderr, "sweep failed\n");
    return 1;
  }
  for (size_t i = 0; i < counts.size(); ++i) {
    const sim::SweepPoint &pa = (*wa)[i], &pb = (*wb)[i];
    std::printf("| %llu | %.2f%% | %.2f%% | %.2f%% | %.2f%% | %.2f%% | %.2f%% |\n",
                static_cast<unsigned long long>(counts[i]), 100 * pa.sampled_efficiency,
                100 * pa.relative_throughput, 100 * pa.predicted_efficiency,
                100 * pb.sampled_efficiency, 100 * pb.relative_throughput,
                100 * pb.predicted_efficiency);
  }
  return 0;
}
