#include "cost/multimodal.h"

#include <limits>

#include "gtest/gtest.h"

namespace flopspack::cost {
namespace {

// ViT-L/14-like: 24 layers, hidden 1024, 16 heads, FFN 4096, bidirectional.
std::unique_ptr<TransformerModel> VitL() {
  TransformerShape s;
  s.num_layers = 24;
  s.hidden_size = 1024;
  s.num_attention_heads = s.num_key_value_heads = 16;
  s.intermediate_size = 4096;
  s.causal = false;
  return *TransformerModel::Create(s);
}

std::unique_ptr<TransformerModel> SmallLm() {
  TransformerShape s;
  s.num_layers = 2;
  s.hidden_size = 64;
  s.num_attention_heads = s.num_key_value_heads = 4;
  s.intermediate_size = 256;
  s.vocab_size = 100;
  return *TransformerModel::Create(s);
}

TEST(MultimodalTest, ClosedForm) {
  const auto vit = VitL();
  const auto lm = SmallLm();
  // One ViT-L image of p patches, training (x3), matmul FLOPs:
  // 24 x [2 d (3 d) + 2 d d + 2 d 4d x 2] per patch = 24 x 24 d^2 per patch,
  // plus 24 x 4 d p^2 for the scores (no causal saving).
  const double d = 1024, p = 576;
  const double want_image = 3 * (24 * 24 * d * d * p + 24 * 4 * d * p * p);
  const MultimodalDocument doc{100, 3, 576};
  EXPECT_DOUBLE_EQ(*VisionExtraCost(*vit, doc), 3 * want_image);
  EXPECT_EQ(*MultimodalTokens(doc), 100 + 3 * 576);
  EXPECT_DOUBLE_EQ(*MultimodalCost(*lm, *vit, doc), lm->Document(1828) + 3 * want_image);
  // Text only: the LM cost alone.
  EXPECT_DOUBLE_EQ(*MultimodalCost(*lm, *vit, {500, 0, 0}), lm->Document(500));
  // The encoder grows with the square of the patches: 2048 patches cost more
  // than 8 x 256 patches.
  EXPECT_GT(*VisionExtraCost(*vit, {0, 1, 2048}), *VisionExtraCost(*vit, {0, 8, 256}));
}

TEST(MultimodalTest, BadInput) {
  const auto vit = VitL();
  EXPECT_EQ(MultimodalTokens({-1, 0, 0}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MultimodalTokens({0, 2, 0}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MultimodalTokens({0, 0, 0}).status().code(), absl::StatusCode::kInvalidArgument);
  const int64_t big = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(MultimodalTokens({1, big, 2}).status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(VisionExtraCost(*vit, {1, -3, 5}).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace flopspack::cost
