#include "cost/multimodal.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/str_format.h"
#include "util/checked.h"

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

absl::Status MultimodalTokensAndExtraCosts(const CostModel& encoder,
                                           absl::Span<const int64_t> text_tokens,
                                           absl::Span<const int64_t> images,
                                           absl::Span<const int64_t> patches_per_image,
                                           absl::Span<int64_t> out_tokens,
                                           absl::Span<double> out_extra) {
  const size_t n = text_tokens.size();
  if (images.size() != n || patches_per_image.size() != n || out_tokens.size() != n ||
      out_extra.size() != n) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "multimodal documents: text_tokens, images, patches_per_image and the outputs must have "
        "the same length (%u, %u, %u, %u, %u)",
        n, images.size(), patches_per_image.size(), out_tokens.size(), out_extra.size()));
  }
  std::vector<int64_t> tokens(n);
  std::vector<double> extra(n, 0.0);
  for (size_t i = 0; i < n; ++i) {
    absl::StatusOr<int64_t> t =
        MultimodalTokens(MultimodalDocument{text_tokens[i], images[i], patches_per_image[i]});
    if (!t.ok()) {
      return absl::Status(t.status().code(),
                          absl::StrFormat("document %u: %s", i, t.status().message()));
    }
    tokens[i] = *t;
  }
  for (size_t i = 0; i < n; ++i) {
    if (images[i] == 0) continue;
    absl::StatusOr<double> per_image = encoder.DocumentCost(patches_per_image[i]);
    if (!per_image.ok()) return per_image.status();
    extra[i] = static_cast<double>(images[i]) * *per_image;
    if (!std::isfinite(extra[i]) || extra[i] < 0) {
      return absl::OutOfRangeError(absl::StrFormat(
          "document %u: %d images x an encoder cost of %g per image is not a finite, "
          "non-negative cost",
          i, images[i], *per_image));
    }
  }
  if (absl::StatusOr<double> sum = util::CheckedCostSum("extra_costs", extra); !sum.ok()) {
    return sum.status();
  }
  std::copy(tokens.begin(), tokens.end(), out_tokens.begin());
  std::copy(extra.begin(), extra.end(), out_extra.begin());
  return absl::OkStatus();
}

}  // namespace flopspack::cost
