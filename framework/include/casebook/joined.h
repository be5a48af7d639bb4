// Items joined into one text, the one join of casebook's messages and case
// text: "a, b, c" (the separator between items, nothing around them).
#pragma once

#include <string>
#include <string_view>

namespace casebook {

// Each item's text by `each` (a string or anything a string takes with
// +=), `separator` between them; "" for no item.
template <typename Items, typename Each>
std::string joined(const Items& items, std::string_view separator, Each each) {
  std::string out;
  bool first = true;
  for (const auto& item : items) {
    if (!first) out += separator;
    out += each(item);
    first = false;
  }
  return out;
}

// Texts (strings, string views, C strings) as they are.
template <typename Items>
std::string joined(const Items& items, std::string_view separator = ", ") {
  return joined(items, separator,
                [](const auto& item) -> const auto& { return item; });
}

}  // namespace casebook
