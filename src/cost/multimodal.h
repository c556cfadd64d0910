// The training cost of a multimodal document: a language model over all its
// tokens (text plus the image tokens it receives) plus a vision encoder over
// each image. A document is (text tokens, images, patches per image); each
// image enters the language model as `patches` tokens and costs the
// encoder's training FLOPs of one `patches`-token sequence (bidirectional:
// build the encoder with causal = false, vocab_size = 0). The encoder's
// cost grows with the square of the patches per image, so image-heavy
// documents cost far more than their LM tokens say. O(1) per document.
// Reference: the LLaVA / Qwen-VL style of vision-language training (a ViT
// encoder, a projector, image tokens in the LM sequence).
#ifndef FLOPSPACK_COST_MULTIMODAL_H_
#define FLOPSPACK_COST_MULTIMODAL_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "cost/transformer.h"

namespace flopspack::cost {

struct MultimodalDocument {
  int64_t text_tokens = 0;
  int64_t images = 0;
  int64_t patches_per_image = 0;
};

// Tokens the language model sees: text + images x patches. InvalidArgument
// for a negative field, a document with no tokens at all, images without
// patches; OutOfRange when the count overflows int64.
absl::StatusOr<int64_t> MultimodalTokens(const MultimodalDocument& document);

// The encoder's cost of the document's images: images x
// encoder.Document(patches) (0 without images), the extra cost beside the
// language model's cost of MultimodalTokens.
absl::StatusOr<double> VisionExtraCost(const TransformerModel& encoder,
                                       const MultimodalDocument& document);

// language_model.Document(MultimodalTokens) + VisionExtraCost.
absl::StatusOr<double> MultimodalCost(const TransformerModel& language_model,
                                      const TransformerModel& encoder,
                                      const MultimodalDocument& document);

}  // namespace flopspack::cost

#endif  // FLOPSPACK_COST_MULTIMODAL_H_
