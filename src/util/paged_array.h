// A large logical array of T, every element `fill` until written, whose
// memory is allocated in pages of 4096 elements on first write: memory
// follows the indices used, not the size. Used where an index spans a
// value range (the stream packer's buckets by remaining capacity, up to
// 2^24) but only a few values are live at once.
//
// get() is O(1) and allocates nothing; at() is O(1) and allocates a page
// (16 KiB for int32_t) the first time one of its indices is written.
#ifndef FLOPSPACK_UTIL_PAGED_ARRAY_H_
#define FLOPSPACK_UTIL_PAGED_ARRAY_H_

#include <algorithm>
#include <cstddef>
#include <memory>
#include <vector>

namespace flopspack::util {

template <typename T>
class PagedArray {
 public:
  static constexpr size_t kPageBits = 12;
  static constexpr size_t kPageSize = size_t{1} << kPageBits;

  PagedArray(size_t size, T fill) : pages_((size >> kPageBits) + 1), fill_(fill) {}

  T get(size_t i) const {
    const std::unique_ptr<T[]>& page = pages_[i >> kPageBits];
    return page ? page[i & (kPageSize - 1)] : fill_;
  }

  T& at(size_t i) {
    std::unique_ptr<T[]>& page = pages_[i >> kPageBits];
    if (!page) {
      page = std::make_unique<T[]>(kPageSize);
      std::fill(page.get(), page.get() + kPageSize, fill_);
    }
    return page[i & (kPageSize - 1)];
  }

 private:
  std::vector<std::unique_ptr<T[]>> pages_;
  T fill_;
};

}  // namespace flopspack::util

#endif  // FLOPSPACK_UTIL_PAGED_ARRAY_H_
