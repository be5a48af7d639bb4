// `unit` written `times` times: the long inputs of the hostile-text tests.
#pragma once

#include <cstddef>
#include <string>

namespace casebook::testing_support {

inline std::string repeated(const std::string& unit, size_t times) {
  std::string text;
  text.reserve(unit.size() * times);
  for (size_t i = 0; i < times; ++i) text += unit;
  return text;
}

}  // namespace casebook::testing_support
