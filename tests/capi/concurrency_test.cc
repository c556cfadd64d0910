// One shared cost model, many planners, samplers and packers in threads:
// every thread's results must equal the single-threaded reference, bit for
// bit. Run under ThreadSanitizer by scripts/test.sh (suite names contain
// "Concurrency").
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "capi_test_util.h"

namespace {

// A plan as a string of its groups' items, tokens, costs and slots: equal
// strings mean identical plans.
std::string Fingerprint(const flopspack_plan* plan) {
  std::string out;
  for (size_t g = 0; g < flopspack_plan_group_count(plan); ++g) {
    const int64_t* items = nullptr;
    const int64_t* tokens = nullptr;
    size_t n = 0;
    double cost = 0;
    flopspack_plan_group(plan, g, &items, &tokens, &n);
    flopspack_plan_group_info(plan, g, nullptr, nullptr, &cost);
    size_t rank = 0, slot = 0;
    if (flopspack_plan_group_slot(plan, g, &rank, &slot) == FLOPSPACK_OK) {
      out += std::to_string(rank) + "/" + std::to_string(slot) + ":";
    }
    for (size_t i = 0; i < n; ++i)
      out += std::to_string(items[i]) + "x" + std::to_string(tokens[i]) + ",";
    char bits[sizeof(double)];
    std::memcpy(bits, &cost, sizeof(cost));
    out.append(bits, sizeof(bits));
    out += ";";
  }
  return out;
}

std::vector<int64_t> ThreadLengths(size_t n) {
  std::vector<int64_t> lengths(n);
  uint64_t x = 12345;
  for (int64_t& l : lengths) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    l = 1 + static_cast<int64_t>((x >> 33) % 3000);
    if ((x >> 20) % 50 == 0) l = 6000 + static_cast<int64_t>((x >> 40) % 2000);
  }
  return lengths;
}

flopspack_cost_model* SharedModel() {
  flopspack_transformer_config c;
  flopspack_transformer_config_init(&c);
  c.num_layers = 32;
  c.hidden_size = 4096;
  c.num_attention_heads = 32;
  c.num_key_value_heads = 8;
  c.intermediate_size = 14336;
  c.gated_mlp = 1;
  flopspack_cost_model* model = nullptr;
  EXPECT_EQ(flopspack_cost_model_transformer(&c, &model), FLOPSPACK_OK);
  return model;
}

// Everything one worker does with the shared model.
std::string Work(const flopspack_cost_model* model, const std::vector<int64_t>& lengths) {
  std::string out;
  flopspack_step_options step;
  flopspack_step_options_init(&step);
  step.num_ranks = 16;
  step.microbatches_per_rank = 0;  // the fewest that hold the batch
  step.max_tokens_per_microbatch = 8192;
  flopspack_plan* plan = nullptr;
  if (flopspack_plan_step(&step, model, lengths.data(), lengths.size(), &plan) != FLOPSPACK_OK) {
    return std::string("plan_step failed: ") + flopspack_last_error_message();
  }
  out += Fingerprint(plan);
  flopspack_plan_destroy(plan);

  step.microbatches_per_rank = 4;  // the stateful planner takes 16 x 4 x 8192 a step
  flopspack_step_planner* planner = nullptr;
  if (flopspack_step_planner_create(&step, nullptr, model, &planner) != FLOPSPACK_OK) {
    return std::string("planner failed: ") + flopspack_last_error_message();
  }
  int64_t first = 0;
  flopspack_step_planner_push(planner, lengths.data(), lengths.size(), &first);
  for (int s = 0; s < 2; ++s) {
    if (flopspack_step_planner_next(planner, &plan) != FLOPSPACK_OK) {
      flopspack_step_planner_destroy(planner);
      return std::string("next failed: ") + flopspack_last_error_message();
    }
    out += "|" + Fingerprint(plan);
    flopspack_plan_destroy(plan);
  }
  flopspack_step_planner_destroy(planner);

  flopspack_bucket_sampler_options bucket;
  flopspack_bucket_sampler_options_init(&bucket);
  bucket.max_padded_tokens = 16384;
  bucket.num_ranks = 4;
  bucket.seed = 9;
  flopspack_bucket_sampler* sampler = nullptr;
  if (flopspack_bucket_sampler_create(&bucket, model, lengths.data(), lengths.size(), &sampler) !=
      FLOPSPACK_OK) {
    return std::string("sampler failed: ") + flopspack_last_error_message();
  }
  for (uint64_t epoch = 0; epoch < 2; ++epoch) {
    flopspack_bucket_sampler_epoch(sampler, epoch, &plan);
    out += "|" + Fingerprint(plan);
    flopspack_plan_destroy(plan);
  }
  flopspack_bucket_sampler_destroy(sampler);

  flopspack_stream_options stream;
  flopspack_stream_options_init(&stream);
  stream.capacity = 8192;
  stream.window = 256;
  flopspack_stream_packer* packer = nullptr;
  flopspack_stream_packer_create(&stream, model, &packer);
  flopspack_stream_packer_push(packer, lengths.data(), lengths.size());
  flopspack_stream_packer_flush(packer);
  flopspack_stream_packer_take(packer, &plan);
  out += "|" + Fingerprint(plan);
  flopspack_plan_destroy(plan);
  flopspack_stream_packer_destroy(packer);
  return out;
}

TEST(ConcurrencyTest, SharedModelManyPlannersSamplersAndPackers) {
  flopspack_cost_model* model = SharedModel();
  const std::vector<int64_t> lengths = ThreadLengths(2000);
  const std::string reference = Work(model, lengths);
  ASSERT_EQ(reference.find("failed"), std::string::npos) << reference;
  constexpr int kThreads = 4;
  std::vector<std::string> results(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] { results[t] = Work(model, lengths); });
  }
  for (std::thread& thread : threads) thread.join();
  for (const std::string& result : results) EXPECT_TRUE(result == reference);
  flopspack_cost_model_destroy(model);
}

TEST(ConcurrencyTest, OneSamplerReadByManyThreads) {
  // The bucket sampler's epoch and step queries are const and may be called
  // concurrently (it caches the last epoch's layout behind a mutex).
  flopspack_cost_model* model = SharedModel();
  const std::vector<int64_t> lengths = ThreadLengths(3000);
  flopspack_bucket_sampler_options bucket;
  flopspack_bucket_sampler_options_init(&bucket);
  bucket.max_padded_tokens = 16384;
  bucket.num_ranks = 2;
  flopspack_bucket_sampler* sampler = nullptr;
  ASSERT_EQ(
      flopspack_bucket_sampler_create(&bucket, model, lengths.data(), lengths.size(), &sampler),
      FLOPSPACK_OK);
  std::vector<std::string> reference(3);
  for (uint64_t epoch = 0; epoch < 3; ++epoch) {
    flopspack_plan* plan = nullptr;
    ASSERT_EQ(flopspack_bucket_sampler_epoch(sampler, epoch, &plan), FLOPSPACK_OK);
    reference[epoch] = Fingerprint(plan);
    flopspack_plan_destroy(plan);
  }
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 6; ++i) {
        const uint64_t epoch = static_cast<uint64_t>((t + i) % 3);
        flopspack_plan* plan = nullptr;
        if (flopspack_bucket_sampler_epoch(sampler, epoch, &plan) != FLOPSPACK_OK ||
            Fingerprint(plan) != reference[epoch]) {
          ++mismatches[t];
        }
        flopspack_plan_destroy(plan);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int m : mismatches) EXPECT_EQ(m, 0);
  flopspack_bucket_sampler_destroy(sampler);
  flopspack_cost_model_destroy(model);
}

}  // namespace
