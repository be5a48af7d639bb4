// The bytes of crafted fixtures, for the hostile-input tests: written here
// rather than kept in the repository when they are large (a 50 MB header)
// or many.
#pragma once

#include <cstddef>
#include <string>

namespace casebook::testing_support {

// A version-2 .npy (4-byte header length) whose header is `dict` followed by
// `padding` spaces, aligned to 64 bytes as numpy aligns it, then 16 zero
// bytes of data.
inline std::string npy_bytes(const std::string& dict, size_t padding = 0) {
  std::string header = dict + std::string(padding, ' ');
  header.append(63 - (12 + header.size()) % 64, ' ');
  header.push_back('\n');
  std::string bytes("\x93NUMPY\x02\x00", 8);
  for (int i = 0; i < 4; ++i) {
    bytes.push_back(static_cast<char>((header.size() >> (8 * i)) & 0xff));
  }
  return bytes + header + std::string(16, '\0');
}

// A .safetensors: the 8-byte little-endian length of `header`, the header,
// then `data_bytes` zero bytes.
inline std::string safetensors_bytes(const std::string& header,
                                     size_t data_bytes) {
  std::string bytes(8, '\0');
  for (size_t i = 0; i < 8; ++i) {
    bytes[i] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
  }
  return bytes + header + std::string(data_bytes, '\0');
}

}  // namespace casebook::testing_support
