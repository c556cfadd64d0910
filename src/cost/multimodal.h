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

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "cost/cost_model.h"
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

// For n documents given as three arrays: out_tokens[i] = MultimodalTokens,
// out_extra[i] = images x encoder's document cost of patches_per_image (any
// cost model as the encoder: a bidirectional transformer, or one fitted to
// measured encoder times). The arrays are written only on success. Errors:
// those of MultimodalTokens, prefixed with the document's index; an
// encoder's error; OutOfRange for an extra cost or a sum of them that
// overflows a double.
absl::Status MultimodalTokensAndExtraCosts(const CostModel& encoder,
                                           absl::Span<const int64_t> text_tokens,
                                           absl::Span<const int64_t> images,
                                           absl::Span<const int64_t> patches_per_image,
                                           absl::Span<int64_t> out_tokens,
                                           absl::Span<double> out_extra);

}  // namespace flopspack::cost

#endif  // FLOPSPACK_COST_MULTIMODAL_H_
