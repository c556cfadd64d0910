#include "cost/samples.h"

#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "util/validate.h"

namespace flopspack::cost {

absl::Status CheckSamples(absl::string_view what, absl::Span<const int64_t> document_lengths,
                          absl::Span<const size_t> offsets, absl::Span<const double> seconds) {
  const size_t num_samples = seconds.size();
  if (offsets.size() != num_samples + 1 || offsets[0] != 0 ||
      offsets.back() != document_lengths.size()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: sample_offsets must have num_samples + 1 entries, start at 0 and end at the "
        "number of document lengths",
        what));
  }
  // All of the layout before any length is read: an offset in the middle
  // past the end would otherwise send a reader out of bounds.
  for (size_t i = 0; i < num_samples; ++i) {
    if (offsets[i + 1] <= offsets[i]) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s: sample %u is empty or sample_offsets decreases there (%u -> %u)",
                          what, i, offsets[i], offsets[i + 1]));
    }
  }
  absl::StatusOr<int64_t> tokens = util::CheckLengths("document_lengths", document_lengths);
  if (!tokens.ok()) return tokens.status();
  return util::CheckCosts("seconds", seconds);
}

}  // namespace flopspack::cost
