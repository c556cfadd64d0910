#include "cost/transformer.h"

#include <cmath>

#include "gtest/gtest.h"

namespace flopspack::cost {
namespace {

TransformerShape Gpt3() {
  TransformerShape s;
  s.num_layers = 96;
  s.hidden_size = 12288;
  s.num_attention_heads = 96;
  s.num_key_value_heads = 96;
  s.intermediate_size = 4 * 12288;
  s.vocab_size = 50257;
  s.gated_mlp = false;
  s.causal = false;
  return s;
}

TransformerShape Llama3_8B() {
  TransformerShape s;
  s.num_layers = 32;
  s.hidden_size = 4096;
  s.num_attention_heads = 32;
  s.num_key_value_heads = 8;
  s.intermediate_size = 14336;
  s.vocab_size = 128256;
  s.gated_mlp = true;
  s.causal = true;
  return s;
}

std::unique_ptr<TransformerModel> Make(const TransformerShape& shape) {
  auto model = TransformerModel::Create(shape);
  EXPECT_TRUE(model.ok()) << model.status();
  return std::move(*model);
}

TEST(TransformerTest, MatchesMegatronFormulaForGpt3) {
  auto model = Make(Gpt3());
  for (int64_t s : {1, 512, 2048, 8192}) {
    const double L = 96, d = 12288, V = 50257, seq = static_cast<double>(s);
    // Narayanan et al. 2021, eq. (3) per sequence (B = 1), without recompute.
    const double megatron = 72 * seq * L * d * d * (1 + seq / (6 * d) + V / (12 * L * d));
    EXPECT_NEAR(model->Document(s) / megatron, 1.0, 1e-12) << "s = " << s;
  }
}

TEST(TransformerTest, MatchesPalmFormulaNonCausal) {
  // PaLM 540B shape: multi-query attention, SwiGLU, shared embedding.
  TransformerShape shape;
  shape.num_layers = 118;
  shape.hidden_size = 18432;
  shape.num_attention_heads = 48;
  shape.num_key_value_heads = 1;
  shape.head_dim = 256;
  shape.intermediate_size = 4 * 18432;
  shape.vocab_size = 256000;
  shape.gated_mlp = true;
  shape.causal = false;
  auto model = Make(shape);
  // N counted matrix by matrix.
  const double d = 18432, hd = 48 * 256, kv = 256, f = 4 * 18432, V = 256000;
  const double per_layer_params = d * hd        // W_q
                                  + 2 * d * kv  // W_k, W_v
                                  + hd * d      // W_o
                                  + 3 * d * f;  // gate, up, down
  const double n_params = 118 * per_layer_params + d * V;
  for (int64_t s : {128, 2048}) {
    // Chowdhery et al. 2022, appendix B: 6N + 12·L·H·Q·T FLOPs per token.
    const double per_token = 6 * n_params + 12.0 * 118 * 48 * 256 * static_cast<double>(s);
    EXPECT_NEAR(model->Document(s) / (per_token * static_cast<double>(s)), 1.0, 1e-12);
  }
}

TEST(TransformerTest, HandComputedLlama3_8B) {
  auto model = Make(Llama3_8B());
  // Hand-computed (see docs/cost-models.md): dense forward per token
  // 32·436,207,616 + 2·4096·128,256 = 15,009,316,864; attention forward at
  // l = 8192, causal: 32·4·32·128·(8192·8193/2) = 17,594,333,528,064.
  EXPECT_DOUBLE_EQ(model->dense_forward_flops_per_token(), 15009316864.0);
  EXPECT_DOUBLE_EQ(model->AttentionForwardFlops(8192), 17594333528064.0);
  EXPECT_DOUBLE_EQ(model->Document(8192), 421651971833856.0);
  EXPECT_DOUBLE_EQ(model->Document(1), 45029523456.0);
}

TEST(TransformerTest, RecomputeIsFourThirds) {
  TransformerShape shape = Llama3_8B();
  auto base = Make(shape);
  shape.recompute = true;
  auto recompute = Make(shape);
  EXPECT_DOUBLE_EQ(recompute->Document(3000), base->Document(3000) * 4 / 3);
}

TEST(TransformerTest, DocumentSpanSumsDocumentsSequenceSpanDoesNot) {
  TransformerShape shape = Llama3_8B();
  auto document_span = Make(shape);
  shape.attention_span = AttentionSpan::kSequence;
  auto sequence_span = Make(shape);
  const std::vector<int64_t> docs = {1000, 3000};
  EXPECT_DOUBLE_EQ(*document_span->SequenceCost(docs),
                   document_span->Document(1000) + document_span->Document(3000));
  EXPECT_DOUBLE_EQ(*sequence_span->SequenceCost(docs), sequence_span->Document(4000));
  EXPECT_GT(*sequence_span->SequenceCost(docs), *document_span->SequenceCost(docs));
  EXPECT_TRUE(document_span->IsAdditive());
  EXPECT_FALSE(sequence_span->IsAdditive());
}

TEST(TransformerTest, AttentionShareGrowsWithLength) {
  auto model = Make(Llama3_8B());
  double previous = 0;
  for (int64_t l : {512, 2048, 8192, 32768}) {
    const double share = 3 * model->AttentionForwardFlops(l) / model->Document(l);
    EXPECT_GT(share, previous);
    previous = share;
  }
}

TEST(TransformerTest, RejectsBadShapes) {
  auto expect_invalid = [](TransformerShape shape, const char* fragment) {
    auto model = TransformerModel::Create(shape);
    ASSERT_FALSE(model.ok());
    EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(model.status().message().find(fragment), absl::string_view::npos)
        << model.status().message();
  };
  TransformerShape shape = Llama3_8B();
  shape.num_layers = 0;
  expect_invalid(shape, "num_layers = 0");
  shape = Llama3_8B();
  shape.hidden_size = -4096;
  expect_invalid(shape, "hidden_size = -4096");
  shape = Llama3_8B();
  shape.num_attention_heads = 30;  // does not divide 4096
  shape.num_key_value_heads = 10;
  expect_invalid(shape, "does not divide hidden_size");
  shape = Llama3_8B();
  shape.num_key_value_heads = 5;
  expect_invalid(shape, "num_key_value_heads = 5");
  shape = Llama3_8B();
  shape.intermediate_size = 0;
  expect_invalid(shape, "intermediate_size = 0");
  shape = Llama3_8B();
  shape.vocab_size = -1;
  expect_invalid(shape, "vocab_size = -1");
  shape = Llama3_8B();
  shape.head_dim = -2;
  expect_invalid(shape, "head_dim = -2");
}

TEST(TransformerTest, ExplicitHeadDimNeedNotDivide) {
  TransformerShape shape = Llama3_8B();
  shape.num_attention_heads = 30;
  shape.num_key_value_heads = 10;
  shape.head_dim = 128;
  EXPECT_TRUE(TransformerModel::Create(shape).ok());
}

}  // namespace
}  // namespace flopspack::cost
