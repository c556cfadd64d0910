#include "pack/planner/planner_baselines.h"

#include <algorithm>

namespace flopspack::pack {

Sequences ConcatenateAndCut(absl::Span<const int64_t> lengths, absl::Span<const int64_t> docs,
                            int64_t cap) {
  Sequences out;
  int64_t room = cap;
  for (size_t i = 0; i < lengths.size(); ++i) {
    int64_t left = lengths[i];
    while (left > 0) {
      const int64_t take = std::min(left, room);
      out.pieces.push_back({docs[i], take});
      left -= take;
      room -= take;
      if (room == 0) {
        out.offsets.push_back(static_cast<int64_t>(out.pieces.size()));
        room = cap;
      }
    }
  }
  if (room < cap) out.offsets.push_back(static_cast<int64_t>(out.pieces.size()));
  return out;
}

}  // namespace flopspack::pack
