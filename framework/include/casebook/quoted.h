// The one double-quoted literal casebook writes: a YAML scalar in a case
// file (model/yaml_text.h, a scrubbed case file) and a Python string in a
// report's reproduction both read it back as the text it was given.
#pragma once

#include <string>
#include <string_view>

namespace casebook {

// `text` between double quotes: `"` and `\` behind a backslash, a newline
// and a tab as `\n` and `\t`, every other control character and DEL as
// `\xNN` (YAML and Python alike: a raw one is not allowed in a YAML scalar
// and ends a Python line). Other bytes, UTF-8 included, as they are.
inline std::string double_quoted(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (byte < 0x20 || byte == 0x7f) {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace casebook
