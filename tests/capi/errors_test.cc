// The bad-input table of docs/errors.md as tests: one test per row
// (ErrorsTest/Rows.Reports/<row>), each calling the entry point with that
// class of bad input and checking the status, that the message names the
// argument and value, and that every out-parameter is untouched. A last
// test checks that docs/errors.md lists every row with the exact message
// the library gives, so the table cannot drift from the code.
//
// FLOPSPACK_ERRORS_TABLE=<file> writes the table rows (markdown) there.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "capi_test_util.h"

namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

// Out-parameters every row may write to; all start as sentinels and must
// still hold them after the failing call.
struct Outs {
  flopspack_plan* plan = reinterpret_cast<flopspack_plan*>(uintptr_t{0x11});
  flopspack_cost_model* model = reinterpret_cast<flopspack_cost_model*>(uintptr_t{0x12});
  flopspack_step_planner* planner = reinterpret_cast<flopspack_step_planner*>(uintptr_t{0x13});
  flopspack_bucket_sampler* sampler = reinterpret_cast<flopspack_bucket_sampler*>(uintptr_t{0x14});
  flopspack_stream_packer* packer = reinterpret_cast<flopspack_stream_packer*>(uintptr_t{0x15});
  flopspack_cp_shard* shard = reinterpret_cast<flopspack_cp_shard*>(uintptr_t{0x17});
  int64_t i64 = -777;
  uint64_t u64 = 777;
  size_t size = 778;
  double real = -7.5;
  int64_t bounds[4] = {-7, -7, -7, -7};
  double doubles[4] = {-7, -7, -7, -7};
  const int64_t* view = reinterpret_cast<const int64_t*>(uintptr_t{0x16});
  unsigned char buffer[64];
  flopspack_bucket_sampler_diagnostics diagnostics;
  Outs() {
    std::memset(buffer, 0xAB, sizeof(buffer));
    std::memset(&diagnostics, 0xAB, sizeof(diagnostics));
    diagnostics.struct_size = sizeof(diagnostics);
  }
};

bool Untouched(const Outs& o) {
  const Outs fresh;
  return std::memcmp(&o, &fresh, sizeof(Outs)) == 0;
}

struct Row {
  std::string name;   // test name suffix, [A-Za-z0-9_]
  std::string entry;  // the entry point(s)
  std::string input;  // the class of bad input, for the table
  flopspack_status status;
  std::string fragment;  // must appear in the message
  std::function<flopspack_status(Outs&)> call;
};

// Shared valid objects (created once, never destroyed: reachable, so not
// leaks for LeakSanitizer).
const flopspack_cost_model* ErrorsTokens() {
  static flopspack_cost_model* m = [] {
    flopspack_cost_model* model = nullptr;
    flopspack_cost_model_tokens(&model);
    return model;
  }();
  return m;
}

// A callback that fails on every call after the first `ok` calls (counted
// per thread through user_data).
struct Countdown {
  int ok;
};
int ErrorsCountdownCost(void* user_data, const int64_t* lengths, size_t n, double* out) {
  auto* c = static_cast<Countdown*>(user_data);
  if (c->ok-- <= 0) return 42;
  double sum = 0;
  for (size_t i = 0; i < n; ++i) sum += static_cast<double>(lengths[i]);
  *out = sum;
  return 0;
}
int NegativeCost(void*, const int64_t*, size_t, double* out) {
  *out = -1;
  return 0;
}

// Each document costs 1e308 (finite); a sequence of several is refused as
// infinite by the custom model's own check, so the rows using it keep one
// document per sequence: only the library's sums overflow.
int ErrorsHugeCost(void*, const int64_t*, size_t n, double* out) {
  *out = 1e308 * static_cast<double>(n);
  return 0;
}
const flopspack_cost_model* ErrorsHuge() {
  static flopspack_cost_model* m = [] {
    flopspack_cost_model* model = nullptr;
    flopspack_cost_model_custom(ErrorsHugeCost, nullptr, &model);
    return model;
  }();
  return m;
}

// A custom model whose first `ok` calls succeed; destroyed by the caller.
flopspack_cost_model* FailingModel(Countdown* countdown) {
  flopspack_cost_model* model = nullptr;
  flopspack_cost_model_custom(ErrorsCountdownCost, countdown, &model);
  return model;
}

flopspack_pack_options Pack(int64_t capacity) {
  flopspack_pack_options o;
  flopspack_pack_options_init(&o);
  o.capacity = capacity;
  return o;
}
flopspack_balance_options Balance(int64_t k) {
  flopspack_balance_options o;
  flopspack_balance_options_init(&o);
  o.num_groups = k;
  return o;
}
flopspack_step_options Step(uint32_t ranks, uint32_t m, int64_t cap) {
  flopspack_step_options o;
  flopspack_step_options_init(&o);
  o.num_ranks = ranks;
  o.microbatches_per_rank = m;
  o.max_tokens_per_microbatch = cap;
  return o;
}
flopspack_bucket_sampler_options Sampler(int64_t budget) {
  flopspack_bucket_sampler_options o;
  flopspack_bucket_sampler_options_init(&o);
  o.max_padded_tokens = budget;
  return o;
}
flopspack_stream_options Stream(int64_t capacity) {
  flopspack_stream_options o;
  flopspack_stream_options_init(&o);
  o.capacity = capacity;
  return o;
}
flopspack_transformer_config ErrorsTransformer() {
  flopspack_transformer_config c;
  flopspack_transformer_config_init(&c);
  c.num_layers = 2;
  c.hidden_size = 64;
  c.num_attention_heads = 4;
  c.num_key_value_heads = 4;
  c.intermediate_size = 256;
  return c;
}

// A newer caller's larger struct: T followed by `extra` bytes, the last one
// set when `dirty`.
template <typename T>
struct Larger {
  T value;
  unsigned char tail[16];
  Larger(const T& v, bool dirty) : value(v) {
    std::memset(tail, 0, sizeof(tail));
    if (dirty) tail[15] = 1;
    value.struct_size = sizeof(Larger<T>);
  }
};

// A valid plan without slots and one with slots.
flopspack_plan* PackedPlan() {
  static flopspack_plan* p = [] {
    const int64_t lengths[] = {3, 5, 2};
    flopspack_pack_options o = Pack(8);
    flopspack_plan* plan = nullptr;
    flopspack_pack(&o, lengths, 3, &plan);
    return plan;
  }();
  return p;
}

flopspack_step_planner* NewPlanner(int32_t overflow, uint32_t m = 1) {
  flopspack_step_options o = Step(2, m, 100);
  o.overflow = overflow;
  flopspack_step_planner_options p;
  flopspack_step_planner_options_init(&p);
  if (m == 0) p.tokens_per_step = 300;
  flopspack_step_planner* planner = nullptr;
  flopspack_step_planner_create(&o, &p, ErrorsTokens(), &planner);
  return planner;
}

// Pushes the documents {4, 8, 2} with these extra costs into a fresh
// planner: the push's status if nothing was queued, else INTERNAL.
flopspack_status PushThreeWithExtraCosts(const double* extra, int64_t* first) {
  static const int64_t lengths[] = {4, 8, 2};
  flopspack_step_planner* planner = NewPlanner(FLOPSPACK_OVERFLOW_SPLIT);
  const flopspack_status s =
      flopspack_step_planner_push_with_extra_costs(planner, lengths, extra, 3, first);
  uint64_t pending = 1;
  flopspack_step_planner_pending(planner, &pending, nullptr, nullptr);
  flopspack_step_planner_destroy(planner);
  return pending == 0 ? s : FLOPSPACK_INTERNAL;
}

std::string SavedPlanner() {
  flopspack_step_planner* planner = NewPlanner(FLOPSPACK_OVERFLOW_SPLIT);
  const int64_t lengths[] = {30, 40, 150};
  flopspack_step_planner_push(planner, lengths, 3, nullptr);
  size_t size = 0;
  flopspack_step_planner_save_size(planner, &size);
  std::string bytes(size, '\0');
  size_t written = 0;
  flopspack_step_planner_save(planner, bytes.data(), size, &written);
  flopspack_step_planner_destroy(planner);
  return bytes;
}

// Rewrites the trailing FNV-1a 64 checksum (docs/planner.md's format), so a
// forged state reaches the field checks instead of failing the checksum.
void Reseal(std::string& bytes) {
  uint64_t hash = 0xCBF29CE484222325ull;
  for (size_t i = 0; i + 8 < bytes.size(); ++i) {
    hash ^= static_cast<unsigned char>(bytes[i]);
    hash *= 0x100000001B3ull;
  }
  for (int i = 0; i < 8; ++i) bytes[bytes.size() - 8 + i] = static_cast<char>(hash >> (8 * i));
}
void PutI64(std::string& bytes, size_t offset, int64_t v) {
  for (int i = 0; i < 8; ++i)
    bytes[offset + i] = static_cast<char>(static_cast<uint64_t>(v) >> (8 * i));
}
// Offsets in a saved step planner: magic 8, version 8, then 8-byte fields:
// num_ranks 16, M 24, cap 32, algorithm 40, seed 48, ordering 56, overflow
// 64, refine 72, tolerance 80, tokens_per_step 88, outlier_min 96,
// max_defer 104, max_outliers 112, next_id 120, steps 128, queue size 136,
// then (id, length, extra cost) triples (format version 2).
constexpr size_t kNextIdOffset = 120, kQueueOffset = 144;

flopspack_status RestoreForged(Outs& o, const std::function<void(std::string&)>& edit) {
  std::string bytes = SavedPlanner();
  edit(bytes);
  Reseal(bytes);
  return flopspack_step_planner_restore(bytes.data(), bytes.size(), ErrorsTokens(), &o.planner);
}

flopspack_stream_packer* NewPacker(int32_t overflow) {
  flopspack_stream_options o = Stream(100);
  o.overflow = overflow;
  flopspack_stream_packer* packer = nullptr;
  flopspack_stream_packer_create(&o, nullptr, &packer);
  return packer;
}

flopspack_bucket_sampler* NewSampler() {
  static flopspack_bucket_sampler* s = [] {
    std::vector<int64_t> lengths(40);
    for (size_t i = 0; i < lengths.size(); ++i) lengths[i] = 1 + static_cast<int64_t>(i % 9);
    flopspack_bucket_sampler_options o = Sampler(40);
    flopspack_bucket_sampler* sampler = nullptr;
    flopspack_bucket_sampler_create(&o, nullptr, lengths.data(), lengths.size(), &sampler);
    return sampler;
  }();
  return s;
}

std::vector<Row> Rows() {
  static const int64_t kThree[] = {4, 8, 2};
  static const int64_t kZeroAt1[] = {4, 0, 2};
  static const int64_t kHuge[] = {kInt64Max, 1};
  static const double kCosts[] = {1, 2, 3};
  static const double kNaNCost[] = {1, kNaN, 3};
  static const double kInfCost[] = {1, 2, kInf};
  static const double kNegCost[] = {1, -2, 3};
  static const int64_t kNegToken[] = {1, -1, 1};
  static const int64_t kBigTokens[] = {kInt64Max, 1, 1};
  const size_t kOverflowN = std::numeric_limits<size_t>::max() / 2;
  std::vector<Row> rows;
  auto add = [&](std::string name, std::string entry, std::string input, flopspack_status status,
                 std::string fragment, std::function<flopspack_status(Outs&)> call) {
    rows.push_back({std::move(name), std::move(entry), std::move(input), status,
                    std::move(fragment), std::move(call)});
  };

  // ---- Every entry point: pointers and array sizes.
  add("NullOut", "every function with an out-pointer", "`out` is NULL", FLOPSPACK_INVALID_ARGUMENT,
      "out must not be NULL", [](Outs&) { return flopspack_cost_model_tokens(nullptr); });
  add("NullHandle", "every function taking a handle",
      "the handle (`model`, `plan`, `planner`, "
      "`sampler`, `packer`) is NULL",
      FLOPSPACK_INVALID_ARGUMENT, "planner must not be NULL",
      [](Outs& o) { return flopspack_step_planner_next(nullptr, &o.plan); });
  add("NullArray", "every function taking an array", "an array is NULL while its length is > 0",
      FLOPSPACK_INVALID_ARGUMENT, "lengths is NULL but its length is 3", [](Outs& o) {
        flopspack_pack_options p = Pack(8);
        return flopspack_pack(&p, nullptr, 3, &o.plan);
      });
  add("OverflowingArraySize", "every function taking an array",
      "an array length whose byte size overflows the address space", FLOPSPACK_OUT_OF_RANGE,
      "overflows the address space", [kOverflowN](Outs& o) {
        return flopspack_cost_model_sequence_cost(ErrorsTokens(), kThree, kOverflowN, &o.real);
      });
  add("NonPositiveLength", "every function taking lengths", "a length that is zero or negative",
      FLOPSPACK_INVALID_ARGUMENT, "lengths[1] = 0: every length must be positive", [](Outs& o) {
        flopspack_step_options s = Step(2, 0, 16);
        return flopspack_plan_step(&s, ErrorsTokens(), kZeroAt1, 3, &o.plan);
      });
  add("LengthSumOverflow", "every function taking lengths", "lengths whose sum overflows int64",
      FLOPSPACK_OUT_OF_RANGE, "the sum of lengths overflows int64 at index 1", [](Outs& o) {
        flopspack_pack_options p = Pack(8);
        p.overflow = FLOPSPACK_OVERFLOW_SPLIT;
        return flopspack_pack(&p, kHuge, 2, &o.plan);
      });

  // ---- Option structs (the same rules for every options struct).
  add("StructSizeZero", "every function taking an options struct", "`struct_size` = 0 (not set)",
      FLOPSPACK_INVALID_ARGUMENT, "flopspack_pack_options->struct_size = 0", [](Outs& o) {
        flopspack_pack_options p = Pack(8);
        p.struct_size = 0;
        return flopspack_pack(&p, kThree, 3, &o.plan);
      });
  add("StructUnknownTail", "every function taking an options struct",
      "a larger struct (newer caller) with a non-zero unknown tail", FLOPSPACK_INVALID_ARGUMENT,
      "is larger than this library knows", [](Outs& o) {
        Larger<flopspack_step_options> s(Step(2, 0, 16), true);
        return flopspack_plan_step(&s.value, ErrorsTokens(), kThree, 3, &o.plan);
      });
  add("OutputStructSizeZero", "`flopspack_plan_metrics`, `flopspack_stream_packer_totals`",
      "an output struct whose `struct_size` is 0", FLOPSPACK_INVALID_ARGUMENT,
      "flopspack_plan_metrics->struct_size = 0", [](Outs&) {
        struct flopspack_plan_metrics m;
        std::memset(&m, 0, sizeof(m));
        return flopspack_plan_metrics(PackedPlan(), &m);
      });

  // ---- Cost models.
  add("CostNonFiniteCoefficient", "`flopspack_cost_model_polynomial`",
      "a NaN, infinite or negative coefficient", FLOPSPACK_INVALID_ARGUMENT,
      "linear = nan: must be finite and non-negative",
      [](Outs& o) { return flopspack_cost_model_polynomial(0, 0, kNaN, 0, &o.model); });
  add("CostBadDimension", "`flopspack_cost_model_transformer`", "a non-positive dimension",
      FLOPSPACK_INVALID_ARGUMENT, "hidden_size = 0 must be positive", [](Outs& o) {
        flopspack_transformer_config c = ErrorsTransformer();
        c.hidden_size = 0;
        return flopspack_cost_model_transformer(&c, &o.model);
      });
  add("CostHeadsDoNotDivide", "`flopspack_cost_model_transformer`",
      "heads that do not divide the hidden size (head_dim = 0)", FLOPSPACK_INVALID_ARGUMENT,
      "num_attention_heads = 3 does not divide hidden_size = 64", [](Outs& o) {
        flopspack_transformer_config c = ErrorsTransformer();
        c.num_attention_heads = 3;
        c.num_key_value_heads = 3;
        return flopspack_cost_model_transformer(&c, &o.model);
      });
  add("CostBadFlag", "`flopspack_cost_model_transformer`", "a flag not 0/1, an unknown enum value",
      FLOPSPACK_INVALID_ARGUMENT, "causal = 2 must be 0 or 1", [](Outs& o) {
        flopspack_transformer_config c = ErrorsTransformer();
        c.causal = 2;
        return flopspack_cost_model_transformer(&c, &o.model);
      });
  add("FitTooFewSamples", "`flopspack_cost_model_fit`", "fewer samples than fitted terms",
      FLOPSPACK_INVALID_ARGUMENT, "2 samples are too few to fit 4 terms", [](Outs& o) {
        static const size_t offsets[] = {0, 1, 2};
        static const double seconds[] = {1, 2};
        return flopspack_cost_model_fit(nullptr, kThree, offsets, seconds, 2, nullptr, &o.model);
      });
  add("FitNaNTime", "`flopspack_cost_model_fit`", "a NaN, infinite or negative time",
      FLOPSPACK_INVALID_ARGUMENT, "seconds[1] = nan", [](Outs& o) {
        static const int64_t docs[] = {1, 2, 3, 4, 5};
        static const size_t offsets[] = {0, 1, 2, 3, 4, 5};
        static const double seconds[] = {1, kNaN, 3, 4, 5};
        return flopspack_cost_model_fit(nullptr, docs, offsets, seconds, 5, nullptr, &o.model);
      });
  add("FitBadOffsets", "`flopspack_cost_model_fit`", "sample offsets that decrease",
      FLOPSPACK_INVALID_ARGUMENT, "sample_offsets", [](Outs& o) {
        static const int64_t docs[] = {1, 2, 3, 4, 5};
        static const size_t offsets[] = {0, 2, 1, 3, 4, 5};
        static const double seconds[] = {1, 2, 3, 4, 5};
        return flopspack_cost_model_fit(nullptr, docs, offsets, seconds, 5, nullptr, &o.model);
      });
  add("CoefficientsNotPolynomial", "`flopspack_cost_model_coefficients`",
      "a transformer or custom model", FLOPSPACK_INVALID_ARGUMENT,
      "only a tokens, polynomial or fitted model has polynomial coefficients", [](Outs& o) {
        flopspack_transformer_config c = ErrorsTransformer();
        flopspack_cost_model* model = nullptr;
        flopspack_cost_model_transformer(&c, &model);
        flopspack_polynomial_coefficients out;
        std::memset(&out, 0xAB, sizeof(out));
        out.struct_size = sizeof(out);
        const flopspack_polynomial_coefficients before = out;
        const flopspack_status s = flopspack_cost_model_coefficients(model, &out);
        flopspack_cost_model_destroy(model);
        if (std::memcmp(&before, &out, sizeof(out)) != 0) o.real = 0;  // touched
        return s;
      });
  add("EvaluateNoSamples", "`flopspack_cost_model_evaluate`", "no samples (two with fit_scale)",
      FLOPSPACK_INVALID_ARGUMENT, "0 samples are too few", [](Outs& o) {
        static const size_t offsets[] = {0};
        flopspack_prediction_quality out;
        std::memset(&out, 0xAB, sizeof(out));
        out.struct_size = sizeof(out);
        const flopspack_prediction_quality before = out;
        const flopspack_status s = flopspack_cost_model_evaluate(ErrorsTokens(), nullptr, nullptr,
                                                                 offsets, nullptr, 0, &out);
        if (std::memcmp(&before, &out, sizeof(out)) != 0) o.real = 0;  // touched
        return s;
      });
  add("EvaluateZeroTime", "`flopspack_cost_model_evaluate`",
      "a zero time (relative errors divide by it); NaN, infinite and negative ones as for fit",
      FLOPSPACK_INVALID_ARGUMENT, "seconds[1] = 0: evaluate needs every measured time > 0",
      [](Outs& o) {
        static const size_t offsets[] = {0, 1, 2, 3};
        static const double seconds[] = {1, 0, 3};
        flopspack_prediction_quality out;
        std::memset(&out, 0xAB, sizeof(out));
        out.struct_size = sizeof(out);
        const flopspack_prediction_quality before = out;
        const flopspack_status s = flopspack_cost_model_evaluate(ErrorsTokens(), nullptr, kThree,
                                                                 offsets, seconds, 3, &out);
        if (std::memcmp(&before, &out, sizeof(out)) != 0) o.real = 0;  // touched
        return s;
      });
  add("CallbackFails", "every function that evaluates a custom cost model",
      "the custom callback returns non-zero", FLOPSPACK_CALLBACK_FAILED,
      "custom cost callback returned 42", [](Outs& o) {
        Countdown c{0};
        flopspack_cost_model* model = FailingModel(&c);
        const flopspack_status s = flopspack_cost_model_sequence_cost(model, kThree, 3, &o.real);
        flopspack_cost_model_destroy(model);
        return s;
      });
  add("CallbackBadCost", "every function that evaluates a custom cost model",
      "the custom callback returns a NaN, infinite or negative cost", FLOPSPACK_CALLBACK_FAILED,
      "custom cost model returned -1", [](Outs& o) {
        flopspack_cost_model* model = nullptr;
        flopspack_cost_model_custom(NegativeCost, nullptr, &model);
        const flopspack_status s = flopspack_cost_model_sequence_cost(model, kThree, 3, &o.real);
        flopspack_cost_model_destroy(model);
        return s;
      });

  // ---- Plans.
  add("PlanGroupOutOfRange", "`flopspack_plan_group`, `_group_info`, `_group_slot`",
      "a group index >= the group count", FLOPSPACK_OUT_OF_RANGE,
      "group 7 is out of range: the plan has 2 groups",
      [](Outs& o) { return flopspack_plan_group(PackedPlan(), 7, &o.view, nullptr, &o.size); });
  add("PlanOffsetsOutOfRange", "`flopspack_plan_group_offsets`", "a group index >= the group count",
      FLOPSPACK_OUT_OF_RANGE, "group 2 is out of range: the plan has 2 groups",
      [](Outs& o) { return flopspack_plan_group_offsets(PackedPlan(), 2, &o.view, &o.size); });
  add("PlanSlotWithoutRanks", "`flopspack_plan_group_slot`", "a plan without ranks (pack, balance)",
      FLOPSPACK_INVALID_ARGUMENT, "this plan has no ranks",
      [](Outs& o) { return flopspack_plan_group_slot(PackedPlan(), 0, &o.size, &o.size); });

  // ---- flopspack_pack.
  add("PackCapacity", "`flopspack_pack`", "capacity <= 0 (it has no default)",
      FLOPSPACK_INVALID_ARGUMENT, "capacity = 0", [](Outs& o) {
        flopspack_pack_options p = Pack(0);
        return flopspack_pack(&p, kThree, 3, &o.plan);
      });
  add("PackAlgorithm", "`flopspack_pack`", "an unknown algorithm", FLOPSPACK_INVALID_ARGUMENT,
      "algorithm = 9 is not a flopspack_pack_algorithm value", [](Outs& o) {
        flopspack_pack_options p = Pack(8);
        p.algorithm = 9;
        return flopspack_pack(&p, kThree, 3, &o.plan);
      });
  add("PackOverflowPolicy", "`flopspack_pack`", "an overflow value it does not take (DEFER)",
      FLOPSPACK_INVALID_ARGUMENT, "overflow = 3", [](Outs& o) {
        flopspack_pack_options p = Pack(8);
        p.overflow = FLOPSPACK_OVERFLOW_DEFER;
        return flopspack_pack(&p, kThree, 3, &o.plan);
      });
  add("PackOverCapacity", "`flopspack_pack`", "a document over the capacity under ERROR",
      FLOPSPACK_INVALID_ARGUMENT, "lengths[1] = 8 exceeds capacity = 5", [](Outs& o) {
        flopspack_pack_options p = Pack(5);
        return flopspack_pack(&p, kThree, 3, &o.plan);
      });
  add("PackTooManyPieces", "`flopspack_pack`", "splitting makes more than 2^31 - 1 pieces",
      FLOPSPACK_OUT_OF_RANGE, "more than 2^31 - 1 pieces", [](Outs& o) {
        static const int64_t huge[] = {int64_t{1} << 40};
        flopspack_pack_options p = Pack(1);
        p.overflow = FLOPSPACK_OVERFLOW_SPLIT;
        return flopspack_pack(&p, huge, 1, &o.plan);
      });
  add("PackCostSumOverflow", "`flopspack_pack`",
      "finite sequence costs whose sum overflows a double", FLOPSPACK_OUT_OF_RANGE,
      "sequence cost: the sum of costs overflows a double", [](Outs& o) {
        static const int64_t full[] = {8, 8, 8};
        flopspack_pack_options p = Pack(8);
        p.cost_model = ErrorsHuge();
        return flopspack_pack(&p, full, 3, &o.plan);
      });
  add("PackComputedTokensOverflow", "`flopspack_pack`",
      "sequences x capacity (computed tokens) over int64", FLOPSPACK_OUT_OF_RANGE,
      "3 sequences of it compute more than int64 tokens", [](Outs& o) {
        static const int64_t third[] = {kInt64Max / 3, kInt64Max / 3, kInt64Max / 3};
        flopspack_pack_options p = Pack(kInt64Max / 3 * 2 - 1);
        return flopspack_pack(&p, third, 3, &o.plan);
      });
  add("PackCallbackFails", "`flopspack_pack`", "the options' custom cost model fails",
      FLOPSPACK_CALLBACK_FAILED, "custom cost callback returned 42", [](Outs& o) {
        Countdown c{0};
        flopspack_cost_model* model = FailingModel(&c);
        flopspack_pack_options p = Pack(8);
        p.cost_model = model;
        const flopspack_status s = flopspack_pack(&p, kThree, 3, &o.plan);
        flopspack_cost_model_destroy(model);
        return s;
      });

  // ---- flopspack_balance.
  add("BalanceNumGroups", "`flopspack_balance`", "num_groups < 1 or > 2^31 - 1",
      FLOPSPACK_INVALID_ARGUMENT, "num_groups = 0", [](Outs& o) {
        flopspack_balance_options b = Balance(0);
        return flopspack_balance(&b, kCosts, nullptr, 3, &o.plan);
      });
  add("BalanceAlgorithm", "`flopspack_balance`", "an unknown algorithm", FLOPSPACK_INVALID_ARGUMENT,
      "algorithm = 7 is not a flopspack_balance_algorithm value", [](Outs& o) {
        flopspack_balance_options b = Balance(2);
        b.algorithm = 7;
        return flopspack_balance(&b, kCosts, nullptr, 3, &o.plan);
      });
  add("BalanceFlag", "`flopspack_balance`", "`equal_count` or `refine` not 0 or 1",
      FLOPSPACK_INVALID_ARGUMENT, "equal_count = 2 must be 0 or 1", [](Outs& o) {
        flopspack_balance_options b = Balance(2);
        b.equal_count = 2;
        return flopspack_balance(&b, kCosts, nullptr, 3, &o.plan);
      });
  add("BalanceNegativeCap", "`flopspack_balance`",
      "negative `max_tokens_per_group` or `max_refine_steps`", FLOPSPACK_INVALID_ARGUMENT,
      "max_tokens_per_group = -1", [](Outs& o) {
        flopspack_balance_options b = Balance(2);
        b.max_tokens_per_group = -1;
        return flopspack_balance(&b, kCosts, nullptr, 3, &o.plan);
      });
  add("BalanceNaNCost", "`flopspack_balance`", "a NaN cost", FLOPSPACK_INVALID_ARGUMENT,
      "costs[1] = nan: every cost must be finite and non-negative", [](Outs& o) {
        flopspack_balance_options b = Balance(2);
        return flopspack_balance(&b, kNaNCost, nullptr, 3, &o.plan);
      });
  add("BalanceInfCost", "`flopspack_balance`", "an infinite cost", FLOPSPACK_INVALID_ARGUMENT,
      "costs[2] = inf", [](Outs& o) {
        flopspack_balance_options b = Balance(2);
        return flopspack_balance(&b, kInfCost, nullptr, 3, &o.plan);
      });
  add("BalanceNegativeCost", "`flopspack_balance`", "a negative cost", FLOPSPACK_INVALID_ARGUMENT,
      "costs[1] = -2", [](Outs& o) {
        flopspack_balance_options b = Balance(2);
        return flopspack_balance(&b, kNegCost, nullptr, 3, &o.plan);
      });
  add("BalanceNegativeTokens", "`flopspack_balance`", "a negative token count",
      FLOPSPACK_INVALID_ARGUMENT, "tokens[1] = -1", [](Outs& o) {
        flopspack_balance_options b = Balance(2);
        return flopspack_balance(&b, kCosts, kNegToken, 3, &o.plan);
      });
  add("BalanceTokenSumOverflow", "`flopspack_balance`", "token counts whose sum overflows int64",
      FLOPSPACK_OUT_OF_RANGE, "tokens: the sum overflows int64 at index 1", [](Outs& o) {
        flopspack_balance_options b = Balance(2);
        return flopspack_balance(&b, kCosts, kBigTokens, 3, &o.plan);
      });
  add("BalanceCostSumOverflow", "`flopspack_balance`",
      "finite costs whose sum overflows a double (three of 1e308)", FLOPSPACK_OUT_OF_RANGE,
      "costs: the sum of costs overflows a double at index 1", [](Outs& o) {
        static const double huge[] = {1e308, 1e308, 1e308};
        flopspack_balance_options b = Balance(1);
        return flopspack_balance(&b, huge, nullptr, 3, &o.plan);
      });
  add("BalanceCapWithoutTokens", "`flopspack_balance`", "a token cap but no tokens",
      FLOPSPACK_INVALID_ARGUMENT, "needs tokens, but none were given", [](Outs& o) {
        flopspack_balance_options b = Balance(2);
        b.max_tokens_per_group = 10;
        return flopspack_balance(&b, kCosts, nullptr, 3, &o.plan);
      });
  add("BalanceItemOverCap", "`flopspack_balance`", "an item above the cap (infeasible cap)",
      FLOPSPACK_INFEASIBLE, "tokens[1] = 8", [](Outs& o) {
        flopspack_balance_options b = Balance(2);
        b.max_tokens_per_group = 5;
        return flopspack_balance(&b, kCosts, kThree, 3, &o.plan);
      });
  add("BalanceTotalOverCaps", "`flopspack_balance`", "total tokens above k x cap (infeasible cap)",
      FLOPSPACK_INFEASIBLE, "14", [](Outs& o) {
        flopspack_balance_options b = Balance(1);
        b.max_tokens_per_group = 10;
        return flopspack_balance(&b, kCosts, kThree, 3, &o.plan);
      });
  add("BalanceProvedInfeasible", "`flopspack_balance`",
      "caps that no assignment meets (search exhausted)", FLOPSPACK_INFEASIBLE, "proved",
      [](Outs& o) {
        static const int64_t tokens[] = {6, 6, 6};
        flopspack_balance_options b = Balance(2);
        b.max_tokens_per_group = 10;  // 18 <= 20, but no two items share a group
        return flopspack_balance(&b, kCosts, tokens, 3, &o.plan);
      });

  // ---- flopspack_plan_step.
  add("StepNumRanks", "`flopspack_plan_step`, `flopspack_step_planner_create`", "num_ranks = 0",
      FLOPSPACK_INVALID_ARGUMENT, "num_ranks = 0", [](Outs& o) {
        flopspack_step_options s = Step(0, 1, 16);
        return flopspack_plan_step(&s, ErrorsTokens(), kThree, 3, &o.plan);
      });
  add("StepCap", "`flopspack_plan_step`, `flopspack_step_planner_create`",
      "max_tokens_per_microbatch <= 0", FLOPSPACK_INVALID_ARGUMENT,
      "max_tokens_per_microbatch = -5", [](Outs& o) {
        flopspack_step_options s = Step(2, 1, -5);
        return flopspack_plan_step(&s, ErrorsTokens(), kThree, 3, &o.plan);
      });
  add("StepEnum", "`flopspack_plan_step`, `flopspack_step_planner_create`",
      "an unknown algorithm, ordering or overflow value (TRUNCATE is not taken)",
      FLOPSPACK_INVALID_ARGUMENT, "overflow = 1", [](Outs& o) {
        flopspack_step_options s = Step(2, 1, 16);
        s.overflow = FLOPSPACK_OVERFLOW_TRUNCATE;
        return flopspack_plan_step(&s, ErrorsTokens(), kThree, 3, &o.plan);
      });
  add("StepSyncEnum", "`flopspack_plan_step`, `flopspack_step_planner_create`",
      "an unknown sync or pipeline_schedule value", FLOPSPACK_INVALID_ARGUMENT, "sync = 2",
      [](Outs& o) {
        flopspack_step_options s = Step(2, 1, 16);
        s.sync = 2;
        return flopspack_plan_step(&s, ErrorsTokens(), kThree, 3, &o.plan);
      });
  add("StepPipelineStages", "`flopspack_plan_step`, `flopspack_step_planner_create`",
      "pipeline_stages over 1024", FLOPSPACK_INVALID_ARGUMENT, "pipeline_stages = 1025",
      [](Outs& o) {
        flopspack_step_options s = Step(2, 1, 16);
        s.pipeline_stages = 1025;
        return flopspack_step_planner_create(&s, nullptr, ErrorsTokens(), &o.planner);
      });
  add("StepCpSize", "`flopspack_plan_step`, `flopspack_step_planner_create`",
      "context_parallel_size over 65536", FLOPSPACK_INVALID_ARGUMENT,
      "context_parallel_size = 65537", [](Outs& o) {
        flopspack_step_options s = Step(2, 1, 16);
        s.context_parallel_size = 65537;
        return flopspack_plan_step(&s, ErrorsTokens(), kThree, 3, &o.plan);
      });
  add("StepCpLayout", "`flopspack_plan_step`, `flopspack_step_planner_create`",
      "an unknown context_parallel_layout value", FLOPSPACK_INVALID_ARGUMENT,
      "context_parallel_layout = 3", [](Outs& o) {
        flopspack_step_options s = Step(2, 1, 16);
        s.context_parallel_size = 2;
        s.context_parallel_layout = 3;
        return flopspack_step_planner_create(&s, nullptr, ErrorsTokens(), &o.planner);
      });
  add("StepCpGroupCap", "`flopspack_plan_step`, `flopspack_step_planner_create`",
      "max_tokens_per_microbatch x context_parallel_size over int64", FLOPSPACK_OUT_OF_RANGE,
      "max_tokens_per_microbatch x context_parallel_size", [](Outs& o) {
        flopspack_step_options s = Step(2, 0, INT64_MAX / 2);
        s.context_parallel_size = 4;
        return flopspack_plan_step(&s, ErrorsTokens(), kThree, 3, &o.plan);
      });
  add("StepCpCustomModel", "`flopspack_plan_step`",
      "context_parallel_size > 1 with a custom model or sequence-wide attention",
      FLOPSPACK_INVALID_ARGUMENT, "context_parallel_size > 1 needs an additive cost model",
      [](Outs& o) {
        flopspack_step_options s = Step(2, 0, 16);
        s.context_parallel_size = 2;
        return flopspack_plan_step(&s, ErrorsHuge(), kThree, 3, &o.plan);
      });
  add("StepOverCap", "`flopspack_plan_step`", "a document over the cap under ERROR",
      FLOPSPACK_INVALID_ARGUMENT, "lengths[1] = 8 exceeds max_tokens_per_microbatch = 5",
      [](Outs& o) {
        flopspack_step_options s = Step(2, 0, 5);
        s.overflow = FLOPSPACK_OVERFLOW_ERROR;
        return flopspack_plan_step(&s, ErrorsTokens(), kThree, 3, &o.plan);
      });
  add("StepBatchDoesNotFit", "`flopspack_plan_step`",
      "a batch over R x M x cap tokens under SPLIT or ERROR (infeasible caps)",
      FLOPSPACK_INFEASIBLE, "the batch does not fit: 14 tokens > num_ranks x", [](Outs& o) {
        flopspack_step_options s = Step(1, 1, 10);
        return flopspack_plan_step(&s, ErrorsTokens(), kThree, 3, &o.plan);
      });
  add("StepExtraCostNegative", "`flopspack_plan_step_with_extra_costs`",
      "a negative, NaN or infinite extra cost", FLOPSPACK_INVALID_ARGUMENT,
      "extra_costs[1] = nan: every extra cost must be finite", [](Outs& o) {
        flopspack_step_options s = Step(2, 0, 16);
        static const double extra[] = {0, std::nan(""), 1};
        return flopspack_plan_step_with_extra_costs(&s, ErrorsTokens(), kThree, extra, 3, &o.plan);
      });
  add("StepExtraCostSumOverflow", "`flopspack_plan_step_with_extra_costs`",
      "finite extra costs whose sum overflows a double", FLOPSPACK_OUT_OF_RANGE,
      "extra_costs: the sum of costs overflows a double at index 1", [](Outs& o) {
        flopspack_step_options s = Step(2, 0, 16);
        static const double extra[] = {1e308, 1e308, 0};
        return flopspack_plan_step_with_extra_costs(&s, ErrorsTokens(), kThree, extra, 3, &o.plan);
      });
  add("StepMicrobatchProduct", "`flopspack_plan_step`, `flopspack_step_planner_create`",
      "num_ranks x microbatches_per_rank > 2^24", FLOPSPACK_OUT_OF_RANGE,
      "num_ranks x microbatches_per_rank = 65536 x 65536", [](Outs& o) {
        flopspack_step_options s = Step(65536, 65536, 16);
        return flopspack_plan_step(&s, ErrorsTokens(), kThree, 3, &o.plan);
      });
  add("StepTooManyItems", "`flopspack_plan_step`", "splitting makes more than 2^31 - 1 items",
      FLOPSPACK_OUT_OF_RANGE, "splitting at max_tokens_per_microbatch = 1", [](Outs& o) {
        flopspack_step_options s = Step(1, 0, 1);
        static const int64_t huge[] = {kInt64Max};
        return flopspack_plan_step(&s, ErrorsTokens(), huge, 1, &o.plan);
      });
  add("StepTooManyMicrobatches", "`flopspack_plan_step`",
      "M = 0 and the batch needs more than 2^24 microbatches", FLOPSPACK_OUT_OF_RANGE,
      "at most 16777216 per step", [](Outs& o) {
        flopspack_step_options s = Step(4, 0, 1);
        static const int64_t big[] = {int64_t{1} << 30};
        return flopspack_plan_step(&s, ErrorsTokens(), big, 1, &o.plan);
      });
  add("StepCostSumOverflow", "`flopspack_plan_step`, `flopspack_step_planner_next`",
      "finite document costs whose sum overflows a double", FLOPSPACK_OUT_OF_RANGE,
      "document cost: the sum of costs overflows a double", [](Outs& o) {
        flopspack_step_options s = Step(3, 1, 16);
        return flopspack_plan_step(&s, ErrorsHuge(), kThree, 3, &o.plan);
      });
  add("StepTokenProduct", "`flopspack_plan_step`, `flopspack_step_planner_create`",
      "num_ranks x microbatches_per_rank x cap overflows int64", FLOPSPACK_OUT_OF_RANGE,
      "overflows", [](Outs& o) {
        flopspack_step_options s = Step(1024, 1024, int64_t{1} << 50);
        return flopspack_plan_step(&s, ErrorsTokens(), kThree, 3, &o.plan);
      });
  add("StepCallbackFails", "`flopspack_plan_step`", "the custom cost model fails",
      FLOPSPACK_CALLBACK_FAILED, "custom cost callback returned 42", [](Outs& o) {
        Countdown c{0};
        flopspack_cost_model* model = FailingModel(&c);
        flopspack_step_options s = Step(2, 0, 16);
        const flopspack_status st = flopspack_plan_step(&s, model, kThree, 3, &o.plan);
        flopspack_cost_model_destroy(model);
        return st;
      });

  // ---- The stateful step planner.
  add("PlannerNoStepSize", "`flopspack_step_planner_create`",
      "M = 0 and tokens_per_step = 0 (no step size)", FLOPSPACK_INVALID_ARGUMENT,
      "tokens_per_step = 0 means", [](Outs& o) {
        flopspack_step_options s = Step(2, 0, 16);
        return flopspack_step_planner_create(&s, nullptr, ErrorsTokens(), &o.planner);
      });
  add("PlannerStepTooLarge", "`flopspack_step_planner_create`", "tokens_per_step > R x M x cap",
      FLOPSPACK_INVALID_ARGUMENT, "tokens_per_step = 100 exceeds", [](Outs& o) {
        flopspack_step_options s = Step(2, 1, 16);
        flopspack_step_planner_options p;
        flopspack_step_planner_options_init(&p);
        p.tokens_per_step = 100;
        return flopspack_step_planner_create(&s, &p, ErrorsTokens(), &o.planner);
      });
  add("PlannerNegativeOption", "`flopspack_step_planner_create`",
      "negative tokens_per_step, outlier_min_tokens or max_outliers_per_step",
      FLOPSPACK_INVALID_ARGUMENT, "outlier_min_tokens = -1", [](Outs& o) {
        flopspack_step_options s = Step(2, 1, 16);
        flopspack_step_planner_options p;
        flopspack_step_planner_options_init(&p);
        p.outlier_min_tokens = -1;
        return flopspack_step_planner_create(&s, &p, ErrorsTokens(), &o.planner);
      });
  add("PlannerDeferSteps", "`flopspack_step_planner_create`", "max_defer_steps > 2^20",
      FLOPSPACK_INVALID_ARGUMENT, "max_defer_steps = 2000000", [](Outs& o) {
        flopspack_step_options s = Step(2, 1, 16);
        flopspack_step_planner_options p;
        flopspack_step_planner_options_init(&p);
        p.max_defer_steps = 2000000;
        return flopspack_step_planner_create(&s, &p, ErrorsTokens(), &o.planner);
      });
  add("PlannerPushOverCap", "`flopspack_step_planner_push`",
      "a document over the cap when the policy is not SPLIT (nothing pushed)",
      FLOPSPACK_INVALID_ARGUMENT, "lengths[0] = 150 exceeds max_tokens_per_microbatch = 100",
      [](Outs& o) {
        flopspack_step_planner* planner = NewPlanner(FLOPSPACK_OVERFLOW_DEFER);
        static const int64_t lengths[] = {150, 5};
        const flopspack_status s = flopspack_step_planner_push(planner, lengths, 2, &o.i64);
        uint64_t pending = 1;
        flopspack_step_planner_pending(planner, &pending, nullptr, nullptr);
        flopspack_step_planner_destroy(planner);
        return pending == 0 ? s : FLOPSPACK_INTERNAL;
      });
  add("PlannerPushOverStep", "`flopspack_step_planner_push`",
      "a document longer than a whole step (M > 0)", FLOPSPACK_INVALID_ARGUMENT,
      "lengths[0] = 250 exceeds tokens_per_step = 200", [](Outs& o) {
        flopspack_step_planner* planner = NewPlanner(FLOPSPACK_OVERFLOW_SPLIT);
        static const int64_t lengths[] = {250};
        const flopspack_status s = flopspack_step_planner_push(planner, lengths, 1, &o.i64);
        flopspack_step_planner_destroy(planner);
        return s;
      });
  add("PlannerPendingOverflow", "`flopspack_step_planner_push`",
      "pending tokens that would overflow int64", FLOPSPACK_OUT_OF_RANGE,
      "pending tokens would overflow int64", [](Outs& o) {
        flopspack_step_options so = Step(2, 0, int64_t{1} << 62);
        flopspack_step_planner_options p;
        flopspack_step_planner_options_init(&p);
        p.tokens_per_step = kInt64Max;
        flopspack_step_planner* planner = nullptr;
        flopspack_step_planner_create(&so, &p, ErrorsTokens(), &planner);
        static const int64_t big[] = {kInt64Max / 2 + 1};
        flopspack_step_planner_push(planner, big, 1, nullptr);
        const flopspack_status s = flopspack_step_planner_push(planner, big, 1, &o.i64);
        flopspack_step_planner_destroy(planner);
        return s;
      });
  add("PlannerPushTooManyPieces", "`flopspack_step_planner_push`",
      "a document that alone needs more microbatches than a step has (M = 0, SPLIT; nothing "
      "pushed)",
      FLOPSPACK_OUT_OF_RANGE, "lengths[0] = 1099511627776", [](Outs& o) {
        flopspack_step_options so = Step(1, 0, 1);
        flopspack_step_planner_options p;
        flopspack_step_planner_options_init(&p);
        p.tokens_per_step = 1;
        flopspack_step_planner* planner = nullptr;
        flopspack_step_planner_create(&so, &p, ErrorsTokens(), &planner);
        static const int64_t big[] = {int64_t{1} << 40, 5};
        const flopspack_status s = flopspack_step_planner_push(planner, big, 2, &o.i64);
        flopspack_step_planner_destroy(planner);
        return s;
      });
  add("PlannerPushExtraCostNegative", "`flopspack_step_planner_push_with_extra_costs`",
      "a negative, NaN or infinite extra cost (nothing pushed)", FLOPSPACK_INVALID_ARGUMENT,
      "extra_costs[1] = -1: every extra cost must be finite and non-negative", [](Outs& o) {
        static const double extra[] = {0, -1, 2};
        return PushThreeWithExtraCosts(extra, &o.i64);
      });
  add("PlannerPushExtraCostSumOverflow", "`flopspack_step_planner_push_with_extra_costs`",
      "finite extra costs whose sum overflows a double (nothing pushed)", FLOPSPACK_OUT_OF_RANGE,
      "extra_costs: the sum of costs overflows a double at index 1", [](Outs& o) {
        static const double extra[] = {1e308, 1e308, 0};
        return PushThreeWithExtraCosts(extra, &o.i64);
      });
  add("PlannerNextCallbackFails", "`flopspack_step_planner_next`",
      "the custom cost model fails (the planner is unchanged)", FLOPSPACK_CALLBACK_FAILED,
      "custom cost callback returned 42", [](Outs& o) {
        Countdown c{0};
        flopspack_cost_model* model = FailingModel(&c);
        flopspack_step_options s = Step(2, 1, 100);
        flopspack_step_planner* planner = nullptr;
        flopspack_step_planner_create(&s, nullptr, model, &planner);
        static const int64_t lengths[] = {30, 40};
        flopspack_step_planner_push(planner, lengths, 2, nullptr);
        const flopspack_status st = flopspack_step_planner_next(planner, &o.plan);
        uint64_t pending = 0;
        flopspack_step_planner_pending(planner, &pending, nullptr, nullptr);
        flopspack_step_planner_destroy(planner);
        flopspack_cost_model_destroy(model);
        return pending == 2 ? st : FLOPSPACK_INTERNAL;
      });
  add("PlannerSaveBufferTooSmall", "`flopspack_step_planner_save`",
      "a buffer below `flopspack_step_planner_save_size`", FLOPSPACK_BUFFER_TOO_SMALL,
      "capacity 64 is below the", [](Outs& o) {
        flopspack_step_planner* planner = NewPlanner(FLOPSPACK_OVERFLOW_SPLIT);
        const flopspack_status s =
            flopspack_step_planner_save(planner, o.buffer, sizeof(o.buffer), &o.size);
        flopspack_step_planner_destroy(planner);
        return s;
      });
  add("PlannerRestoreTruncated", "`flopspack_step_planner_restore`", "truncated bytes",
      FLOPSPACK_INVALID_ARGUMENT, "step planner state: 10 bytes is too short", [](Outs& o) {
        const std::string bytes = SavedPlanner();
        return flopspack_step_planner_restore(bytes.data(), 10, ErrorsTokens(), &o.planner);
      });
  add("PlannerRestoreChecksum", "`flopspack_step_planner_restore`",
      "corrupted bytes (a flipped bit)", FLOPSPACK_INVALID_ARGUMENT,
      "step planner state: checksum mismatch", [](Outs& o) {
        std::string bytes = SavedPlanner();
        bytes[bytes.size() / 2] ^= 4;
        return flopspack_step_planner_restore(bytes.data(), bytes.size(), ErrorsTokens(),
                                              &o.planner);
      });
  add("PlannerRestoreForeign", "`flopspack_step_planner_restore`",
      "foreign bytes (not a saved planner)", FLOPSPACK_INVALID_ARGUMENT,
      "step planner state: bad magic", [](Outs& o) {
        std::string bytes = SavedPlanner();
        bytes[0] = 'X';
        return flopspack_step_planner_restore(bytes.data(), bytes.size(), ErrorsTokens(),
                                              &o.planner);
      });
  add("PlannerRestoreVersion", "`flopspack_step_planner_restore`", "a newer format version",
      FLOPSPACK_INVALID_ARGUMENT, "format version 3, this library reads versions 1 to 2",
      [](Outs& o) { return RestoreForged(o, [](std::string& b) { PutI64(b, 8, 3); }); });
  add("PlannerRestoreForgedDocument", "`flopspack_step_planner_restore`",
      "a well-sealed state whose queue holds a document Push would refuse",
      FLOPSPACK_INVALID_ARGUMENT, "step planner state: bad queued document", [](Outs& o) {
        return RestoreForged(o, [](std::string& b) { PutI64(b, kQueueOffset + 8, kInt64Max); });
      });
  add("PlannerRestoreForgedExtraCost", "`flopspack_step_planner_restore`",
      "a well-sealed state whose queue holds a negative or NaN extra cost",
      FLOPSPACK_INVALID_ARGUMENT, "step planner state: bad queued document", [](Outs& o) {
        return RestoreForged(o, [](std::string& b) {
          const double minus_one = -1;
          int64_t bits = 0;
          std::memcpy(&bits, &minus_one, sizeof(bits));
          PutI64(b, kQueueOffset + 16, bits);
        });
      });
  add("PlannerRestoreForgedCounter", "`flopspack_step_planner_restore`",
      "a well-sealed state whose counters are out of range", FLOPSPACK_INVALID_ARGUMENT,
      "step planner state: a counter is out of range", [](Outs& o) {
        return RestoreForged(o, [](std::string& b) { PutI64(b, kNextIdOffset, kInt64Max); });
      });

  // ---- Buckets.
  add("BucketsZero", "`flopspack_buckets_optimize`", "num_buckets = 0", FLOPSPACK_INVALID_ARGUMENT,
      "num_buckets = 0: need at least one bucket",
      [](Outs& o) { return flopspack_buckets_optimize(kThree, 3, 0, o.bounds); });
  add("BucketsEmpty", "`flopspack_buckets_optimize`", "n = 0", FLOPSPACK_INVALID_ARGUMENT,
      "lengths is empty",
      [](Outs& o) { return flopspack_buckets_optimize(kThree, 0, 2, o.bounds); });
  add("BucketsPaddingOverflow", "`flopspack_buckets_optimize`",
      "n x longest length overflows int64", FLOPSPACK_OUT_OF_RANGE,
      "2 samples x longest length 9223372036854775807 overflows int64",
      [](Outs& o) { return flopspack_buckets_optimize(kHuge, 2, 2, o.bounds); });
  add("BucketsLengthAboveBounds", "`flopspack_buckets_padding`", "a length above the last bound",
      FLOPSPACK_INVALID_ARGUMENT, "lengths[1] = 8 exceeds the largest upper bound 5", [](Outs& o) {
        static const int64_t bounds[] = {2, 5};
        return flopspack_buckets_padding(kThree, 3, bounds, 2, &o.i64);
      });
  add("BucketsDescending", "`flopspack_buckets_padding`, `flopspack_bucket_sampler_create`",
      "descending or non-positive bounds", FLOPSPACK_INVALID_ARGUMENT,
      "upper_bounds[1] = 5 is below upper_bounds[0] = 9", [](Outs& o) {
        static const int64_t bounds[] = {9, 5};
        return flopspack_buckets_padding(kThree, 3, bounds, 2, &o.i64);
      });

  // ---- The bucket sampler.
  add("SamplerBudget", "`flopspack_bucket_sampler_create`",
      "max_padded_tokens <= 0 (PADDED_TOKENS budget)", FLOPSPACK_INVALID_ARGUMENT,
      "max_padded_tokens = 0", [](Outs& o) {
        flopspack_bucket_sampler_options s = Sampler(0);
        return flopspack_bucket_sampler_create(&s, nullptr, kThree, 3, &o.sampler);
      });
  add("SamplerCostBudget", "`flopspack_bucket_sampler_create`",
      "max_batch_cost NaN, infinite or <= 0 (COST budget)", FLOPSPACK_INVALID_ARGUMENT,
      "max_batch_cost = nan", [](Outs& o) {
        flopspack_bucket_sampler_options s = Sampler(0);
        s.budget_kind = FLOPSPACK_BUCKET_BUDGET_COST;
        s.max_batch_cost = kNaN;
        return flopspack_bucket_sampler_create(&s, ErrorsTokens(), kThree, 3, &o.sampler);
      });
  add("SamplerCostWithoutModel", "`flopspack_bucket_sampler_create`",
      "a COST budget with a NULL model", FLOPSPACK_INVALID_ARGUMENT, "model", [](Outs& o) {
        flopspack_bucket_sampler_options s = Sampler(0);
        s.budget_kind = FLOPSPACK_BUCKET_BUDGET_COST;
        s.max_batch_cost = 100;
        return flopspack_bucket_sampler_create(&s, nullptr, kThree, 3, &o.sampler);
      });
  add("SamplerZeroBuckets", "`flopspack_bucket_sampler_create`",
      "num_buckets = 0 without explicit bounds", FLOPSPACK_INVALID_ARGUMENT, "num_buckets = 0",
      [](Outs& o) {
        flopspack_bucket_sampler_options s = Sampler(100);
        s.num_buckets = 0;
        return flopspack_bucket_sampler_create(&s, nullptr, kThree, 3, &o.sampler);
      });
  add("SamplerZeroRanks", "`flopspack_bucket_sampler_create`",
      "num_ranks = 0 or accumulation_steps = 0", FLOPSPACK_INVALID_ARGUMENT, "num_ranks = 0",
      [](Outs& o) {
        flopspack_bucket_sampler_options s = Sampler(100);
        s.num_ranks = 0;
        return flopspack_bucket_sampler_create(&s, nullptr, kThree, 3, &o.sampler);
      });
  add("SamplerHugeRanks", "`flopspack_bucket_sampler_create`",
      "num_ranks or accumulation_steps > 2^31 - 1", FLOPSPACK_OUT_OF_RANGE,
      "options->num_ranks = 4294967296 is too large", [](Outs& o) {
        flopspack_bucket_sampler_options s = Sampler(100);
        s.num_ranks = uint64_t{1} << 32;
        return flopspack_bucket_sampler_create(&s, nullptr, kThree, 3, &o.sampler);
      });
  add("SamplerEnum", "`flopspack_bucket_sampler_create`",
      "an unknown budget_kind; drop_last not 0 or 1", FLOPSPACK_INVALID_ARGUMENT,
      "options->drop_last = 2 must be 0 or 1", [](Outs& o) {
        flopspack_bucket_sampler_options s = Sampler(100);
        s.drop_last = 2;
        return flopspack_bucket_sampler_create(&s, nullptr, kThree, 3, &o.sampler);
      });
  add("SamplerBoundBelowSample", "`flopspack_bucket_sampler_create`",
      "explicit bounds below a sample", FLOPSPACK_INVALID_ARGUMENT, "lengths[1] = 8", [](Outs& o) {
        static const int64_t bounds[] = {3, 5};
        flopspack_bucket_sampler_options s = Sampler(100);
        s.upper_bounds = bounds;
        s.num_upper_bounds = 2;
        return flopspack_bucket_sampler_create(&s, nullptr, kThree, 3, &o.sampler);
      });
  add("SamplerSampleOverBudget", "`flopspack_bucket_sampler_create`",
      "a sample that alone breaks the budget (infeasible)", FLOPSPACK_INFEASIBLE,
      "lengths[1] = 8 exceeds max_padded_tokens = 6", [](Outs& o) {
        flopspack_bucket_sampler_options s = Sampler(6);
        return flopspack_bucket_sampler_create(&s, nullptr, kThree, 3, &o.sampler);
      });
  add("SamplerTooFewSamples", "`flopspack_bucket_sampler_create`",
      "too few samples for one step (pad last) or batches (drop last)", FLOPSPACK_INFEASIBLE,
      "pad_last: 3 samples cannot fill", [](Outs& o) {
        flopspack_bucket_sampler_options s = Sampler(100);
        s.num_ranks = 8;
        return flopspack_bucket_sampler_create(&s, nullptr, kThree, 3, &o.sampler);
      });
  add("SamplerCallbackFails", "`flopspack_bucket_sampler_create`, `_epoch`, `_step`",
      "the custom cost model fails, also while reporting an over-budget sample",
      FLOPSPACK_CALLBACK_FAILED, "custom cost callback returned 42", [](Outs& o) {
        // The first call (the sample's cost) succeeds and shows it is over
        // the budget; the second (for the message) fails.
        Countdown c{1};
        flopspack_cost_model* model = FailingModel(&c);
        flopspack_bucket_sampler_options s = Sampler(0);
        s.budget_kind = FLOPSPACK_BUCKET_BUDGET_COST;
        s.max_batch_cost = 5;
        static const int64_t one[] = {8};
        const flopspack_status st = flopspack_bucket_sampler_create(&s, model, one, 1, &o.sampler);
        flopspack_cost_model_destroy(model);
        return st;
      });
  add("SamplerCostSumOverflow", "`flopspack_bucket_sampler_epoch`, `_step`",
      "finite batch costs whose sum (or a batch's samples x sequence cost) overflows a double",
      FLOPSPACK_OUT_OF_RANGE, "batch cost: the sum of costs overflows a double", [](Outs& o) {
        static const int64_t eight[] = {8, 8, 8, 8};
        flopspack_bucket_sampler_options so = Sampler(8);
        flopspack_bucket_sampler* sampler = nullptr;
        flopspack_bucket_sampler_create(&so, ErrorsHuge(), eight, 4, &sampler);
        const flopspack_status s = flopspack_bucket_sampler_epoch(sampler, 0, &o.plan);
        flopspack_bucket_sampler_destroy(sampler);
        return s;
      });
  add("SamplerStepOutOfRange", "`flopspack_bucket_sampler_step`", "step >= steps per epoch",
      FLOPSPACK_OUT_OF_RANGE, "step 1000",
      [](Outs& o) { return flopspack_bucket_sampler_step(NewSampler(), 0, 1000, &o.plan); });
  add("SamplerDiversityBuffer", "`flopspack_bucket_sampler_step_diversity`",
      "a capacity below the step count", FLOPSPACK_BUFFER_TOO_SMALL,
      "capacity = 0 but the plan has", [](Outs& o) {
        flopspack_plan* plan = nullptr;
        flopspack_bucket_sampler_epoch(NewSampler(), 0, &plan);
        const flopspack_status s = flopspack_bucket_sampler_step_diversity(
            NewSampler(), plan, o.doubles, nullptr, 0, &o.size);
        flopspack_plan_destroy(plan);
        return s;
      });
  add("SamplerDiversityForeignPlan", "`flopspack_bucket_sampler_step_diversity`",
      "a plan without slots, or whose items are not this sampler's", FLOPSPACK_INVALID_ARGUMENT,
      "no ranks and slots", [](Outs& o) {
        return flopspack_bucket_sampler_step_diversity(NewSampler(), PackedPlan(), o.doubles,
                                                       nullptr, 4, &o.size);
      });
  add("SamplerOverflowPolicy", "`flopspack_bucket_sampler_create`",
      "overflow not ERROR, TRUNCATE or DEFER (SPLIT, or not an enum value)",
      FLOPSPACK_INVALID_ARGUMENT, "options->overflow = 2: the bucket sampler takes", [](Outs& o) {
        flopspack_bucket_sampler_options s = Sampler(100);
        s.overflow = FLOPSPACK_OVERFLOW_SPLIT;
        return flopspack_bucket_sampler_create(&s, nullptr, kThree, 3, &o.sampler);
      });
  add("SamplerDeferEverything", "`flopspack_bucket_sampler_create`",
      "overflow = DEFER and every sample breaks the budget", FLOPSPACK_INFEASIBLE,
      "overflow = defer: all 3 samples break the budget", [](Outs& o) {
        flopspack_bucket_sampler_options s = Sampler(1);
        s.overflow = FLOPSPACK_OVERFLOW_DEFER;
        return flopspack_bucket_sampler_create(&s, nullptr, kThree, 3, &o.sampler);
      });
  add("SamplerDiagnoseTarget", "`flopspack_bucket_sampler_diagnose`",
      "a target outside [0, 1] (or NaN)", FLOPSPACK_INVALID_ARGUMENT,
      "balance target = 1.5: targets are shares in [0, 1]", [](Outs& o) {
        return flopspack_bucket_sampler_diagnose(NewSampler(), 0, 1.5, 0.95, 0.1, &o.diagnostics);
      });
  add("BucketStreamBuffer", "`flopspack_bucket_stream_create`", "buffer_size 0 or above 2^40",
      FLOPSPACK_INVALID_ARGUMENT, "buffer_size = 0: must be in [1, 2^40]", [](Outs& o) {
        flopspack_bucket_sampler_options s = Sampler(100);
        flopspack_bucket_stream* stream = nullptr;
        const flopspack_status status = flopspack_bucket_stream_create(&s, nullptr, 0, &stream);
        if (stream != nullptr) o.u64 = 0;  // would show as touched
        return status;
      });
  add("BucketStreamPushAfterFlush", "`flopspack_bucket_stream_push`", "a push after flush",
      FLOPSPACK_INFEASIBLE, "push after flush: the stream has ended", [](Outs& o) {
        flopspack_bucket_sampler_options s = Sampler(100);
        flopspack_bucket_stream* stream = nullptr;
        flopspack_bucket_stream_create(&s, nullptr, 10, &stream);
        flopspack_bucket_stream_flush(stream);
        const flopspack_status status = flopspack_bucket_stream_push(stream, kThree, 3, &o.size);
        flopspack_bucket_stream_destroy(stream);
        return status;
      });
  add("BucketStreamChunkFails", "`flopspack_bucket_stream_push`",
      "a chunk cannot be sampled (e.g. an over-budget sample, overflow = ERROR)",
      FLOPSPACK_INFEASIBLE,
      "chunk 0 (stream samples 0..2): lengths[1] = 8 exceeds max_padded_tokens = 6", [](Outs& o) {
        flopspack_bucket_sampler_options s = Sampler(6);
        flopspack_bucket_stream* stream = nullptr;
        flopspack_bucket_stream_create(&s, nullptr, 3, &stream);
        const flopspack_status status = flopspack_bucket_stream_push(stream, kThree, 3, &o.size);
        flopspack_bucket_stream_destroy(stream);
        return status;
      });
  add("BucketStreamNothingReady", "`flopspack_bucket_stream_take`", "no step is ready",
      FLOPSPACK_OUT_OF_RANGE, "no step is ready: push more lengths", [](Outs& o) {
        flopspack_bucket_sampler_options s = Sampler(100);
        flopspack_bucket_stream* stream = nullptr;
        flopspack_bucket_stream_create(&s, nullptr, 10, &stream);
        const flopspack_status status = flopspack_bucket_stream_take(stream, &o.plan);
        flopspack_bucket_stream_destroy(stream);
        return status;
      });

  // ---- The streaming packer.
  add("StreamCapacity", "`flopspack_stream_packer_create`", "capacity outside [1, 2^24]",
      FLOPSPACK_INVALID_ARGUMENT, "capacity = 0 must be in [1, 16777216]", [](Outs& o) {
        flopspack_stream_options s = Stream(0);
        return flopspack_stream_packer_create(&s, nullptr, &o.packer);
      });
  add("StreamWindow", "`flopspack_stream_packer_create`", "window = 0 or > 2^40",
      FLOPSPACK_INVALID_ARGUMENT, "window = 0", [](Outs& o) {
        flopspack_stream_options s = Stream(100);
        s.window = 0;
        return flopspack_stream_packer_create(&s, nullptr, &o.packer);
      });
  add("StreamOverflowPolicy", "`flopspack_stream_packer_create`",
      "an overflow value it does not take (DEFER)", FLOPSPACK_INVALID_ARGUMENT, "overflow = 3",
      [](Outs& o) {
        flopspack_stream_options s = Stream(100);
        s.overflow = FLOPSPACK_OVERFLOW_DEFER;
        return flopspack_stream_packer_create(&s, nullptr, &o.packer);
      });
  add("StreamPushOverCapacity", "`flopspack_stream_packer_push`",
      "a document over the capacity under ERROR (nothing pushed)", FLOPSPACK_INVALID_ARGUMENT,
      "lengths[0] = 150 exceeds the capacity 100", [](Outs&) {
        flopspack_stream_packer* packer = NewPacker(FLOPSPACK_OVERFLOW_ERROR);
        static const int64_t lengths[] = {150, 5};
        const flopspack_status s = flopspack_stream_packer_push(packer, lengths, 2);
        flopspack_stream_totals t;
        t.struct_size = sizeof(t);
        flopspack_stream_packer_totals(packer, &t);
        flopspack_stream_packer_destroy(packer);
        return t.documents_pushed == 0 ? s : FLOPSPACK_INTERNAL;
      });
  add("StreamPushTruncatedOverflow", "`flopspack_stream_packer_push`",
      "TRUNCATE: truncated tokens whose count overflows int64 (nothing pushed)",
      FLOPSPACK_OUT_OF_RANGE, "the truncated-token count would overflow int64", [](Outs&) {
        flopspack_stream_packer* packer = NewPacker(FLOPSPACK_OVERFLOW_TRUNCATE);
        static const int64_t lengths[] = {kInt64Max, kInt64Max};
        const flopspack_status s = flopspack_stream_packer_push(packer, lengths, 2);
        flopspack_stream_totals t;
        t.struct_size = sizeof(t);
        flopspack_stream_packer_totals(packer, &t);
        flopspack_stream_packer_destroy(packer);
        return t.documents_pushed == 0 ? s : FLOPSPACK_INTERNAL;
      });
  add("StreamPushTooManyPieces", "`flopspack_stream_packer_push`",
      "SPLIT: more than 2^24 pieces in the pending chunk (nothing pushed)", FLOPSPACK_OUT_OF_RANGE,
      "lengths[0] = 1099511627776: split at capacity 100", [](Outs&) {
        flopspack_stream_packer* packer = NewPacker(FLOPSPACK_OVERFLOW_SPLIT);
        static const int64_t lengths[] = {int64_t{1} << 40};
        const flopspack_status s = flopspack_stream_packer_push(packer, lengths, 1);
        flopspack_stream_totals t;
        t.struct_size = sizeof(t);
        flopspack_stream_packer_totals(packer, &t);
        flopspack_stream_packer_destroy(packer);
        return t.documents_pushed == 0 && t.pieces_held == 0 ? s : FLOPSPACK_INTERNAL;
      });
  add("StreamTakeCostSumOverflow", "`flopspack_stream_packer_take`",
      "finite sequence costs whose sum overflows a double (the sequences stay ready)",
      FLOPSPACK_OUT_OF_RANGE, "sequence cost: the sum of costs overflows a double", [](Outs& o) {
        flopspack_stream_options so = Stream(100);
        flopspack_stream_packer* packer = nullptr;
        flopspack_stream_packer_create(&so, ErrorsHuge(), &packer);
        static const int64_t full[] = {100, 100, 100};
        flopspack_stream_packer_push(packer, full, 3);
        flopspack_stream_packer_flush(packer);
        const flopspack_status s = flopspack_stream_packer_take(packer, &o.plan);
        size_t ready = 0;
        flopspack_stream_packer_ready(packer, &ready);
        flopspack_stream_packer_destroy(packer);
        return ready == 3 ? s : FLOPSPACK_INTERNAL;
      });
  add("StreamSaveBufferTooSmall", "`flopspack_stream_packer_save`",
      "a buffer smaller than the state", FLOPSPACK_BUFFER_TOO_SMALL, "", [](Outs& o) {
        flopspack_stream_packer* packer = NewPacker(FLOPSPACK_OVERFLOW_SPLIT);
        std::vector<int64_t> lengths(50, 7);
        flopspack_stream_packer_push(packer, lengths.data(), lengths.size());
        size_t needed = 0;
        const flopspack_status s =
            flopspack_stream_packer_save(packer, o.buffer, sizeof(o.buffer), &needed);
        flopspack_stream_packer_destroy(packer);
        return needed > sizeof(o.buffer) ? s : FLOPSPACK_INTERNAL;
      });
  add("StreamRestoreCorrupt", "`flopspack_stream_packer_restore`",
      "corrupted, truncated or foreign bytes", FLOPSPACK_INVALID_ARGUMENT,
      "stream packer state: bad magic", [](Outs& o) {
        static const char junk[] = "definitely not a stream packer state";
        return flopspack_stream_packer_restore(junk, sizeof(junk), nullptr, &o.packer);
      });

  add("StreamRestoreVersion1", "`flopspack_stream_packer_restore`",
      "bytes saved before piece offsets were kept (format version 1)", FLOPSPACK_INVALID_ARGUMENT,
      "stream packer state: format version 1, this library reads version 2", [](Outs& o) {
        flopspack_stream_options options = Stream(100);
        flopspack_stream_packer* packer = nullptr;
        flopspack_stream_packer_create(&options, nullptr, &packer);
        size_t size = 0;
        flopspack_stream_packer_save(packer, nullptr, 0, &size);
        std::string bytes(size, '\0');
        flopspack_stream_packer_save(packer, bytes.data(), size, &size);
        flopspack_stream_packer_destroy(packer);
        PutI64(bytes, 8, 1);
        Reseal(bytes);
        return flopspack_stream_packer_restore(bytes.data(), bytes.size(), nullptr, &o.packer);
      });

  // ---- Statistics.
  add("StatsEmptyQuantile", "`flopspack_stats_quantile`, `_weighted_quantile`, `_expected_max`",
      "an empty dataset", FLOPSPACK_INVALID_ARGUMENT, "empty dataset", [](Outs& o) {
        flopspack_stats* stats = nullptr;
        flopspack_stats_create(nullptr, 0, nullptr, &stats);
        const flopspack_status s = flopspack_stats_quantile(stats, 0.5, &o.real);
        flopspack_stats_destroy(stats);
        return s;
      });
  add("StatsQuantileRange", "`flopspack_stats_quantile`, `_weighted_quantile`",
      "q outside [0, 1] or NaN", FLOPSPACK_INVALID_ARGUMENT, "q = 1.5", [](Outs& o) {
        flopspack_stats* stats = nullptr;
        flopspack_stats_create(kThree, 3, nullptr, &stats);
        const flopspack_status s = flopspack_stats_quantile(stats, 1.5, &o.real);
        flopspack_stats_destroy(stats);
        return s;
      });
  add("StatsUnknownWeighting",
      "`flopspack_stats_cdf`, `_weighted_quantile`, `_histogram`, "
      "`_ks_distance_weighted`",
      "an unknown weighting", FLOPSPACK_INVALID_ARGUMENT, "weighting = 9", [](Outs& o) {
        flopspack_stats* stats = nullptr;
        flopspack_stats_create(kThree, 3, nullptr, &stats);
        const flopspack_status s = flopspack_stats_cdf(stats, 9, 4, &o.real);
        flopspack_stats_destroy(stats);
        return s;
      });
  add("StatsCostWithoutModel", "every statistics query taking a weighting",
      "cost weighting on statistics built without a model", FLOPSPACK_INVALID_ARGUMENT,
      "without a cost model", [](Outs& o) {
        flopspack_stats* stats = nullptr;
        flopspack_stats_create(kThree, 3, nullptr, &stats);
        const flopspack_status s =
            flopspack_stats_cdf(stats, FLOPSPACK_STATS_WEIGHT_COST, 4, &o.real);
        flopspack_stats_destroy(stats);
        return s;
      });
  add("StatsZeroDraws", "`flopspack_stats_expected_max`", "draws = 0", FLOPSPACK_INVALID_ARGUMENT,
      "draws = 0", [](Outs& o) {
        flopspack_stats* stats = nullptr;
        flopspack_stats_create(kThree, 3, nullptr, &stats);
        const flopspack_status s = flopspack_stats_expected_max(stats, 0, &o.real);
        flopspack_stats_destroy(stats);
        return s;
      });
  add("StatsMergeDifferentModels", "`flopspack_stats_merge`",
      "statistics built with different cost models (or one without)", FLOPSPACK_INVALID_ARGUMENT,
      "cannot merge statistics", [](Outs& o) {
        flopspack_stats* a = nullptr;
        flopspack_stats* b = nullptr;
        flopspack_stats_create(kThree, 3, nullptr, &a);
        flopspack_stats_create(kThree, 3, ErrorsTokens(), &b);
        flopspack_stats* merged = reinterpret_cast<flopspack_stats*>(o.plan);
        const flopspack_status s = flopspack_stats_merge(a, b, &merged);
        flopspack_stats_destroy(a);
        flopspack_stats_destroy(b);
        return merged == reinterpret_cast<flopspack_stats*>(o.plan) ? s : FLOPSPACK_INTERNAL;
      });
  add("StatsNegativeCostCapacity", "`flopspack_stats_create_with_options`", "cost_capacity < 0",
      FLOPSPACK_INVALID_ARGUMENT,
      "flopspack_stats_options->cost_capacity = -1: must be 0 (documents costed whole) or a "
      "positive sequence length",
      [](Outs& o) {
        flopspack_stats_options options;
        flopspack_stats_options_init(&options);
        options.cost_capacity = -1;
        flopspack_stats* stats = reinterpret_cast<flopspack_stats*>(o.plan);
        const flopspack_status s = flopspack_stats_create_with_options(
            kThree, nullptr, 3, ErrorsTokens(), &options, &stats);
        return stats == reinterpret_cast<flopspack_stats*>(o.plan) ? s : FLOPSPACK_INTERNAL;
      });
  add("StatsMergeDifferentCostCapacity", "`flopspack_stats_merge`",
      "statistics costed for different sequence lengths (cost_capacity)",
      FLOPSPACK_INVALID_ARGUMENT,
      "cannot merge statistics costed for different sequence lengths: cost_capacity 0 in a and "
      "2 in b",
      [](Outs& o) {
        flopspack_stats_options options;
        flopspack_stats_options_init(&options);
        options.cost_capacity = 2;
        flopspack_stats* a = nullptr;
        flopspack_stats* b = nullptr;
        flopspack_stats_create(kThree, 3, ErrorsTokens(), &a);
        flopspack_stats_create_with_options(kThree, nullptr, 3, ErrorsTokens(), &options, &b);
        flopspack_stats* merged = reinterpret_cast<flopspack_stats*>(o.plan);
        const flopspack_status s = flopspack_stats_merge(a, b, &merged);
        flopspack_stats_destroy(a);
        flopspack_stats_destroy(b);
        return merged == reinterpret_cast<flopspack_stats*>(o.plan) ? s : FLOPSPACK_INTERNAL;
      });
  add("StatsHistogramCountsOverflow", "`flopspack_stats_create_from_histogram`",
      "counts whose token total overflows int64", FLOPSPACK_OUT_OF_RANGE, "overflows int64",
      [](Outs& o) {
        static const int64_t lengths[] = {1 << 20};
        static const uint64_t counts[] = {uint64_t{1} << 50};
        flopspack_stats* stats = reinterpret_cast<flopspack_stats*>(o.plan);
        const flopspack_status s =
            flopspack_stats_create_from_histogram(lengths, counts, 1, nullptr, &stats);
        return stats == reinterpret_cast<flopspack_stats*>(o.plan) ? s : FLOPSPACK_INTERNAL;
      });
  add("StatsCostSumOverflow", "`flopspack_stats_create`, `_create_from_histogram`, `_merge`",
      "finite document costs whose total overflows a double", FLOPSPACK_OUT_OF_RANGE,
      "the total cost of the documents overflows a double", [](Outs& o) {
        static const int64_t eight[] = {8, 8, 8};
        auto* stats = reinterpret_cast<flopspack_stats*>(o.plan);
        const flopspack_status s = flopspack_stats_create(eight, 3, ErrorsHuge(), &stats);
        return stats == reinterpret_cast<flopspack_stats*>(o.plan) ? s : FLOPSPACK_INTERNAL;
      });
  add("StatsHistogramBuffer", "`flopspack_stats_histogram`, `_entries`",
      "a capacity below the number of bins or entries (nothing written)",
      FLOPSPACK_BUFFER_TOO_SMALL, "capacity = 2 but the histogram has", [](Outs& o) {
        flopspack_stats* stats = nullptr;
        flopspack_stats_create(kThree, 3, nullptr, &stats);
        const flopspack_status s =
            flopspack_stats_histogram(stats, nullptr, o.bounds, o.doubles, 2, &o.size);
        flopspack_stats_destroy(stats);
        return s;
      });
  add("StatsCallbackFails", "`flopspack_stats_create`, `_create_from_histogram`",
      "the custom cost model fails", FLOPSPACK_CALLBACK_FAILED, "custom cost callback returned 42",
      [](Outs& o) {
        Countdown c{0};
        flopspack_cost_model* model = FailingModel(&c);
        flopspack_stats* stats = reinterpret_cast<flopspack_stats*>(o.plan);
        const flopspack_status s = flopspack_stats_create(kThree, 3, model, &stats);
        flopspack_cost_model_destroy(model);
        return stats == reinterpret_cast<flopspack_stats*>(o.plan) ? s : FLOPSPACK_INTERNAL;
      });

  // ---- The straggler emulator.
  add("SimulateEmpty", "`flopspack_simulate`, `_sweep`", "no documents (n = 0)",
      FLOPSPACK_INVALID_ARGUMENT, "lengths is empty", [](Outs& o) {
        auto* result = reinterpret_cast<flopspack_simulate_result*>(o.plan);
        const flopspack_status s = flopspack_simulate(kThree, 0, ErrorsTokens(), nullptr, &result);
        return result == reinterpret_cast<flopspack_simulate_result*>(o.plan) ? s
                                                                              : FLOPSPACK_INTERNAL;
      });
  add("SimulateZeroRanks", "`flopspack_simulate`", "num_ranks = 0 (or another option out of range)",
      FLOPSPACK_INVALID_ARGUMENT, "num_ranks = 0", [](Outs& o) {
        flopspack_simulate_options so;
        flopspack_simulate_options_init(&so);
        so.num_ranks = 0;
        auto* result = reinterpret_cast<flopspack_simulate_result*>(o.plan);
        const flopspack_status s = flopspack_simulate(kThree, 3, ErrorsTokens(), &so, &result);
        return result == reinterpret_cast<flopspack_simulate_result*>(o.plan) ? s
                                                                              : FLOPSPACK_INTERNAL;
      });
  add("SimulatePolicy", "`flopspack_simulate`", "an unknown policy", FLOPSPACK_INVALID_ARGUMENT,
      "policy = 77", [](Outs& o) {
        flopspack_simulate_options so;
        flopspack_simulate_options_init(&so);
        so.policy = 77;
        auto* result = reinterpret_cast<flopspack_simulate_result*>(o.plan);
        const flopspack_status s = flopspack_simulate(kThree, 3, ErrorsTokens(), &so, &result);
        return result == reinterpret_cast<flopspack_simulate_result*>(o.plan) ? s
                                                                              : FLOPSPACK_INTERNAL;
      });
  add("SimulateSync", "`flopspack_simulate`, `_sweep`",
      "an unknown sync or pipeline_schedule value", FLOPSPACK_INVALID_ARGUMENT,
      "flopspack_simulate_options.sync = 2", [](Outs& o) {
        flopspack_simulate_options so;
        flopspack_simulate_options_init(&so);
        so.sync = 2;
        auto* result = reinterpret_cast<flopspack_simulate_result*>(o.plan);
        const flopspack_status s = flopspack_simulate(kThree, 3, ErrorsTokens(), &so, &result);
        return result == reinterpret_cast<flopspack_simulate_result*>(o.plan) ? s
                                                                              : FLOPSPACK_INTERNAL;
      });
  add("SimulatePipelineStages", "`flopspack_simulate`, `_sweep`", "pipeline_stages over 1024",
      FLOPSPACK_INVALID_ARGUMENT, "flopspack_simulate_options.pipeline_stages = 1025", [](Outs& o) {
        flopspack_simulate_options so;
        flopspack_simulate_options_init(&so);
        so.pipeline_stages = 1025;
        auto* result = reinterpret_cast<flopspack_simulate_result*>(o.plan);
        const flopspack_status s = flopspack_simulate(kThree, 3, ErrorsTokens(), &so, &result);
        return result == reinterpret_cast<flopspack_simulate_result*>(o.plan) ? s
                                                                              : FLOPSPACK_INTERNAL;
      });
  add("SimulateNullModel", "`flopspack_simulate`, `_sweep`", "a NULL cost model (required)",
      FLOPSPACK_INVALID_ARGUMENT, "model must not be NULL", [](Outs& o) {
        auto* result = reinterpret_cast<flopspack_simulate_result*>(o.plan);
        const flopspack_status s = flopspack_simulate(kThree, 3, nullptr, nullptr, &result);
        return result == reinterpret_cast<flopspack_simulate_result*>(o.plan) ? s
                                                                              : FLOPSPACK_INTERNAL;
      });
  add("SimulateCancelled", "`flopspack_simulate`, `_sweep`",
      "the progress callback returns non-zero", FLOPSPACK_CANCELLED,
      "cancelled by the progress callback after 1 of", [](Outs& o) {
        flopspack_simulate_options so;
        flopspack_simulate_options_init(&so);
        so.num_ranks = 4;
        so.tokens_per_microbatch = 8;
        so.num_steps = 5;
        so.progress = [](void*, uint64_t, uint64_t) { return 1; };
        auto* result = reinterpret_cast<flopspack_simulate_result*>(o.plan);
        const flopspack_status s = flopspack_simulate(kThree, 3, ErrorsTokens(), &so, &result);
        return result == reinterpret_cast<flopspack_simulate_result*>(o.plan) ? s
                                                                              : FLOPSPACK_INTERNAL;
      });
  add("SimulateCallbackFails", "`flopspack_simulate`, `_sweep`", "the custom cost model fails",
      FLOPSPACK_CALLBACK_FAILED, "custom cost callback returned 42", [](Outs& o) {
        Countdown c{0};
        flopspack_cost_model* model = FailingModel(&c);
        flopspack_simulate_options so;
        flopspack_simulate_options_init(&so);
        so.num_ranks = 4;
        so.tokens_per_microbatch = 8;
        so.num_steps = 2;
        auto* result = reinterpret_cast<flopspack_simulate_result*>(o.plan);
        const flopspack_status s = flopspack_simulate(kThree, 3, model, &so, &result);
        flopspack_cost_model_destroy(model);
        return result == reinterpret_cast<flopspack_simulate_result*>(o.plan) ? s
                                                                              : FLOPSPACK_INTERNAL;
      });
  add("SimulateCostSumOverflow", "`flopspack_simulate`, `_sweep`",
      "finite microbatch costs whose rank or step sums overflow a double", FLOPSPACK_OUT_OF_RANGE,
      "rank cost: the costs of step 0 sum past what a double holds", [](Outs& o) {
        static const int64_t eight[] = {8, 8, 8, 8};
        flopspack_simulate_options so;
        flopspack_simulate_options_init(&so);
        so.num_ranks = 1;
        so.microbatches_per_rank = 3;
        so.tokens_per_microbatch = 8;
        so.num_steps = 2;
        auto* result = reinterpret_cast<flopspack_simulate_result*>(o.plan);
        const flopspack_status s = flopspack_simulate(eight, 4, ErrorsHuge(), &so, &result);
        return result == reinterpret_cast<flopspack_simulate_result*>(o.plan) ? s
                                                                              : FLOPSPACK_INTERNAL;
      });
  add("SimulateExtraCostNegative",
      "`flopspack_simulate_with_extra_costs`, `flopspack_simulate_sweep_with_extra_costs`",
      "a negative, NaN or infinite extra cost", FLOPSPACK_INVALID_ARGUMENT,
      "extra_costs[2] = -1: every extra cost must be finite", [](Outs& o) {
        static const double extra[] = {0, 1, -1};
        auto* result = reinterpret_cast<flopspack_simulate_result*>(o.plan);
        const flopspack_status s =
            flopspack_simulate_with_extra_costs(kThree, extra, 3, ErrorsTokens(), nullptr, &result);
        return result == reinterpret_cast<flopspack_simulate_result*>(o.plan) ? s
                                                                              : FLOPSPACK_INTERNAL;
      });
  add("SimulateExtraCostSumOverflow",
      "`flopspack_simulate_with_extra_costs`, `flopspack_simulate_sweep_with_extra_costs`",
      "finite extra costs whose sum overflows a double", FLOPSPACK_OUT_OF_RANGE,
      "extra_costs: the sum of costs overflows a double at index 1", [](Outs& o) {
        static const double extra[] = {1e308, 1e308, 0};
        auto* result = reinterpret_cast<flopspack_simulate_result*>(o.plan);
        const flopspack_status s =
            flopspack_simulate_with_extra_costs(kThree, extra, 3, ErrorsTokens(), nullptr, &result);
        return result == reinterpret_cast<flopspack_simulate_result*>(o.plan) ? s
                                                                              : FLOPSPACK_INTERNAL;
      });
  add("SimulateExtraCostNullLengths",
      "`flopspack_simulate_with_extra_costs`, `flopspack_simulate_sweep_with_extra_costs`",
      "NULL lengths with n > 0", FLOPSPACK_INVALID_ARGUMENT, "lengths is NULL but its length is 3",
      [](Outs& o) {
        static const double extra[] = {0, 1, 2};
        auto* result = reinterpret_cast<flopspack_simulate_result*>(o.plan);
        const flopspack_status s = flopspack_simulate_with_extra_costs(
            nullptr, extra, 3, ErrorsTokens(), nullptr, &result);
        return result == reinterpret_cast<flopspack_simulate_result*>(o.plan) ? s
                                                                              : FLOPSPACK_INTERNAL;
      });
  add("SimulateSeriesNotRecorded", "`flopspack_simulate_result_series`",
      "a series asked for but not recorded (record_steps = 0)", FLOPSPACK_INVALID_ARGUMENT,
      "record_steps", [](Outs& o) {
        flopspack_simulate_options so;
        flopspack_simulate_options_init(&so);
        so.num_ranks = 2;
        so.tokens_per_microbatch = 8;
        so.num_steps = 1;
        flopspack_simulate_result* result = nullptr;
        flopspack_simulate(kThree, 3, ErrorsTokens(), &so, &result);
        const flopspack_status s = flopspack_simulate_result_series(
            result, FLOPSPACK_SIM_SERIES_STEP_TIME, o.doubles, 4, &o.size);
        flopspack_simulate_result_destroy(result);
        return s;
      });
  // ---- flopspack_plan_shard_context_parallel.
  // A step plan of the three documents 5, 8, 1 on two ranks, then sharded.
  const auto shard_with = [](const flopspack_cost_model* model, uint64_t c, int layout, Outs& o) {
    flopspack_step_options s = Step(2, 1, 16);
    flopspack_plan* plan = nullptr;
    flopspack_plan_step(&s, ErrorsTokens(), kThree, 3, &plan);
    const flopspack_status status =
        flopspack_plan_shard_context_parallel(plan, model, c, layout, &o.shard);
    flopspack_plan_destroy(plan);
    return status;
  };
  add("CpSizeZero", "`flopspack_plan_shard_context_parallel`", "context_parallel_size = 0",
      FLOPSPACK_INVALID_ARGUMENT, "context_parallel_size = 0 must be in [1, 65536]",
      [=](Outs& o) { return shard_with(ErrorsTokens(), 0, FLOPSPACK_CP_ADAPTIVE, o); });
  add("CpSizeTooLarge", "`flopspack_plan_shard_context_parallel`", "context_parallel_size > 65536",
      FLOPSPACK_INVALID_ARGUMENT, "context_parallel_size = 65537 must be in [1, 65536]",
      [=](Outs& o) { return shard_with(ErrorsTokens(), 65537, FLOPSPACK_CP_ADAPTIVE, o); });
  add("CpLayout", "`flopspack_plan_shard_context_parallel`", "an unknown layout",
      FLOPSPACK_INVALID_ARGUMENT, "layout = 3 is not a flopspack_cp_layout value",
      [=](Outs& o) { return shard_with(ErrorsTokens(), 2, 3, o); });
  add("CpNullPlan", "`flopspack_plan_shard_context_parallel`", "plan, model or out NULL",
      FLOPSPACK_INVALID_ARGUMENT, "plan must not be NULL", [](Outs& o) {
        return flopspack_plan_shard_context_parallel(nullptr, ErrorsTokens(), 2,
                                                     FLOPSPACK_CP_ADAPTIVE, &o.shard);
      });
  add("CpNotAdditive", "`flopspack_plan_shard_context_parallel`",
      "a custom model or a transformer with attention across the sequence",
      FLOPSPACK_INVALID_ARGUMENT, "needs an additive cost model",
      [=](Outs& o) { return shard_with(ErrorsHuge(), 2, FLOPSPACK_CP_DOCUMENT_HEAD_TAIL, o); });
  return rows;
}

class ErrorsTest : public testing::TestWithParam<Row> {};

TEST_P(ErrorsTest, Reports) {
  const Row& row = GetParam();
  Outs outs;
  const flopspack_status status = row.call(outs);
  EXPECT_EQ(status, row.status) << flopspack_status_string(status) << ": "
                                << flopspack_last_error_message();
  const std::string message = flopspack_last_error_message();
  EXPECT_NE(message.find(row.fragment), std::string::npos) << "message: " << message;
  EXPECT_TRUE(Untouched(outs)) << "an out-parameter was written on failure";
  if (const char* path = std::getenv("FLOPSPACK_ERRORS_TABLE")) {
    std::string quoted = message;
    for (size_t at = 0; (at = quoted.find('|', at)) != std::string::npos; at += 2) {
      quoted.insert(at, "\\");
    }
    std::ofstream(path, std::ios::app)
        << "| " << row.entry << " | " << row.input << " | `" << flopspack_status_string(status)
        << "` | `" << quoted << "` | `ErrorsTest/Rows." << row.name << "` |\n";
  }
}

INSTANTIATE_TEST_SUITE_P(Rows, ErrorsTest, testing::ValuesIn(Rows()),
                         [](const testing::TestParamInfo<Row>& row_info) {
                           return row_info.param.name;
                         });

// docs/errors.md lists every row by its test name, with the exact message.
TEST(ErrorsTableTest, DocsListEveryRowWithItsMessage) {
  // FLOPSPACK_GOLDEN_DIR is <source root>/tests/golden (which need not exist).
  std::string root = FLOPSPACK_GOLDEN_DIR;
  root = root.substr(0, root.rfind("/tests/golden"));
  std::ifstream file(root + "/docs/errors.md");
  ASSERT_TRUE(file.good()) << "docs/errors.md not found";
  std::stringstream text;
  text << file.rdbuf();
  const std::string doc = text.str();
  for (const Row& row : Rows()) {
    Outs outs;
    row.call(outs);
    const std::string message = flopspack_last_error_message();
    EXPECT_NE(doc.find("`ErrorsTest/Rows." + row.name + "`"), std::string::npos)
        << row.name << " is not in docs/errors.md";
    std::string quoted = message;
    for (size_t at = 0; (at = quoted.find('|', at)) != std::string::npos; at += 2) {
      quoted.insert(at, "\\");
    }
    EXPECT_NE(doc.find("`" + quoted + "`"), std::string::npos)
        << row.name << ": docs/errors.md does not quote the real message: " << message;
  }
}

}  // namespace
