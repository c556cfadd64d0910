#include "cost/multimodal.h"

#include "absl/strings/str_format.h"

namespace flopspack::cost {

absl::StatusOr<int64_t> MultimodalTokens(const MultimodalDocument& d) {
  if (d.text_tokens < 0 || d.images < 0 || d.patches_per_image < 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "multimodal document (text_tokens = %d, images = %d, patches_per_image = %d): every "
        "count must be non-negative",
        d.text_tokens, d.images, d.patches_per_image));
  }
  if (d.images > 0 && d.patches_per_image == 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "multimodal document: %d images of patches_per_image = 0 (an image has patches)",
        d.images));
  }
  int64_t image_tokens = 0, total = 0;
  if (__builtin_mul_overflow(d.images, d.patches_per_image, &image_tokens) ||
      __builtin_add_overflow(d.text_tokens, image_tokens, &total)) {
    return absl::OutOfRangeError(absl::StrFormat(
        "multimodal document: %d text tokens + %d images x %d patches overflows int64",
        d.text_tokens, d.images, d.patches_per_image));
  }
  if (total == 0) {
    return absl::InvalidArgumentError("multimodal document: no text tokens and no images");
  }
  return total;
}

absl::StatusOr<double> VisionExtraCost(const TransformerModel& encoder,
                                       const MultimodalDocument& d) {
  absl::StatusOr<int64_t> tokens = MultimodalTokens(d);
  if (!tokens.ok()) return tokens.status();
  if (d.images == 0) return 0.0;
  return static_cast<double>(d.images) * encoder.Document(d.patches_per_image);
}

absl::StatusOr<double> MultimodalCost(const TransformerModel& language_model,
                                      const TransformerModel& encoder,
                                      const MultimodalDocument& d) {
  absl::StatusOr<int64_t> tokens = MultimodalTokens(d);
  if (!tokens.ok()) return tokens.status();
  absl::StatusOr<double> extra = VisionExtraCost(encoder, d);
  if (!extra.ok()) return extra.status();
  return language_model.Document(*tokens) + *extra;
}

}  // namespace flopspack::cost
