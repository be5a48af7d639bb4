// How casebook writes a shape, or an element's index, everywhere: in
// messages, reports and case files. LibTorch-free (model/shape_text.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace casebook {

// `[2, 3]`; `[]` for a 0-d tensor's shape.
std::string shape_text(const std::vector<int64_t>& sizes);

// The same for any list of sizes with begin() and end(): LibTorch's
// c10::IntArrayRef (`shape_text(tensor.sizes())`) among them.
template <typename Sizes>
std::string shape_text(const Sizes& sizes) {
  return shape_text(std::vector<int64_t>(sizes.begin(), sizes.end()));
}

}  // namespace casebook
