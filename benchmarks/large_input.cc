// Large inputs through the C ABI: `large_input <entry> <n>` runs one entry
// point on n document lengths (uniform in [1, 8192], a fixed seed) and
// prints the wall time, the peak resident memory of the process
// (getrusage) and bytes per document, and checks that nothing is lost (the
// token sum of the result equals the input's). Entry points: pack, step
// (plan_step, 65,536 ranks), buckets (64 optimal bounds), sampler (one
// epoch), stats, all. docs/fuzzing.md lists the figures for n = 10^8;
// `/usr/bin/time -v build/benchmarks/large_input pack 100000000` agrees.
#include <sys/resource.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "flopspack/flopspack.h"

namespace {

double PeakMiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is KiB on Linux
}

[[noreturn]] void Fail(const char* what, flopspack_status s) {
  std::fprintf(stderr, "%s failed: %s: %s\n", what, flopspack_status_string(s),
               flopspack_last_error_message());
  std::exit(1);
}

int64_t RealTokens(const flopspack_plan* plan) {
  struct flopspack_plan_metrics m;
  std::memset(&m, 0, sizeof(m));
  m.struct_size = sizeof(m);
  if (flopspack_status s = flopspack_plan_metrics(plan, &m)) Fail("metrics", s);
  return m.real_tokens + m.truncated_tokens + m.deferred_tokens + m.dropped_tokens;
}

int64_t Run(const std::string& entry, const std::vector<int64_t>& lengths) {
  flopspack_cost_model* model = nullptr;
  flopspack_cost_model_polynomial(0, 1, 1, 1e-4, &model);
  int64_t tokens = 0;
  if (entry == "pack") {
    flopspack_pack_options o;
    flopspack_pack_options_init(&o);
    o.capacity = 8192;
    flopspack_plan* plan = nullptr;
    if (flopspack_status s = flopspack_pack(&o, lengths.data(), lengths.size(), &plan)) {
      Fail("pack", s);
    }
    tokens = RealTokens(plan);
    flopspack_plan_destroy(plan);
  } else if (entry == "step") {
    flopspack_step_options o;
    flopspack_step_options_init(&o);
    o.num_ranks = 65536;
    o.max_tokens_per_microbatch = 16384;
    flopspack_plan* plan = nullptr;
    if (flopspack_status s =
            flopspack_plan_step(&o, model, lengths.data(), lengths.size(), &plan)) {
      Fail("plan_step", s);
    }
    tokens = RealTokens(plan);
    flopspack_plan_destroy(plan);
  } else if (entry == "buckets") {
    std::vector<int64_t> bounds(64);
    int64_t padding = 0;
    if (flopspack_status s = flopspack_buckets_optimize(lengths.data(), lengths.size(),
                                                        bounds.size(), bounds.data())) {
      Fail("buckets_optimize", s);
    }
    if (flopspack_status s = flopspack_buckets_padding(lengths.data(), lengths.size(),
                                                       bounds.data(), bounds.size(), &padding)) {
      Fail("buckets_padding", s);
    }
    for (int64_t l : lengths) tokens += l;  // nothing to lose: bounds only
  } else if (entry == "sampler") {
    flopspack_bucket_sampler_options o;
    flopspack_bucket_sampler_options_init(&o);
    o.max_padded_tokens = 65536;
    o.num_ranks = 1024;
    flopspack_bucket_sampler* sampler = nullptr;
    if (flopspack_status s = flopspack_bucket_sampler_create(&o, nullptr, lengths.data(),
                                                             lengths.size(), &sampler)) {
      Fail("bucket_sampler_create", s);
    }
    flopspack_plan* plan = nullptr;
    if (flopspack_status s = flopspack_bucket_sampler_epoch(sampler, 0, &plan)) Fail("epoch", s);
    tokens = RealTokens(plan);
    flopspack_plan_destroy(plan);
    flopspack_bucket_sampler_destroy(sampler);
  } else if (entry == "stats") {
    flopspack_stats* stats = nullptr;
    if (flopspack_status s =
            flopspack_stats_create(lengths.data(), lengths.size(), model, &stats)) {
      Fail("stats_create", s);
    }
    flopspack_stats_summary summary;
    std::memset(&summary, 0, sizeof(summary));
    summary.struct_size = sizeof(summary);
    flopspack_stats_summarize(stats, &summary);
    tokens = summary.tokens;
    flopspack_stats_destroy(stats);
  } else {
    std::fprintf(stderr, "unknown entry point %s\n", entry.c_str());
    std::exit(2);
  }
  flopspack_cost_model_destroy(model);
  return tokens;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s pack|step|buckets|sampler|stats N\n", argv[0]);
    return 2;
  }
  const std::string entry = argv[1];
  const size_t n = std::strtoull(argv[2], nullptr, 10);
  std::vector<int64_t> lengths(n);
  std::mt19937_64 rng(42);
  int64_t total = 0;
  for (int64_t& l : lengths) {
    l = 1 + static_cast<int64_t>(rng() % 8192);
    total += l;
  }
  const double input_mib = PeakMiB();
  const auto start = std::chrono::steady_clock::now();
  const int64_t tokens = Run(entry, lengths);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double peak = PeakMiB();
  std::printf(
      "%s n=%zu: %.1f s, peak RSS %.0f MiB (input %.0f MiB), %.1f bytes/document beyond "
      "the input, tokens %s\n",
      entry.c_str(), n, seconds, peak, input_mib,
      (peak - input_mib) * 1048576.0 / static_cast<double>(n),
      tokens == total ? "preserved" : "LOST");
  return tokens == total ? 0 : 1;
}
