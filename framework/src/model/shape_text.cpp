#include "casebook/shape_text.h"

namespace casebook {

std::string shape_text(const std::vector<int64_t>& sizes) {
  std::string text = "[";
  for (size_t i = 0; i < sizes.size(); ++i) {
    text += (i > 0 ? ", " : "") + std::to_string(sizes[i]);
  }
  return text + "]";
}

}  // namespace casebook
