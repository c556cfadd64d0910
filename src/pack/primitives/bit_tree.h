// A set of integers in [0, universe) with "smallest member >= x" in
// O(log_64 universe): one bit per value, and one bit per non-zero word in
// the level above (a 64-ary van Emde Boas-like bit tree). Used by best fit
// to find the fullest bin with room among bins bucketed by remaining
// capacity.
#ifndef FLOPSPACK_PACK_PRIMITIVES_BIT_TREE_H_
#define FLOPSPACK_PACK_PRIMITIVES_BIT_TREE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace flopspack::pack {

class BitTree {
 public:
  explicit BitTree(size_t universe) {
    size_t words = universe / 64 + 1;
    for (;;) {
      levels_.emplace_back(words, 0);
      if (words == 1) break;
      words = words / 64 + 1;
    }
  }

  void Insert(size_t i) {
    for (std::vector<uint64_t>& level : levels_) {
      const size_t w = i >> 6;
      const bool was_empty = level[w] == 0;
      level[w] |= uint64_t{1} << (i & 63);
      if (!was_empty) return;
      i = w;
    }
  }

  void Erase(size_t i) {
    for (std::vector<uint64_t>& level : levels_) {
      const size_t w = i >> 6;
      level[w] &= ~(uint64_t{1} << (i & 63));
      if (level[w] != 0) return;
      i = w;
    }
  }

  // Smallest member >= i, or -1.
  int64_t NextAtLeast(size_t i) const {
    for (size_t lvl = 0; lvl < levels_.size(); ++lvl) {
      const size_t w = i >> 6;
      if (w >= levels_[lvl].size()) return -1;
      const uint64_t bits = levels_[lvl][w] & (~uint64_t{0} << (i & 63));
      if (bits != 0) {
        size_t pos = (w << 6) + static_cast<size_t>(__builtin_ctzll(bits));
        while (lvl > 0) {
          --lvl;
          pos = (pos << 6) + static_cast<size_t>(__builtin_ctzll(levels_[lvl][pos]));
        }
        return static_cast<int64_t>(pos);
      }
      i = w + 1;
    }
    return -1;
  }

 private:
  std::vector<std::vector<uint64_t>> levels_;
};

}  // namespace flopspack::pack

#endif  // FLOPSPACK_PACK_PRIMITIVES_BIT_TREE_H_
