#include "casebook/shape_text.h"

#include "casebook/joined.h"

namespace casebook {

std::string shape_text(const std::vector<int64_t>& sizes) {
  return "[" +
         joined(sizes, ", ",
                [](int64_t size) { return std::to_string(size); }) +
         "]";
}

}  // namespace casebook
