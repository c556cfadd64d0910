// Statistics speed: building from 10M lengths, merging shards, the exact
// expected maximum at N = 10^6 over every distinct length, and the KS
// distance. Lognormal lengths, median ~1,000, clipped to 131,072.
#include <vector>

#include "benchmark/benchmark.h"
#include "sim/synthetic.h"
#include "stats/compare.h"
#include "stats/length_stats.h"

namespace {

const std::vector<int64_t>& Lengths() {
  static const std::vector<int64_t> lengths =
      flopspack::sim::LognormalLengths(10'000'000, 1000, 1.2, 131072, 1);
  return lengths;
}

void BM_Create(benchmark::State& state) {
  const auto& lengths = Lengths();
  for (auto _ : state) {
    auto s = flopspack::stats::LengthStats::Create(lengths, nullptr);
    benchmark::DoNotOptimize(s);
  }
  state.SetItemsProcessed(state.iterations() * lengths.size());
}
BENCHMARK(BM_Create)->Unit(benchmark::kMillisecond);

void BM_MergeTwoHalves(benchmark::State& state) {
  const auto& lengths = Lengths();
  const size_t half = lengths.size() / 2;
  auto a = *flopspack::stats::LengthStats::Create(absl::MakeConstSpan(lengths).subspan(0, half),
                                                  nullptr);
  auto b =
      *flopspack::stats::LengthStats::Create(absl::MakeConstSpan(lengths).subspan(half), nullptr);
  for (auto _ : state) {
    auto m = flopspack::stats::LengthStats::Merge(a, b);
    benchmark::DoNotOptimize(m);
  }
  state.counters["distinct"] = static_cast<double>(a.lengths().size() + b.lengths().size());
}
BENCHMARK(BM_MergeTwoHalves)->Unit(benchmark::kMicrosecond);

void BM_ExpectedMaxMillionDraws(benchmark::State& state) {
  static const auto s = *flopspack::stats::LengthStats::Create(Lengths(), nullptr);
  for (auto _ : state) benchmark::DoNotOptimize(s.ExpectedMax(1'000'000));
  state.counters["distinct"] = static_cast<double>(s.lengths().size());
}
BENCHMARK(BM_ExpectedMaxMillionDraws)->Unit(benchmark::kMicrosecond);

void BM_KsDistanceTokens(benchmark::State& state) {
  static const auto a = *flopspack::stats::LengthStats::Create(Lengths(), nullptr);
  static const auto b = *flopspack::stats::LengthStats::Create(
      flopspack::sim::LognormalLengths(1'000'000, 1100, 1.1, 131072, 2), nullptr);
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        flopspack::stats::KsDistance(a, b, flopspack::stats::Weighting::kTokens));
  }
}
BENCHMARK(BM_KsDistanceTokens)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
