// Planning speed of one step on the long-tail dataset of issue 4 (see
// planner_data.h): the document-level planner (the default) and the
// baselines, through the core and through the C ABI. Targets: R = 8192,
// M = 4, cap 16,384, ~210,000 documents in <= 50 ms; R = 64, M = 8 in
// <= 2 ms. Arguments: ranks, microbatches, fill in tenths of a percent.
//   build/benchmarks/planner_benchmark --benchmark_min_time=0.2
// --warm_malloc puts glibc's allocator in a long-running process's state
// before any benchmark, so the figures do not depend on their order (main).
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "benchmark/benchmark.h"
#include "flopspack/flopspack.h"
#include "pack/planner/step_planner.h"
#include "planner_data.h"

namespace {

constexpr int64_t kCap = 16384;

const std::vector<int64_t>& Batch(int64_t ranks, int64_t microbatches, int64_t fill_permille) {
  static std::map<std::tuple<int64_t, int64_t, int64_t>, std::vector<int64_t>> cache;
  auto& lengths = cache[{ranks, microbatches, fill_permille}];
  if (lengths.empty()) {
    lengths = flopspack::bench::LongTailBatch(ranks, microbatches, kCap,
                                              static_cast<double>(fill_permille) / 1000, 1);
  }
  return lengths;
}

void Plan(benchmark::State& state, flopspack::pack::StepAlgorithm algorithm, bool refine,
          flopspack::pack::StepSync sync = flopspack::pack::StepSync::kStep,
          int64_t pipeline_stages = 0) {
  const int64_t ranks = state.range(0), microbatches = state.range(1);
  const std::vector<int64_t>& lengths = Batch(ranks, microbatches, state.range(2));
  const auto model = flopspack::bench::SevenB();
  flopspack::pack::StepOptions o;
  o.num_ranks = ranks;
  o.microbatches_per_rank = microbatches;
  o.max_tokens_per_microbatch = kCap;
  o.algorithm = algorithm;
  o.overflow = flopspack::pack::Overflow::kDefer;
  o.refine = refine;
  o.sync = sync;
  o.pipeline_stages = pipeline_stages;
  double efficiency = 0;
  for (auto _ : state) {
    auto plan = flopspack::pack::PlanStep(o, *model, lengths);
    if (!plan.ok()) {
      state.SkipWithError(std::string(plan.status().message()).c_str());
      return;
    }
    efficiency = plan->metrics().rank_balance_efficiency;
    benchmark::DoNotOptimize(plan);
  }
  state.counters["documents"] = static_cast<double>(lengths.size());
  state.counters["balance"] = efficiency;
}

void BM_Documents(benchmark::State& state) {
  Plan(state, flopspack::pack::StepAlgorithm::kDocuments, true);
}
void BM_DocumentsLptOnly(benchmark::State& state) {
  Plan(state, flopspack::pack::StepAlgorithm::kDocuments, false);
}
void BM_Random(benchmark::State& state) {
  Plan(state, flopspack::pack::StepAlgorithm::kRandom, true);
}
void BM_Tokens(benchmark::State& state) {
  Plan(state, flopspack::pack::StepAlgorithm::kTokens, true);
}
void BM_Sequences(benchmark::State& state) {
  Plan(state, flopspack::pack::StepAlgorithm::kSequences, true);
}

// Issue 15: planning for microbatch synchronization and for 1F1B pipelines
// (target: within 2x of BM_Documents on the same shape, BM_DocumentsStepSync
// below; CPU time). Compare them in one process with --warm_malloc (see
// main): otherwise the first of them to run pays glibc's page faults.
void BM_DocumentsStepSync(benchmark::State& state) {
  Plan(state, flopspack::pack::StepAlgorithm::kDocuments, true, flopspack::pack::StepSync::kStep);
}
void BM_DocumentsMicrobatchSync(benchmark::State& state) {
  Plan(state, flopspack::pack::StepAlgorithm::kDocuments, true,
       flopspack::pack::StepSync::kMicrobatch);
}
void BM_DocumentsPipeline4(benchmark::State& state) {
  Plan(state, flopspack::pack::StepAlgorithm::kDocuments, true, flopspack::pack::StepSync::kStep,
       4);
}
void BM_DocumentsMicrobatchSyncPipeline4(benchmark::State& state) {
  Plan(state, flopspack::pack::StepAlgorithm::kDocuments, true,
       flopspack::pack::StepSync::kMicrobatch, 4);
}
void SyncShapes(benchmark::internal::Benchmark* b) {
  b->Args({8192, 4, 970})->Args({8192, 8, 970})->Args({1024, 4, 970})->Args({1024, 8, 970});
  b->Unit(benchmark::kMillisecond);
}
BENCHMARK(BM_DocumentsStepSync)->Apply(SyncShapes);
BENCHMARK(BM_DocumentsMicrobatchSync)->Apply(SyncShapes);
BENCHMARK(BM_DocumentsPipeline4)->Apply(SyncShapes);
BENCHMARK(BM_DocumentsMicrobatchSyncPipeline4)->Apply(SyncShapes);

void Shapes(benchmark::internal::Benchmark* b) {
  b->Args({8192, 4, 970})->Args({8192, 4, 990})->Args({8192, 4, 995});
  b->Args({1024, 4, 990})->Args({64, 8, 970})->Args({64, 8, 990});
  b->Args({65536, 4, 970});  // 1.6M documents: a step of a 100K-GPU-class run
  b->Unit(benchmark::kMillisecond);
}
BENCHMARK(BM_Documents)->Apply(Shapes);
BENCHMARK(BM_DocumentsLptOnly)->Apply(Shapes);
BENCHMARK(BM_Random)->Apply(Shapes);
BENCHMARK(BM_Tokens)->Apply(Shapes);
BENCHMARK(BM_Sequences)->Apply(Shapes);

// The same through the C ABI, as a binding would call it.
void BM_CapiPlanStep(benchmark::State& state) {
  const std::vector<int64_t>& lengths = Batch(state.range(0), state.range(1), state.range(2));
  flopspack_transformer_config c;
  flopspack_transformer_config_init(&c);
  c.num_layers = 32;
  c.hidden_size = 4096;
  c.num_attention_heads = 32;
  c.num_key_value_heads = 32;
  c.intermediate_size = 11008;
  c.vocab_size = 32000;
  c.gated_mlp = 1;
  flopspack_cost_model* model = nullptr;
  flopspack_cost_model_transformer(&c, &model);
  flopspack_step_options o;
  flopspack_step_options_init(&o);
  o.num_ranks = static_cast<uint32_t>(state.range(0));
  o.microbatches_per_rank = static_cast<uint32_t>(state.range(1));
  o.max_tokens_per_microbatch = kCap;
  o.overflow = FLOPSPACK_OVERFLOW_DEFER;
  for (auto _ : state) {
    flopspack_plan* plan = nullptr;
    if (flopspack_plan_step(&o, model, lengths.data(), lengths.size(), &plan) != FLOPSPACK_OK) {
      state.SkipWithError(flopspack_last_error_message());
      break;
    }
    flopspack_plan_destroy(plan);
  }
  flopspack_cost_model_destroy(model);
}
BENCHMARK(BM_CapiPlanStep)->Args({8192, 4, 970})->Args({64, 8, 970})->Unit(benchmark::kMillisecond);

}  // namespace

// --warm_malloc: before any benchmark, allocate and free a 24 MB buffer.
// glibc serves large blocks with mmap until one is freed, then raises its
// mmap threshold to that block's size and its trim threshold to twice it
// (up to 32 MB); below the trim threshold, memory freed at the end of a
// plan stays in the heap for the next one. A fresh process with the
// thresholds at their start (128 KB) gives most of a plan's ~10 MB of
// scratch back to the kernel after every call and faults it in again on
// the next: with the STEP objective the refinement's scratch happens to
// raise the thresholds after the first plan, with MICROBATCH nothing does,
// so without this flag the MICROBATCH rows pay ~2,300 page faults per plan
// (a third of their time on this VM) and the figures depend on which
// benchmark ran first. A long-running trainer has long since freed a large
// block; the flag measures that state for every benchmark alike.
int main(int argc, char** argv) {
  int kept = 1;
  bool warm = false;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--warm_malloc") {
      warm = true;
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  if (warm) {
    std::vector<char> block(size_t{24} << 20, 1);
    benchmark::DoNotOptimize(block.data());
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
