// Speed against the machine's own yardstick: each whole C call of issue 19's
// targets, timed beside a glibc qsort of the same lengths in the same
// process, so the ratio does not depend on the machine or its load.
//
//   flopspack_pack, 1M lognormal documents (cap 16,384)    target <= 0.6 x qsort
//   flopspack_plan_step, 8,192 x 4 (~204K documents)        target <= 1.2 x qsort
//   flopspack_plan_step, 65,536 x 4 (~1.6M documents)       target <= 1.5 x qsort
//   the first call in a fresh process                       target <= 1.5 x a warm one
//   flopspack_plan_step_in_context, the same steps in a step context sized by
//   flopspack_step_context_reserve: its first call against its warm ones
//
// Each iteration times one qsort (of a fresh copy) and one call in the
// thread's CPU time (user + system, so page faults count; time the thread
// waits for a core on a shared machine does not); the counters report the
// minima over iterations (the least disturbed runs) and their ratio, the
// first call of the process (timed in main before any benchmark warms the
// allocator) over a warm one, the peak heap bytes per document of one call,
// and the page faults of one warm call.
//   build/dev/benchmarks/speed_limit --benchmark_min_time=1 [--first_call=plan_step]
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <new>
#include <vector>

#include "benchmark/benchmark.h"
#include "flopspack/flopspack.h"
#include "planner_data.h"
#include "util/random.h"

// Heap accounting: every allocation in this process goes through these.
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

constexpr int64_t kCap = 16384;
double ThreadSeconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

double Seconds(const std::function<void()>& fn) {
  const double start = ThreadSeconds();
  fn();
  return ThreadSeconds() - start;
}

long MinorFaults() {
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

int CompareInt64(const void* a, const void* b) {
  const int64_t x = *static_cast<const int64_t*>(a), y = *static_cast<const int64_t*>(b);
  return (x > y) - (x < y);
}

double QsortSeconds(const std::vector<int64_t>& lengths, std::vector<int64_t>& scratch) {
  scratch = lengths;
  return Seconds(
      [&] { std::qsort(scratch.data(), scratch.size(), sizeof(int64_t), CompareInt64); });
}

// 1M lognormal documents, median 1,500, sigma 1, clipped to [1, 16,384]:
// pack_benchmark's input.
const std::vector<int64_t>& PackDocuments() {
  static const std::vector<int64_t> lengths = [] {
    flopspack::util::Rng rng(1);
    std::vector<int64_t> out(1'000'000);
    for (int64_t& l : out) {
      const double u1 = 1 - rng.Uniform(), u2 = rng.Uniform();
      const double z = std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
      l = std::min<int64_t>(kCap, std::max<int64_t>(1, std::llround(1500 * std::exp(z))));
    }
    return out;
  }();
  return lengths;
}

const std::vector<int64_t>& StepDocuments(int64_t ranks) {
  static std::vector<int64_t> small = flopspack::bench::LongTailBatch(8192, 4, kCap, 0.97, 1);
  static std::vector<int64_t> large;
  if (ranks == 8192) return small;
  if (large.empty()) large = flopspack::bench::LongTailBatch(65536, 4, kCap, 0.97, 1);
  return large;
}

flopspack_cost_model* SevenB() {
  static flopspack_cost_model* model = [] {
    flopspack_transformer_config c;
    flopspack_transformer_config_init(&c);
    c.num_layers = 32;
    c.hidden_size = 4096;
    c.num_attention_heads = 32;
    c.num_key_value_heads = 32;
    c.intermediate_size = 11008;
    c.vocab_size = 32000;
    c.gated_mlp = 1;
    flopspack_cost_model* m = nullptr;
    flopspack_cost_model_transformer(&c, &m);
    return m;
  }();
  return model;
}

bool Pack(const std::vector<int64_t>& lengths) {
  flopspack_pack_options o;
  flopspack_pack_options_init(&o);
  o.capacity = kCap;
  flopspack_plan* plan = nullptr;
  const bool ok = flopspack_pack(&o, lengths.data(), lengths.size(), &plan) == FLOPSPACK_OK;
  flopspack_plan_destroy(plan);
  return ok;
}

flopspack_step_options StepOptions(int64_t ranks) {
  flopspack_step_options o;
  flopspack_step_options_init(&o);
  o.num_ranks = static_cast<uint32_t>(ranks);
  o.microbatches_per_rank = 4;
  o.max_tokens_per_microbatch = kCap;
  o.overflow = FLOPSPACK_OVERFLOW_DEFER;
  return o;
}

bool PlanStep(const std::vector<int64_t>& lengths, int64_t ranks) {
  const flopspack_step_options o = StepOptions(ranks);
  flopspack_plan* plan = nullptr;
  const bool ok =
      flopspack_plan_step(&o, SevenB(), lengths.data(), lengths.size(), &plan) == FLOPSPACK_OK;
  flopspack_plan_destroy(plan);
  return ok;
}

// The same call in a step context (one per rank count, sized in main() or
// on first use by flopspack_step_context_reserve for the step's documents).
flopspack_step_context* Context(int64_t ranks) {
  static flopspack_step_context* small = nullptr;
  static flopspack_step_context* large = nullptr;
  flopspack_step_context*& context = ranks == 8192 ? small : large;
  if (context == nullptr) {
    flopspack_step_context_create(&context);
    const flopspack_step_options o = StepOptions(ranks);
    flopspack_step_context_reserve(context, &o, SevenB(), StepDocuments(ranks).size());
  }
  return context;
}

bool PlanStepInContext(const std::vector<int64_t>& lengths, int64_t ranks) {
  const flopspack_step_options o = StepOptions(ranks);
  flopspack_plan* plan = nullptr;
  const bool ok = flopspack_plan_step_in_context(Context(ranks), &o, SevenB(), lengths.data(),
                                                 lengths.size(), &plan) == FLOPSPACK_OK;
  flopspack_plan_destroy(plan);
  return ok;
}

// Timed in main() before any benchmark: the first call of the process.
double g_first_pack = 0, g_first_step = 0, g_first_context = 0, g_reserve = 0;
long g_first_pack_faults = 0, g_first_step_faults = 0, g_first_context_faults = 0;

void Report(benchmark::State& state, const std::vector<int64_t>& lengths, double best_call,
            double best_qsort, double first, const std::function<bool()>& call) {
  state.counters["call_ms"] = best_call * 1e3;
  state.counters["qsort_ms"] = best_qsort * 1e3;
  state.counters["ratio_to_qsort"] = best_call / best_qsort;
  if (first > 0) {
    state.counters["first_over_warm"] = first / best_call;
    state.counters["first_call_ms"] = first * 1e3;
    state.counters["first_call_faults"] =
        static_cast<double>(first == g_first_pack   ? g_first_pack_faults
                            : first == g_first_step ? g_first_step_faults
                                                    : g_first_context_faults);
  }
  const int64_t before = g_live.load();
  g_peak.store(before);
  const long faults = MinorFaults();
  call();
  state.counters["faults_per_call"] = static_cast<double>(MinorFaults() - faults);
  state.counters["peak_bytes_per_doc"] =
      static_cast<double>(g_peak.load() - before) / static_cast<double>(lengths.size());
  state.counters["documents"] = static_cast<double>(lengths.size());
}

void Run(benchmark::State& state, const std::vector<int64_t>& lengths, double first,
         const std::function<bool()>& call) {
  std::vector<int64_t> scratch;
  double best_call = 1e300, best_qsort = 1e300;
  for (auto _ : state) {
    best_qsort = std::min(best_qsort, QsortSeconds(lengths, scratch));
    bool ok = true;
    const double t = Seconds([&] { ok = call(); });
    if (!ok) {
      state.SkipWithError(flopspack_last_error_message());
      return;
    }
    best_call = std::min(best_call, t);
    state.SetIterationTime(t);
  }
  Report(state, lengths, best_call, best_qsort, first, call);
}

void BM_PackVsQsort(benchmark::State& state) {
  const std::vector<int64_t>& lengths = PackDocuments();
  Run(state, lengths, g_first_pack, [&] { return Pack(lengths); });
}
BENCHMARK(BM_PackVsQsort)
    ->Name("flopspack_pack/1M")
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

void BM_PlanStepVsQsort(benchmark::State& state) {
  const int64_t ranks = state.range(0);
  const std::vector<int64_t>& lengths = StepDocuments(ranks);
  Run(state, lengths, ranks == 8192 ? g_first_step : 0, [&] { return PlanStep(lengths, ranks); });
}
BENCHMARK(BM_PlanStepVsQsort)
    ->Name("flopspack_plan_step")
    ->Arg(8192)
    ->Arg(65536)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// flopspack_plan_step_in_context: the first call is the first in a context
// sized by flopspack_step_context_reserve (reserve_ms), after the plain
// first call above.
void BM_PlanStepInContextVsQsort(benchmark::State& state) {
  const int64_t ranks = state.range(0);
  const std::vector<int64_t>& lengths = StepDocuments(ranks);
  Run(state, lengths, ranks == 8192 ? g_first_context : 0,
      [&] { return PlanStepInContext(lengths, ranks); });
  if (ranks == 8192) state.counters["reserve_ms"] = g_reserve * 1e3;
  state.counters["kept_bytes_per_doc"] =
      static_cast<double>(flopspack_step_context_kept_bytes(Context(ranks))) /
      static_cast<double>(lengths.size());
}
BENCHMARK(BM_PlanStepInContextVsQsort)
    ->Name("flopspack_plan_step_in_context")
    ->Arg(8192)
    ->Arg(65536)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// Removes `flag` from argv (before Google Benchmark reads it); whether it
// was there.
bool TakeFlag(int& argc, char** argv, const char* flag) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], flag) == 0) {
      for (int j = i; j + 1 < argc; ++j) argv[j] = argv[j + 1];
      --argc;
      return true;
    }
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  // Inputs first (their allocation is not the call's), then one call each.
  const std::vector<int64_t>& docs = PackDocuments();
  const std::vector<int64_t>& step = StepDocuments(8192);
  SevenB();
  // --first_call=plan_step: the plain plan_step call is the process's first
  // call and flopspack_pack's follows it; by default (pack) the other way
  // round. What the first of them pays depends on what the allocator did
  // before: once flopspack_pack has freed its 30 MB, glibc's mmap threshold
  // has risen and the step's buffers come from the heap, not from mappings
  // of their own (docs/algorithms.md, issue 19, sixth pass).
  const bool step_first = TakeFlag(argc, argv, "--first_call=plan_step");
  const auto first_pack = [&] {
    const long faults = MinorFaults();
    g_first_pack = Seconds([&] { Pack(docs); });
    g_first_pack_faults = MinorFaults() - faults;
  };
  const auto first_step = [&] {
    const long faults = MinorFaults();
    g_first_step = Seconds([&] { PlanStep(step, 8192); });
    g_first_step_faults = MinorFaults() - faults;
  };
  if (step_first) {
    first_step();
    first_pack();
  } else {
    first_pack();
    first_step();
  }
  g_reserve = Seconds([&] { Context(8192); });
  const long faults = MinorFaults();
  g_first_context = Seconds([&] { PlanStepInContext(step, 8192); });
  g_first_context_faults = MinorFaults() - faults;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
