// The memory geometry of a case's `layout`: sizes, strides and storage offset
// of the view, and how long its 1-D storage must be.
#pragma once

#include <cstdint>
#include <vector>

#include "casebook/case.h"

namespace casebook {

struct Geometry {
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  int64_t storage_offset = 0;
  int64_t storage_numel = 0;  // every element the view may touch, + 1
};

// Throws std::invalid_argument (a message without the case location) when the
// layout does not fit the shape: a bad permutation, a stride list of the
// wrong length, negative strides, or `contiguous: false` on a tensor of 0 or
// 1 elements. Strides under which elements share a storage element (a
// stride 0) are a geometry: what they hold is materialise()'s question.
Geometry layout_geometry(const Layout& layout,
                         const std::vector<int64_t>& shape);

// Row-major strides of `shape`.
std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& shape);

}  // namespace casebook
