// Training FLOPs of a dense decoder-only transformer for a packed sequence.
//
// Matmul FLOPs only, 2 per multiply-add (the convention of Kaplan et al. 2020,
// Megatron-LM's Narayanan et al. 2021 and PaLM's Chowdhery et al. 2022):
//   per token, forward:  L·[2d(H·dh + 2·Hkv·dh) + 2·H·dh·d + 2·d·f·m] + 2·d·V
//   attention, forward:  L·4·H·dh·l²       (no causal saving)
//                        L·4·H·dh·l(l+1)/2 (causal: kept scores only)
//   training = 3 × forward (4 × with full activation recompute).
// m = 3 for gated FFNs (SwiGLU), 2 otherwise. Under the document span each
// document of a packed sequence attends within itself, so the sequence costs
// the sum of its documents; under the sequence span attention covers the
// whole packed length. O(1) per document. See docs/cost-models.md.
#ifndef FLOPSPACK_COST_TRANSFORMER_H_
#define FLOPSPACK_COST_TRANSFORMER_H_

#include <memory>

#include "cost/cost_model.h"

namespace flopspack::cost {

enum class AttentionSpan { kDocument = 0, kSequence = 1 };

struct TransformerShape {
  int64_t num_layers = 0;
  int64_t hidden_size = 0;
  int64_t num_attention_heads = 0;
  int64_t num_key_value_heads = 0;
  int64_t head_dim = 0;  // 0 = hidden_size / num_attention_heads
  int64_t intermediate_size = 0;
  int64_t vocab_size = 0;  // 0 = no LM head
  bool gated_mlp = false;
  bool causal = true;
  bool recompute = false;
  AttentionSpan attention_span = AttentionSpan::kDocument;
};

class TransformerModel final : public CostModel {
 public:
  // Validates the shape: positive dimensions, key/value heads dividing the
  // query heads, heads dividing hidden_size when head_dim is 0.
  static absl::StatusOr<std::unique_ptr<TransformerModel>> Create(const TransformerShape& shape);

  absl::StatusOr<double> SequenceCost(absl::Span<const int64_t> lengths) const override;
  absl::StatusOr<double> DocumentCost(int64_t length) const override { return Document(length); }
  bool IsAdditive() const override { return shape_.attention_span == AttentionSpan::kDocument; }
  // Exact, in closed form: causal, the queries [begin, end) keep
  // (end - begin)(begin + end + 1) / 2 scores (token t attends to t + 1
  // keys); without the mask each query attends to all `length` keys.
  absl::StatusOr<double> DocumentChunkCost(int64_t length, int64_t begin,
                                           int64_t end) const override;

  // Training FLOPs of one document of this length attending within itself.
  double Document(int64_t length) const;
  // Forward FLOPs per token outside attention scores (projections, FFN, head).
  double dense_forward_flops_per_token() const { return dense_per_token_; }
  // Forward attention-score FLOPs of a length-l span, all layers.
  double AttentionForwardFlops(int64_t length) const;
  double training_multiplier() const { return multiplier_; }
  const TransformerShape& shape() const { return shape_; }

 private:
  explicit TransformerModel(const TransformerShape& shape);
  TransformerShape shape_;
  double dense_per_token_ = 0;      // forward
  double attention_per_score_ = 0;  // forward FLOPs per (query, key) pair, all layers
  double multiplier_ = 3;
};

}  // namespace flopspack::cost

#endif  // FLOPSPACK_COST_TRANSFORMER_H_
