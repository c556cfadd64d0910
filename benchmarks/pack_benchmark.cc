// Packing and balancing: speed, plan quality and memory on the inputs of
// issue 3. Run with --benchmark_min_time=0.2 on a quiet machine; the
// counters carry the quality figures (bins over the lower bound, gap to the
// lower bound) and peak heap bytes per item during one call.
//
// Inputs:
//  * 1,000,000 lognormal documents, median 1,500 tokens, sigma 1, clipped to
//    [1, 16,384]; capacity 16,384 (the TRL / axolotl / NeMo comparison).
//  * 8,192 costs into 64 groups: per-document training FLOPs (Llama-3-8B
//    shape) of the first 8,192 of those documents.
//  * 65,536 sequence costs into 8,192 groups with equal counts: the
//    documents packed by best-fit decreasing into 16,384-token sequences,
//    each costed by the Llama-3.2-1B shape, 65,536 of them drawn at random.
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <new>
#include <vector>

#include "benchmark/benchmark.h"
#include "cost/transformer.h"
#include "flopspack/flopspack.h"
#include "pack/balance/balance.h"
#include "pack/binpack/packer.h"
#include "pack/primitives/bin_packing.h"
#include "util/random.h"

// Heap accounting for the peak-bytes counters: every allocation in this
// process goes through these.
namespace {
std::atomic<int64_t> g_live{0}, g_peak{0};
void Track(int64_t delta) {
  const int64_t now = g_live.fetch_add(delta) + delta;
  int64_t peak = g_peak.load();
  while (now > peak && !g_peak.compare_exchange_weak(peak, now)) {
  }
}
}  // namespace

void* operator new(size_t size) {
  void* p = std::malloc(size + 16);
  if (p == nullptr) throw std::bad_alloc();
  *static_cast<size_t*>(p) = size;
  Track(static_cast<int64_t>(size));
  return static_cast<char*>(p) + 16;
}
void operator delete(void* p) noexcept {
  if (p == nullptr) return;
  char* base = static_cast<char*>(p) - 16;
  Track(-static_cast<int64_t>(*reinterpret_cast<size_t*>(base)));
  std::free(base);
}
void operator delete(void* p, size_t) noexcept { operator delete(p); }

namespace {

using flopspack::pack::BalanceOptions;
using flopspack::pack::BinAssignment;

constexpr int64_t kCapacity = 16384;

std::vector<int64_t> LognormalLengths(size_t n, uint64_t seed) {
  flopspack::util::Rng rng(seed);
  std::vector<int64_t> lengths(n);
  for (int64_t& l : lengths) {
    const double u1 = 1 - rng.Uniform(), u2 = rng.Uniform();
    const double z = std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
    l = std::min<int64_t>(kCapacity, std::max<int64_t>(1, std::llround(1500 * std::exp(z))));
  }
  return lengths;
}

const std::vector<int64_t>& Documents() {
  static const std::vector<int64_t> lengths = LognormalLengths(1'000'000, 1);
  return lengths;
}

int64_t BinLowerBound() {
  int64_t total = 0;
  for (int64_t l : Documents()) total += l;
  return (total + kCapacity - 1) / kCapacity;
}

// Runs fn once more outside the timing loop to measure its peak heap use.
template <typename Fn>
double PeakBytes(Fn&& fn) {
  const int64_t before = g_live.load();
  g_peak.store(before);
  fn();
  return static_cast<double>(g_peak.load() - before);
}

void ReportBins(benchmark::State& state, int32_t bins, double peak) {
  const int64_t bound = BinLowerBound();
  state.counters["bins"] = bins;
  state.counters["bins_lower_bound"] = static_cast<double>(bound);
  state.counters["excess_bins_pct"] = 100.0 * (static_cast<double>(bins) / bound - 1);
  state.counters["peak_bytes_per_item"] = peak / static_cast<double>(Documents().size());
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(Documents().size()));
}

template <BinAssignment (*Algorithm)(absl::Span<const int64_t>, int64_t, bool)>
void BM_BinPacking(benchmark::State& state) {
  int32_t bins = 0;
  for (auto _ : state) {
    BinAssignment a = Algorithm(Documents(), kCapacity, true);
    bins = a.num_bins;
    benchmark::DoNotOptimize(a.bin.data());
  }
  ReportBins(state, bins, PeakBytes([] { Algorithm(Documents(), kCapacity, true); }));
}
BENCHMARK_TEMPLATE(BM_BinPacking, flopspack::pack::FirstFitDecreasing)
    ->Name("FirstFitDecreasing/1M")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_BinPacking, flopspack::pack::BestFitDecreasing)
    ->Name("BestFitDecreasing/1M")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_BinPacking, flopspack::pack::NextFit)
    ->Name("NextFit/1M")
    ->Unit(benchmark::kMillisecond);

void BM_ShuffledFirstFit(benchmark::State& state) {
  int32_t bins = 0;
  for (auto _ : state) {
    BinAssignment a = flopspack::pack::ShuffledFirstFit(Documents(), kCapacity, 1);
    bins = a.num_bins;
    benchmark::DoNotOptimize(a.bin.data());
  }
  ReportBins(state, bins,
             PeakBytes([] { flopspack::pack::ShuffledFirstFit(Documents(), kCapacity, 1); }));
}
BENCHMARK(BM_ShuffledFirstFit)->Name("ShuffledFirstFit/1M")->Unit(benchmark::kMillisecond);

// The whole C call: validation, packing, and the plan with its metrics.
void BM_CapiPack(benchmark::State& state) {
  flopspack_pack_options o;
  flopspack_pack_options_init(&o);
  o.capacity = kCapacity;
  o.algorithm = static_cast<int32_t>(state.range(0));
  size_t bins = 0;
  auto run = [&] {
    flopspack_plan* plan = nullptr;
    flopspack_pack(&o, Documents().data(), Documents().size(), &plan);
    bins = flopspack_plan_group_count(plan);
    flopspack_plan_destroy(plan);
  };
  for (auto _ : state) run();
  ReportBins(state, static_cast<int32_t>(bins), PeakBytes(run));
}
BENCHMARK(BM_CapiPack)
    ->Name("flopspack_pack/1M")
    ->Arg(FLOPSPACK_PACK_BEST_FIT_DECREASING)
    ->Arg(FLOPSPACK_PACK_FIRST_FIT_DECREASING)
    ->Unit(benchmark::kMillisecond);

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

flopspack::cost::TransformerShape Llama32_1B() {
  flopspack::cost::TransformerShape s;
  s.num_layers = 16;
  s.hidden_size = 2048;
  s.num_attention_heads = 32;
  s.num_key_value_heads = 8;
  s.intermediate_size = 8192;
  s.vocab_size = 128256;
  s.gated_mlp = true;
  return s;
}

const std::vector<double>& DocumentCosts8192() {
  static const std::vector<double> costs = [] {
    auto model = *flopspack::cost::TransformerModel::Create(Llama3_8B());
    std::vector<double> out;
    for (size_t i = 0; i < 8192; ++i) out.push_back(model->Document(Documents()[i]));
    return out;
  }();
  return costs;
}

// The instance: 65,536 samples, each its own sequence, costed by the
// Llama-3.2-1B shape; the largest plus the seven cheapest sit a few percent
// above total / k, so equal counts have a real floor.
const std::vector<double>& SampleCosts65536() {
  static const std::vector<double> costs = [] {
    auto model = *flopspack::cost::TransformerModel::Create(Llama32_1B());
    std::vector<double> out;
    for (size_t i = 0; i < 65536; ++i) out.push_back(model->Document(Documents()[i]));
    return out;
  }();
  return costs;
}

const std::vector<double>& SequenceCosts65536() {
  static const std::vector<double> costs = [] {
    auto model = *flopspack::cost::TransformerModel::Create(Llama32_1B());
    flopspack::pack::PackOptions o;
    o.capacity = kCapacity;
    o.cost_model = model.get();
    const flopspack::pack::Plan plan = *flopspack::pack::Pack(Documents(), o);
    std::vector<double> all(plan.group_costs().begin(), plan.group_costs().end());
    flopspack::util::Rng(7).Shuffle(absl::MakeSpan(all));
    all.resize(65536);
    return all;
  }();
  return costs;
}

void ReportBalance(benchmark::State& state, const flopspack::pack::Plan& plan,
                   const std::vector<double>& costs, int64_t k, double peak) {
  const flopspack::pack::PlanMetrics& m = plan.metrics();
  double total = 0;
  for (double c : costs) total += c;
  state.counters["gap_to_lower_bound"] = m.gap_to_lower_bound;
  state.counters["pct_above_mean"] = 100.0 * (m.max_group_cost / (total / k) - 1);
  state.counters["floor_pct_above_mean"] = 100.0 * (m.lower_bound / (total / k) - 1);
  state.counters["peak_bytes_per_item"] = peak / static_cast<double>(costs.size());
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(costs.size()));
}

void RunBalance(benchmark::State& state, const std::vector<double>& costs,
                const BalanceOptions& options) {
  for (auto _ : state) {
    auto plan = flopspack::pack::Balance(costs, {}, options);
    benchmark::DoNotOptimize(plan);
  }
  const flopspack::pack::Plan plan = *flopspack::pack::Balance(costs, {}, options);
  ReportBalance(state, plan, costs, options.num_groups, PeakBytes([&] {
                  benchmark::DoNotOptimize(flopspack::pack::Balance(costs, {}, options));
                }));
}

// 8,192 document costs into 64 groups. Args: algorithm, refine.
void BM_Balance8192x64(benchmark::State& state) {
  BalanceOptions options;
  options.num_groups = 64;
  options.algorithm = static_cast<flopspack::pack::BalanceAlgorithm>(state.range(0));
  options.refine = state.range(1) != 0;
  RunBalance(state, DocumentCosts8192(), options);
}
BENCHMARK(BM_Balance8192x64)
    ->Name("Balance/8192x64")
    ->ArgNames({"algorithm", "refine"})
    ->Args({FLOPSPACK_BALANCE_KARMARKAR_KARP, 0})
    ->Args({FLOPSPACK_BALANCE_KARMARKAR_KARP, 1})
    ->Args({FLOPSPACK_BALANCE_LPT, 0})
    ->Args({FLOPSPACK_BALANCE_LPT, 1})
    ->Args({FLOPSPACK_BALANCE_AUTO, 1})
    ->Unit(benchmark::kMillisecond);

// 65,536 costs into 8,192 groups of 8 (equal counts). Args: input (0 =
// samples, 1 = packed sequences), algorithm, refine.
void BM_Balance65536x8192(benchmark::State& state) {
  BalanceOptions options;
  options.num_groups = 8192;
  options.equal_count = true;
  options.algorithm = static_cast<flopspack::pack::BalanceAlgorithm>(state.range(1));
  options.refine = state.range(2) != 0;
  RunBalance(state, state.range(0) == 0 ? SampleCosts65536() : SequenceCosts65536(), options);
}
BENCHMARK(BM_Balance65536x8192)
    ->Name("Balance/65536x8192/equal_count")
    ->ArgNames({"packed", "algorithm", "refine"})
    ->ArgsProduct({{0, 1}, {FLOPSPACK_BALANCE_LPT, FLOPSPACK_BALANCE_KARMARKAR_KARP}, {0, 1}})
    ->Args({0, FLOPSPACK_BALANCE_AUTO, 1})
    ->Args({1, FLOPSPACK_BALANCE_AUTO, 1})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
