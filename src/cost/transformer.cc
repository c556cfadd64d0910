#include "cost/transformer.h"

#include "absl/strings/str_format.h"

namespace flopspack::cost {
namespace {

absl::Status Positive(const char* name, int64_t value) {
  if (value <= 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("transformer config: %s = %d must be positive", name, value));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<TransformerModel>> TransformerModel::Create(
    const TransformerShape& shape) {
  for (auto [name, value] : {std::pair<const char*, int64_t>{"num_layers", shape.num_layers},
                             {"hidden_size", shape.hidden_size},
                             {"num_attention_heads", shape.num_attention_heads},
                             {"num_key_value_heads", shape.num_key_value_heads},
                             {"intermediate_size", shape.intermediate_size}}) {
    absl::Status status = Positive(name, value);
    if (!status.ok()) return status;
  }
  if (shape.head_dim < 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "transformer config: head_dim = %d must be positive, or 0 for hidden_size / "
        "num_attention_heads",
        shape.head_dim));
  }
  if (shape.head_dim == 0 && shape.hidden_size % shape.num_attention_heads != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "transformer config: num_attention_heads = %d does not divide hidden_size = %d "
        "(set head_dim explicitly)",
        shape.num_attention_heads, shape.hidden_size));
  }
  if (shape.num_attention_heads % shape.num_key_value_heads != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "transformer config: num_key_value_heads = %d does not divide num_attention_heads = %d",
        shape.num_key_value_heads, shape.num_attention_heads));
  }
  if (shape.vocab_size < 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "transformer config: vocab_size = %d must be >= 0 (0 = no LM head)", shape.vocab_size));
  }
  // Dimensions beyond 2^31 would overflow the FLOP products' precision long
  // before they describe a real model.
  constexpr int64_t kMaxDimension = int64_t{1} << 31;
  for (int64_t value : {shape.num_layers, shape.hidden_size, shape.num_attention_heads,
                        shape.head_dim, shape.intermediate_size, shape.vocab_size}) {
    if (value > kMaxDimension) {
      return absl::OutOfRangeError(absl::StrFormat(
          "transformer config: dimension %d exceeds the supported maximum 2^31", value));
    }
  }
  return std::unique_ptr<TransformerModel>(new TransformerModel(shape));
}

TransformerModel::TransformerModel(const TransformerShape& shape) : shape_(shape) {
  if (shape_.head_dim == 0) shape_.head_dim = shape_.hidden_size / shape_.num_attention_heads;
  const double d = static_cast<double>(shape_.hidden_size);
  const double heads_dim = static_cast<double>(shape_.num_attention_heads * shape_.head_dim);
  const double kv_dim = static_cast<double>(shape_.num_key_value_heads * shape_.head_dim);
  const double f = static_cast<double>(shape_.intermediate_size);
  const double ffn_matrices = shape_.gated_mlp ? 3.0 : 2.0;
  const double per_layer = 2 * d * (heads_dim + 2 * kv_dim)  // Q, K, V projections
                           + 2 * heads_dim * d               // output projection
                           + 2 * d * f * ffn_matrices;       // FFN
  const double layers = static_cast<double>(shape_.num_layers);
  dense_per_token_ = layers * per_layer + 2 * d * static_cast<double>(shape_.vocab_size);
  // QK^T and attention·V: 2 matmuls × 2 FLOPs × head_dim per score and head.
  attention_per_score_ = layers * 4 * heads_dim;
  multiplier_ = shape_.recompute ? 4.0 : 3.0;
}

double TransformerModel::AttentionForwardFlops(int64_t length) const {
  const double l = static_cast<double>(length);
  const double scores = shape_.causal ? l * (l + 1) / 2 : l * l;
  return attention_per_score_ * scores;
}

double TransformerModel::Document(int64_t length) const {
  return multiplier_ *
         (dense_per_token_ * static_cast<double>(length) + AttentionForwardFlops(length));
}

absl::StatusOr<double> TransformerModel::DocumentChunkCost(int64_t length, int64_t begin,
                                                           int64_t end) const {
  if (begin >= end) return 0.0;
  const double queries = static_cast<double>(end - begin);
  const double scores = shape_.causal ? queries * static_cast<double>(begin + end + 1) / 2
                                      : queries * static_cast<double>(length);
  return multiplier_ * (dense_per_token_ * queries + attention_per_score_ * scores);
}

absl::StatusOr<double> TransformerModel::SequenceCost(absl::Span<const int64_t> lengths) const {
  double total = 0;
  if (shape_.attention_span == AttentionSpan::kDocument) {
    for (int64_t length : lengths) total += Document(length);
    return total;
  }
  int64_t tokens = 0;
  for (int64_t length : lengths) tokens += length;
  return Document(tokens);
}

}  // namespace flopspack::cost
