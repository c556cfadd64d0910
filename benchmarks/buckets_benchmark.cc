// Speed of optimal bucket boundaries and of the bucket sampler.
//  - BM_OptimizeBounds/D/B: D distinct lengths (lengths 1..D, a heavy-tailed
//    histogram of 2M samples), B buckets: the issue's "max lengths 128K,
//    B up to 64".
//  - BM_SamplerEpoch/n: one epoch plan (shuffle, batches, steps, ranks and
//    all metrics including per-step diversity) for n samples of the
//    pipeline-like mix, 64 buckets, budget 49,152, 8 ranks. Target: 1M in
//    <= 200 ms.
//  - BM_SamplerCreate/n: histogram, optimal bounds and batch layout.
//  - BM_SamplerStep: one step of an epoch whose layout is cached (resume).
//  - BM_BucketStream/buffer: 1M lengths streamed through the streaming
//    sampler (bucket_stream.h) with the given buffer, every step taken.
#include <cmath>
#include <vector>

#include "benchmark/benchmark.h"
#include "pack/buckets/bucket_sampler.h"
#include "pack/buckets/bucket_stream.h"
#include "pack/buckets/buckets.h"
#include "pipeline_lengths.h"
#include "util/random.h"

namespace {

using flopspack::pack::BucketSampler;
using flopspack::pack::BucketSamplerOptions;

void BM_OptimizeBounds(benchmark::State& state) {
  const int64_t distinct = state.range(0);
  const int64_t buckets = state.range(1);
  // Every length 1..distinct occurs, with counts falling off like a tail.
  flopspack::pack::LengthHistogram h;
  for (int64_t v = 1; v <= distinct; ++v) {
    h.values.push_back(v);
    h.counts.push_back(1 + static_cast<int64_t>(2'000'000.0 / distinct *
                                                std::exp(-4.0 * static_cast<double>(v) /
                                                         static_cast<double>(distinct))));
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(flopspack::pack::OptimalUpperBounds(h, buckets));
  }
}
BENCHMARK(BM_OptimizeBounds)
    ->Args({8192, 32})
    ->Args({131072, 16})
    ->Args({131072, 64})
    ->Unit(benchmark::kMillisecond);

BucketSamplerOptions PipelineOptions() {
  BucketSamplerOptions o;
  o.num_buckets = 64;
  o.max_padded_tokens = 49152;
  o.num_ranks = 8;
  o.accumulation_steps = 1;
  o.seed = 1;
  return o;
}

void BM_SamplerCreate(benchmark::State& state) {
  const std::vector<int64_t> lengths =
      flopspack::bench::PipelineLengths(static_cast<size_t>(state.range(0)), 1);
  for (auto _ : state) {
    benchmark::DoNotOptimize(BucketSampler::Create(PipelineOptions(), nullptr, lengths));
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_SamplerCreate)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

void BM_SamplerEpoch(benchmark::State& state) {
  const std::vector<int64_t> lengths =
      flopspack::bench::PipelineLengths(static_cast<size_t>(state.range(0)), 1);
  auto sampler = BucketSampler::Create(PipelineOptions(), nullptr, lengths);
  uint64_t epoch = 0;
  for (auto _ : state) {
    // A new epoch every iteration: the layout cache never helps.
    benchmark::DoNotOptimize((*sampler)->Epoch(epoch++));
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_SamplerEpoch)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

void BM_SamplerStep(benchmark::State& state) {
  const std::vector<int64_t> lengths = flopspack::bench::PipelineLengths(1'000'000, 1);
  auto sampler = BucketSampler::Create(PipelineOptions(), nullptr, lengths);
  (void)(*sampler)->Step(0, 0);  // build and cache epoch 0's layout
  uint64_t step = 0;
  const uint64_t steps = static_cast<uint64_t>((*sampler)->steps_per_epoch());
  for (auto _ : state) {
    benchmark::DoNotOptimize((*sampler)->Step(0, step));
    step = (step + 1) % steps;
  }
}
BENCHMARK(BM_SamplerStep)->Unit(benchmark::kMicrosecond);

void BM_BucketStream(benchmark::State& state) {
  const std::vector<int64_t> lengths = flopspack::bench::PipelineLengths(1'000'000, 1);
  for (auto _ : state) {
    auto stream = flopspack::pack::BucketStream::Create(PipelineOptions(), nullptr, state.range(0));
    size_t at = 0;
    int64_t steps = 0;
    while (at < lengths.size()) {
      at += *(*stream)->Push(absl::MakeConstSpan(lengths).subspan(at));
      while (*(*stream)->Ready() > 0) {
        benchmark::DoNotOptimize((*stream)->Take());
        ++steps;
      }
    }
    (void)(*stream)->Flush();
    while (*(*stream)->Ready() > 0) {
      benchmark::DoNotOptimize((*stream)->Take());
      ++steps;
    }
    state.counters["steps"] = static_cast<double>(steps);
  }
  state.SetItemsProcessed(state.iterations() * 1'000'000);
}
BENCHMARK(BM_BucketStream)->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
