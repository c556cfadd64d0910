// What to do with a document longer than the room it may take (a sequence,
// a microbatch): one enum for every entry point, so one name per policy
// across the core, the C API and the docs. Values match flopspack_overflow.
// Sequence packing and the stream packer take kError, kTruncate and kSplit;
// the step planner takes kError, kSplit and kDefer (docs/planner.md).
#ifndef FLOPSPACK_PACK_PRIMITIVES_OVERFLOW_H_
#define FLOPSPACK_PACK_PRIMITIVES_OVERFLOW_H_

namespace flopspack::pack {

enum class Overflow {
  kError = 0,     // reject the call
  kTruncate = 1,  // keep the first `cap` tokens, report the rest as truncated
  kSplit = 2,     // cut into pieces that fit
  kDefer = 3,     // leave the document for a later step
};

// "error", "truncate", "split" or "defer", for messages.
inline const char* OverflowName(Overflow overflow) {
  switch (overflow) {
    case Overflow::kError:
      return "error";
    case Overflow::kTruncate:
      return "truncate";
    case Overflow::kSplit:
      return "split";
    case Overflow::kDefer:
      return "defer";
  }
  return "unknown";
}

}  // namespace flopspack::pack

#endif  // FLOPSPACK_PACK_PRIMITIVES_OVERFLOW_H_
