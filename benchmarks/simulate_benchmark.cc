// Emulator speed. The target of issue 6: 100 steps at 8,192 ranks x 4
// microbatches of 8,192 tokens (about 20M documents: lognormal lengths,
// median 814, sigma 1, mean ~1,340) in <= 10 s on one core with the random
// policy. The token-balanced and bucket-sampler policies are timed on the
// same set-up.
#include <vector>

#include "benchmark/benchmark.h"
#include "cost/transformer.h"
#include "sim/simulator.h"
#include "sim/synthetic.h"

namespace {

const std::vector<int64_t>& Lengths() {
  static const std::vector<int64_t> lengths =
      flopspack::sim::LognormalLengths(1'000'000, 814, 1.0, 32768, 1);
  return lengths;
}

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

void Run(benchmark::State& state, flopspack::sim::PolicyKind policy) {
  auto model = *flopspack::cost::TransformerModel::Create(Llama3_8B());
  flopspack::sim::SimOptions o;
  o.policy = policy;
  o.num_ranks = static_cast<uint64_t>(state.range(0));
  o.microbatches_per_rank = 4;
  o.tokens_per_microbatch = 8192;
  o.max_tokens_per_microbatch = 10240;  // the planner's memory slack; others ignore it
  o.num_steps = static_cast<uint64_t>(state.range(1));
  uint64_t documents = 0;
  double efficiency = 0;
  for (auto _ : state) {
    auto r = flopspack::sim::Simulate(Lengths(), *model, o);
    if (!r.ok()) {
      state.SkipWithError(std::string(r.status().message()).c_str());
      return;
    }
    documents = r->documents_drawn;
    efficiency = r->mean_balance_efficiency;
  }
  state.counters["documents"] = static_cast<double>(documents);
  state.counters["docs_per_s"] = benchmark::Counter(
      static_cast<double>(documents) * state.iterations(), benchmark::Counter::kIsRate);
  state.counters["efficiency"] = efficiency;
}

void BM_SimulatePlannerDocuments(benchmark::State& state) {
  Run(state, flopspack::sim::PolicyKind::kPlannerDocuments);
}

void BM_SimulateRandom(benchmark::State& state) { Run(state, flopspack::sim::PolicyKind::kRandom); }
void BM_SimulateTokenBalanced(benchmark::State& state) {
  Run(state, flopspack::sim::PolicyKind::kTokenBalanced);
}

void BM_SimulateBuckets(benchmark::State& state) {
  Run(state, flopspack::sim::PolicyKind::kBuckets);
}

BENCHMARK(BM_SimulateRandom)->Args({8192, 100})->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_SimulateTokenBalanced)->Args({8192, 100})->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_SimulateBuckets)->Args({8192, 100})->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_SimulatePlannerDocuments)->Args({8192, 100})->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_SimulateRandom)->Args({1024, 20})->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
