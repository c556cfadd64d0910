// Limits: sizes that cannot be allocated give FLOPSPACK_OUT_OF_MEMORY (never
// a crash), size products are checked before anything is allocated, and a
// large input (10^6 lengths here; 10^8 with benchmarks/large_input.cc, see
// docs/fuzzing.md for its peak memory) goes through every entry point with
// nothing lost. Allocation failures are provoked two ways: a request no
// machine can satisfy, and a child process whose address space is capped
// with RLIMIT_AS. Both run in the normal builds only: a sanitizer's operator
// new reports an impossible allocation and aborts instead of throwing
// std::bad_alloc (whatever allocator_may_return_null says), and sanitizers
// reserve terabytes of shadow address space, which RLIMIT_AS would cap.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <vector>

#include "capi_test_util.h"
#include "plan_reader.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define FLOPSPACK_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define FLOPSPACK_TEST_SANITIZED 1
#endif
#endif

namespace {

using flopspack_test::Place;
using flopspack_test::Placement;
using flopspack_test::Random;
using flopspack_test::ReadBack;
using flopspack_test::ReadPlan;

// 2^44 bucket bounds are 128 TiB: no allocator can provide them. The
// caller's buffer is small (the library fails before writing) and must stay
// untouched.
TEST(LimitsTest, UnallocatableBucketCountIsOutOfMemory) {
#ifdef FLOPSPACK_TEST_SANITIZED
  GTEST_SKIP() << "a sanitizer's operator new aborts instead of throwing std::bad_alloc";
#endif
  const int64_t lengths[] = {5, 9, 2};
  int64_t bounds[4] = {-1, -1, -1, -1};
  EXPECT_FLOPSPACK_ERROR(flopspack_buckets_optimize(lengths, 3, size_t{1} << 44, bounds),
                         FLOPSPACK_OUT_OF_MEMORY, "");
  for (int64_t b : bounds) EXPECT_EQ(b, -1);
}

#ifndef FLOPSPACK_TEST_SANITIZED
// Bytes of address space the process maps now (/proc/self/statm).
rlim_t AddressSpaceInUse() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  unsigned long pages = 0;
  if (f != nullptr) {
    if (std::fscanf(f, "%lu", &pages) != 1) pages = 0;
    std::fclose(f);
  }
  return static_cast<rlim_t>(pages) * static_cast<rlim_t>(sysconf(_SC_PAGESIZE));
}

// Runs `body` in a child process whose address space is limited to
// `limit_bytes`; returns the status the child reports (or -1).
int InLimitedChild(rlim_t limit_bytes, flopspack_status (*body)()) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (limit_bytes != RLIM_INFINITY) {
      rlimit limit{limit_bytes, limit_bytes};
      if (setrlimit(RLIMIT_AS, &limit) != 0) _exit(100);
    }
    _exit(static_cast<int>(body()));
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}
#endif  // FLOPSPACK_TEST_SANITIZED

TEST(LimitsTest, AllocationFailureUnderRlimitIsOutOfMemory) {
#ifdef FLOPSPACK_TEST_SANITIZED
  GTEST_SKIP() << "RLIMIT_AS cannot be combined with a sanitizer's shadow memory";
#else
  // 2^31 - 1 balanced groups need tens of GiB of plan; with 512 MiB of
  // address space the allocation fails inside the library.
  EXPECT_EQ(InLimitedChild(rlim_t{512} << 20,
                           [] {
                             flopspack_balance_options o;
                             flopspack_balance_options_init(&o);
                             o.num_groups = std::numeric_limits<int32_t>::max();
                             const double costs[] = {1, 2, 3};
                             flopspack_plan* plan = nullptr;
                             const flopspack_status s =
                                 flopspack_balance(&o, costs, nullptr, 3, &plan);
                             return plan == nullptr ? s : FLOPSPACK_INTERNAL;
                           }),
            FLOPSPACK_OUT_OF_MEMORY);
  // A step of 2^24 ranks (the most it takes): the same through the step
  // planner.
  EXPECT_EQ(InLimitedChild(rlim_t{512} << 20,
                           [] {
                             flopspack_cost_model* model = nullptr;
                             flopspack_cost_model_tokens(&model);
                             flopspack_step_options o;
                             flopspack_step_options_init(&o);
                             o.num_ranks = 1u << 24;
                             o.microbatches_per_rank = 1;
                             o.max_tokens_per_microbatch = 4;
                             const int64_t lengths[] = {1, 2, 3};
                             flopspack_plan* plan = nullptr;
                             const flopspack_status s =
                                 flopspack_plan_step(&o, model, lengths, 3, &plan);
                             return plan == nullptr ? s : FLOPSPACK_INTERNAL;
                           }),
            FLOPSPACK_OUT_OF_MEMORY);
  // 10^7 lengths (80 MB, allocated before the limit) packed with only
  // 32 MiB of address space to spare: the packer's own arrays do not fit.
  EXPECT_EQ(InLimitedChild(RLIM_INFINITY,
                           [] {
                             std::vector<int64_t> lengths(10'000'000, 100);
                             const rlim_t spare = rlim_t{32} << 20;
                             rlimit limit{AddressSpaceInUse() + spare, AddressSpaceInUse() + spare};
                             if (setrlimit(RLIMIT_AS, &limit) != 0) return FLOPSPACK_INTERNAL;
                             flopspack_pack_options o;
                             flopspack_pack_options_init(&o);
                             o.capacity = 4096;
                             flopspack_plan* plan = nullptr;
                             const flopspack_status s =
                                 flopspack_pack(&o, lengths.data(), lengths.size(), &plan);
                             return plan == nullptr ? s : FLOPSPACK_INTERNAL;
                           }),
            FLOPSPACK_OUT_OF_MEMORY);
#endif
}

// Products of sizes are checked before allocation: each of these would be
// a multi-terabyte request (or a wrapped-around small one) if multiplied
// unchecked.
TEST(LimitsTest, SizeProductsAreChecked) {
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_tokens(&model), FLOPSPACK_OK);
  const int64_t lengths[] = {1, 2, 3};
  flopspack_plan* plan = nullptr;
  flopspack_step_options s;
  flopspack_step_options_init(&s);
  s.num_ranks = 1u << 20;
  s.microbatches_per_rank = 1u << 12;  // 2^32 microbatches
  s.max_tokens_per_microbatch = 16;
  EXPECT_FLOPSPACK_ERROR(flopspack_plan_step(&s, model, lengths, 3, &plan), FLOPSPACK_OUT_OF_RANGE,
                         "num_ranks x microbatches_per_rank");
  s.num_ranks = 1u << 12;
  s.microbatches_per_rank = 1u << 12;  // 2^24 microbatches x 2^40 tokens
  s.max_tokens_per_microbatch = int64_t{1} << 40;
  EXPECT_FLOPSPACK_ERROR(flopspack_plan_step(&s, model, lengths, 3, &plan), FLOPSPACK_OUT_OF_RANGE,
                         "max_tokens_per_microbatch");
  // A stateful planner with the same shape is refused at creation.
  flopspack_step_planner* planner = nullptr;
  EXPECT_FLOPSPACK_ERROR(flopspack_step_planner_create(&s, nullptr, model, &planner),
                         FLOPSPACK_OUT_OF_RANGE, "overflows");
  EXPECT_EQ(planner, nullptr);
  // n x longest length in the bucket padding totals.
  const int64_t huge[] = {int64_t{1} << 62, 1, 1, 1};
  int64_t bounds[2] = {0, 0};
  EXPECT_FLOPSPACK_ERROR(flopspack_buckets_optimize(huge, 4, 2, bounds), FLOPSPACK_OUT_OF_RANGE,
                         "4 samples x longest length");
  // ranks x accumulation steps of the sampler: each is capped at 2^31 - 1,
  // so their product fits in int64.
  flopspack_bucket_sampler_options b;
  flopspack_bucket_sampler_options_init(&b);
  b.max_padded_tokens = 100;
  b.accumulation_steps = uint64_t{1} << 40;
  flopspack_bucket_sampler* sampler = nullptr;
  EXPECT_FLOPSPACK_ERROR(flopspack_bucket_sampler_create(&b, nullptr, lengths, 3, &sampler),
                         FLOPSPACK_OUT_OF_RANGE, "accumulation_steps");
  // Split pieces are counted before any is made (this used to allocate
  // 2^31 pieces before failing).
  flopspack_pack_options p;
  flopspack_pack_options_init(&p);
  p.capacity = 1;
  p.overflow = FLOPSPACK_OVERFLOW_SPLIT;
  const int64_t long_doc[] = {int64_t{1} << 40};
  EXPECT_FLOPSPACK_ERROR(flopspack_pack(&p, long_doc, 1, &plan), FLOPSPACK_OUT_OF_RANGE,
                         "more than 2^31 - 1 pieces");
  EXPECT_EQ(plan, nullptr);
  flopspack_cost_model_destroy(model);
}

// A million lengths through every entry point: nothing lost, sums exact.
TEST(LimitsTest, MillionLengthsThroughEveryEntryPoint) {
#ifdef FLOPSPACK_TEST_SANITIZED
  const size_t n = 200'000;  // sanitizers run ~10x slower
#else
  const size_t n = 1'000'000;
#endif
  Random rng(11);
  std::vector<int64_t> lengths = rng.Lengths(n, 8192);
  const int64_t total = std::accumulate(lengths.begin(), lengths.end(), int64_t{0});
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_polynomial(0, 1, 1, 1e-4, &model), FLOPSPACK_OK);

  flopspack_pack_options p;
  flopspack_pack_options_init(&p);
  p.capacity = 4096;
  p.overflow = FLOPSPACK_OVERFLOW_SPLIT;
  flopspack_plan* plan = nullptr;
  ASSERT_EQ(flopspack_pack(&p, lengths.data(), n, &plan), FLOPSPACK_OK);
  struct flopspack_plan_metrics m;
  m.struct_size = sizeof(m);
  ASSERT_EQ(flopspack_plan_metrics(plan, &m), FLOPSPACK_OK);
  EXPECT_EQ(m.real_tokens, total);
  EXPECT_EQ(m.num_items, n);
  flopspack_plan_destroy(plan);

  flopspack_step_options s;
  flopspack_step_options_init(&s);
  s.num_ranks = 1024;
  s.max_tokens_per_microbatch = 16384;
  ASSERT_EQ(flopspack_plan_step(&s, model, lengths.data(), n, &plan), FLOPSPACK_OK);
  const ReadPlan r = ReadBack(plan);
  const Placement placed = Place(r, n);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(placed.tokens[i], lengths[i]) << i;
  EXPECT_EQ(r.metrics.real_tokens, total);
  flopspack_plan_destroy(plan);

  std::vector<int64_t> bounds(64);
  ASSERT_EQ(flopspack_buckets_optimize(lengths.data(), n, bounds.size(), bounds.data()),
            FLOPSPACK_OK);
  EXPECT_EQ(bounds.back(), *std::max_element(lengths.begin(), lengths.end()));

  flopspack_bucket_sampler_options b;
  flopspack_bucket_sampler_options_init(&b);
  b.max_padded_tokens = 65536;
  b.num_ranks = 64;
  b.accumulation_steps = 2;
  flopspack_bucket_sampler* sampler = nullptr;
  ASSERT_EQ(flopspack_bucket_sampler_create(&b, model, lengths.data(), n, &sampler), FLOPSPACK_OK);
  ASSERT_EQ(flopspack_bucket_sampler_epoch(sampler, 0, &plan), FLOPSPACK_OK);
  ASSERT_EQ(flopspack_plan_metrics(plan, &m), FLOPSPACK_OK);
  EXPECT_EQ(m.real_tokens, total);  // pad last: every sample once
  flopspack_plan_destroy(plan);
  flopspack_bucket_sampler_destroy(sampler);
  flopspack_cost_model_destroy(model);
}

}  // namespace
