// Streaming packer: throughput at W = 10,000 (target >= 5M documents/s on one
// core) and fill versus window W against offline BFD (W covering the whole
// input is exactly BFD). Input: 1M lognormal documents, median 1,500,
// sigma 1, clipped to 16,384; capacity 16,384.
#include <memory>

#include "benchmark/benchmark.h"
#include "datasets.h"
#include "pack/stream/stream_packer.h"

namespace {

using flopspack::pack::Overflow;
using flopspack::pack::StreamPacker;

constexpr int64_t kCapacity = 16384;

void BM_StreamPack(benchmark::State& state) {
  const auto& lengths = flopspack::benchmarks::StandardLognormal();
  const uint64_t window = static_cast<uint64_t>(state.range(0));
  double fill = 0;
  size_t sequences = 0;
  for (auto _ : state) {
    auto packer = *StreamPacker::Create({kCapacity, window, Overflow::kSplit, 1}, nullptr);
    // Push in batches of 4,096, as a data loader would, taking sequences out
    // as they become final.
    for (size_t i = 0; i < lengths.size(); i += 4096) {
      const size_t n = std::min<size_t>(4096, lengths.size() - i);
      benchmark::DoNotOptimize(packer->Push({lengths.data() + i, n}));
      auto plan = packer->Take();
      sequences += plan->group_count();
    }
    benchmark::DoNotOptimize(packer->Flush());
    sequences += packer->Take()->group_count();
    fill = static_cast<double>(packer->tokens_emitted()) /
           (static_cast<double>(packer->sequences_emitted()) * kCapacity);
  }
  int64_t tokens = 0;
  for (int64_t l : lengths) tokens += l;
  const double lower_bound = static_cast<double>((tokens + kCapacity - 1) / kCapacity);
  state.counters["fill"] = fill;
  state.counters["bins_over_lower_bound"] =
      static_cast<double>(sequences) / static_cast<double>(state.iterations()) / lower_bound - 1;
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(lengths.size()));
}
BENCHMARK(BM_StreamPack)
    ->Arg(10)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(100000)
    ->Arg(2'000'001)  // covers the input: offline BFD
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
