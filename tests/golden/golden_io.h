// Shared by the golden generator and tests/capi/golden_test.cc: the fields of
// the C output structs as (name, kind) lists, model construction from a JSON
// spec, and a small JSON writer. Doubles are written with 17 significant
// digits (always with a '.' or an exponent), which every reader (strtod,
// Python float, Go ParseFloat, Rust parse) turns back into the same bits.
#ifndef FLOPSPACK_TESTS_GOLDEN_GOLDEN_IO_H_
#define FLOPSPACK_TESTS_GOLDEN_GOLDEN_IO_H_

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "flopspack/flopspack.h"
#include "json_reader.h"

// X(field, kind): kind u = uint64, i = int64, d = double.
// clang-format off
#define FLOPSPACK_GOLDEN_PLAN_METRICS(X)                                        \
  X(num_groups, u) X(num_items, u) X(max_group_cost, d) X(mean_group_cost, d)   \
  X(min_group_cost, d) X(total_cost, d) X(balance_efficiency, d)                \
  X(lower_bound, d) X(gap_to_lower_bound, d) X(real_tokens, i)                  \
  X(computed_tokens, i) X(capacity, i) X(fill, d) X(padding_efficiency, d)      \
  X(num_ranks, u) X(microbatches_per_rank, u) X(max_rank_cost, d)               \
  X(mean_rank_cost, d) X(rank_balance_efficiency, d) X(rank_lower_bound, d)     \
  X(rank_gap_to_lower_bound, d) X(worst_slot_balance, d) X(split_items, u)      \
  X(truncated_items, u) X(deferred_items, u) X(dropped_items, u)                \
  X(truncated_tokens, i) X(deferred_tokens, i) X(dropped_tokens, i)             \
  X(num_steps, u) X(diversity_distance, d) X(diversity_distance_samples, d)  \
  X(planned_by, i)

#define FLOPSPACK_GOLDEN_FIT_REPORT(X)                                          \
  X(per_sequence, d) X(per_document, d) X(linear, d) X(quadratic, d)            \
  X(r_squared, d) X(rms_residual, d) X(num_samples, u)

#define FLOPSPACK_GOLDEN_STREAM_TOTALS(X)                                       \
  X(documents_pushed, u) X(pieces_held, u) X(sequences_emitted, u)              \
  X(tokens_emitted, i) X(split_documents, u) X(truncated_documents, u)          \
  X(truncated_tokens, i)

#define FLOPSPACK_GOLDEN_STATS_SUMMARY(X)                                       \
  X(count, u) X(distinct_lengths, u) X(tokens, i) X(mean, d) X(stddev, d)       \
  X(min, i) X(max, i) X(p50, i) X(p90, i) X(p99, i) X(p999, i) X(has_cost, i)   \
  X(total_cost, d) X(mean_cost, d) X(max_cost, d)

#define FLOPSPACK_GOLDEN_STATS_TAIL(X)                                          \
  X(documents, u) X(tokens, i) X(cost, d) X(document_share, d)                  \
  X(token_share, d) X(cost_share, d)

#define FLOPSPACK_GOLDEN_STATS_COMPARISON(X)                                    \
  X(ks_distance, d) X(ks_length, i) X(ks_distance_tokens, d)                    \
  X(ks_length_tokens, i) X(first_divergent_level, d) X(tail_threshold, i)       \
  X(token_share_above_a, d) X(token_share_above_b, d)                           \
  X(cost_share_above_a, d) X(cost_share_above_b, d)

#define FLOPSPACK_GOLDEN_SIMULATE_SUMMARY(X)                                    \
  X(num_steps, u) X(num_ranks, u) X(microbatches_per_rank, u)                   \
  X(documents_drawn, u) X(epochs, u) X(mean_balance_efficiency, d)              \
  X(p5_balance_efficiency, d) X(p50_balance_efficiency, d)                      \
  X(p95_balance_efficiency, d) X(mean_fill, d) X(mean_padding_efficiency, d)    \
  X(relative_throughput, d) X(mean_step_time, d) X(predicted_efficiency, d)     \
  X(real_tokens, i) X(computed_tokens, i)

#define FLOPSPACK_GOLDEN_CP_METRICS(X)                                          \
  X(context_parallel_size, u) X(num_groups, u) X(num_chunks, u)                 \
  X(balance_efficiency, d) X(worst_balance, d) X(max_cp_rank_cost, d)           \
  X(mean_cp_rank_cost, d) X(kv_tokens, i) X(sequence_layout_groups, u)          \
  X(document_layout_groups, u)
// clang-format on

namespace golden {

// Builds the cost model a JSON spec describes ({"kind": ...}); nullptr for
// a JSON null (the library's default, tokens). Throws on failure.
inline flopspack_cost_model* MakeModel(const Value& spec) {
  if (spec.kind == Value::kNull) return nullptr;
  flopspack_cost_model* model = nullptr;
  flopspack_status status = FLOPSPACK_INTERNAL;
  const std::string& kind = spec["kind"].text;
  if (kind == "tokens") {
    status = flopspack_cost_model_tokens(&model);
  } else if (kind == "polynomial") {
    status = flopspack_cost_model_polynomial(
        spec["per_sequence"].AsDouble(), spec["per_document"].AsDouble(), spec["linear"].AsDouble(),
        spec["quadratic"].AsDouble(), &model);
  } else if (kind == "transformer") {
    flopspack_transformer_config c;
    flopspack_transformer_config_init(&c);
    c.num_layers = spec["num_layers"].AsInt();
    c.hidden_size = spec["hidden_size"].AsInt();
    c.num_attention_heads = spec["num_attention_heads"].AsInt();
    c.num_key_value_heads = spec["num_key_value_heads"].AsInt();
    c.head_dim = spec["head_dim"].AsInt();
    c.intermediate_size = spec["intermediate_size"].AsInt();
    c.vocab_size = spec["vocab_size"].AsInt();
    c.gated_mlp = static_cast<int32_t>(spec["gated_mlp"].AsInt());
    c.causal = static_cast<int32_t>(spec["causal"].AsInt());
    c.recompute = static_cast<int32_t>(spec["recompute"].AsInt());
    c.attention_span = static_cast<int32_t>(spec["attention_span"].AsInt());
    status = flopspack_cost_model_transformer(&c, &model);
  } else if (kind == "fit") {
    flopspack_fit_options options;
    flopspack_fit_options_init(&options);
    options.terms = static_cast<uint32_t>(spec["terms"].AsInt());
    const std::vector<int64_t> lengths = spec["lengths"].AsInts();
    std::vector<size_t> offsets;
    for (int64_t o : spec["offsets"].AsInts()) offsets.push_back(static_cast<size_t>(o));
    const std::vector<double> seconds = spec["seconds"].AsDoubles();
    status = flopspack_cost_model_fit(&options, lengths.data(), offsets.data(), seconds.data(),
                                      seconds.size(), nullptr, &model);
  } else {
    throw std::runtime_error("unknown model kind " + kind);
  }
  if (status != FLOPSPACK_OK) {
    throw std::runtime_error(std::string("model: ") + flopspack_last_error_message());
  }
  return model;
}

// A tiny JSON writer: values are appended with separators handled by the
// caller through Key()/Item() helpers.
class Writer {
 public:
  std::string out;
  void Raw(const std::string& s) { out += s; }
  void Key(const std::string& key) { out += "\"" + key + "\": "; }
  void Str(const std::string& s) { out += "\"" + s + "\""; }
  void Int(int64_t v) { out += std::to_string(v); }
  void UInt(uint64_t v) { out += std::to_string(v); }
  void Double(double v) {
    if (v != v) {  // NaN (a prediction that does not apply): JSON has none
      out += "\"nan\"";
      return;
    }
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.17g", v);
    std::string s(buf);
    if (s.find_first_of(".en") == std::string::npos) s += ".0";
    out += s;
  }
  template <typename T>
  void Ints(const std::vector<T>& values) {
    out += "[";
    for (size_t i = 0; i < values.size(); ++i) {
      if (i) out += ", ";
      out += std::to_string(values[i]);
    }
    out += "]";
  }
  void Doubles(const std::vector<double>& values) {
    out += "[";
    for (size_t i = 0; i < values.size(); ++i) {
      if (i) out += ", ";
      Double(values[i]);
    }
    out += "]";
  }
};

}  // namespace golden

#endif  // FLOPSPACK_TESTS_GOLDEN_GOLDEN_IO_H_
