// Cost evaluation speed: per-document costs of 1M documents (lognormal
// lengths, median ~1,500, clipped to 16,384) under each model, through the
// core and through the C ABI.
#include <cmath>
#include <vector>

#include "benchmark/benchmark.h"
#include "cost/polynomial.h"
#include "cost/transformer.h"
#include "datasets.h"
#include "flopspack/flopspack.h"

namespace {

const std::vector<int64_t>& Lengths() { return flopspack::benchmarks::StandardLognormal(); }

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

void BM_TransformerDocumentCosts(benchmark::State& state) {
  auto model = *flopspack::cost::TransformerModel::Create(Llama3_8B());
  std::vector<double> out(Lengths().size());
  for (auto _ : state) {
    benchmark::DoNotOptimize(model->DocumentCosts(Lengths(), absl::MakeSpan(out)));
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(Lengths().size()));
}
BENCHMARK(BM_TransformerDocumentCosts)->Unit(benchmark::kMillisecond);

void BM_PolynomialDocumentCosts(benchmark::State& state) {
  auto model = *flopspack::cost::PolynomialModel::Create({1, 2, 3, 4});
  std::vector<double> out(Lengths().size());
  for (auto _ : state) {
    benchmark::DoNotOptimize(model->DocumentCosts(Lengths(), absl::MakeSpan(out)));
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(Lengths().size()));
}
BENCHMARK(BM_PolynomialDocumentCosts)->Unit(benchmark::kMillisecond);

void BM_CapiDocumentCosts(benchmark::State& state) {
  flopspack_transformer_config c;
  flopspack_transformer_config_init(&c);
  c.num_layers = 32;
  c.hidden_size = 4096;
  c.num_attention_heads = 32;
  c.num_key_value_heads = 8;
  c.intermediate_size = 14336;
  c.vocab_size = 128256;
  c.gated_mlp = 1;
  flopspack_cost_model* model = nullptr;
  flopspack_cost_model_transformer(&c, &model);
  std::vector<double> out(Lengths().size());
  for (auto _ : state) {
    flopspack_cost_model_document_costs(model, Lengths().data(), Lengths().size(), out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(Lengths().size()));
  flopspack_cost_model_destroy(model);
}
BENCHMARK(BM_CapiDocumentCosts)->Unit(benchmark::kMillisecond);

void BM_CapiSequenceCostPacked(benchmark::State& state) {
  // 1M documents as ~100k packed sequences of ~10 documents.
  flopspack_cost_model* model = nullptr;
  flopspack_cost_model_polynomial(1, 2, 3, 4, &model);
  for (auto _ : state) {
    double total = 0;
    for (size_t i = 0; i + 10 <= Lengths().size(); i += 10) {
      double cost = 0;
      flopspack_cost_model_sequence_cost(model, Lengths().data() + i, 10, &cost);
      total += cost;
    }
    benchmark::DoNotOptimize(total);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(Lengths().size()));
  flopspack_cost_model_destroy(model);
}
BENCHMARK(BM_CapiSequenceCostPacked)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
