#include "resample.h"

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>

namespace flopspack::cli {
namespace {

uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::atomic<bool> interrupted{false};
std::atomic<int64_t> interrupt_after{-1};

extern "C" void OnSigint(int) { interrupted.store(true); }

}  // namespace

namespace {
template <typename T>
std::vector<T> DrawValuesWithReplacement(const std::vector<T>& values, uint64_t count,
                                         uint64_t seed) {
  std::vector<T> out;
  out.reserve(count);
  uint64_t state = seed ^ 0x5EED0F5A3F1E5ULL;
  const uint64_t n = values.size();
  for (uint64_t i = 0; i < count; ++i) {
    // Modulo of a 64-bit draw: the bias is below n / 2^64, far under any
    // figure the emulator prints.
    out.push_back(values[SplitMix64(state) % n]);
  }
  return out;
}
}  // namespace

std::vector<int64_t> DrawWithReplacement(const std::vector<int64_t>& lengths, uint64_t count,
                                         uint64_t seed) {
  return DrawValuesWithReplacement(lengths, count, seed);
}

std::vector<double> DrawWithReplacement(const std::vector<double>& values, uint64_t count,
                                        uint64_t seed) {
  return DrawValuesWithReplacement(values, count, seed);
}

uint64_t DocumentsForTokens(double step_tokens, uint64_t documents, int64_t total_tokens) {
  const double need = std::ceil(step_tokens * double(documents) / double(total_tokens));
  return need >= 0x1p63 ? (uint64_t{1} << 63) : static_cast<uint64_t>(need);
}

uint64_t PoolSize(uint64_t needed, uint64_t documents) {
  return std::max<uint64_t>(2 * needed, documents);
}

void InstallInterruptHandler() {
  struct sigaction action = {};
  action.sa_handler = OnSigint;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;  // a second Ctrl-C ends the process
  sigaction(SIGINT, &action, nullptr);
  if (const char* after = std::getenv("FLOPSPACK_CLI_INTERRUPT_AFTER")) {
    interrupt_after.store(std::atoll(after));
  }
}

bool Interrupted() { return interrupted.load(); }

void InterruptAfter(int64_t calls) { interrupt_after.store(calls); }

bool ShouldStop() {
  if (interrupt_after.load() >= 0 && interrupt_after.fetch_sub(1) == 0) interrupted.store(true);
  return interrupted.load();
}

}  // namespace flopspack::cli
