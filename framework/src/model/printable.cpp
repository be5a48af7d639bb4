#include "casebook/printable.h"

#include <cstdint>
#include <cstdio>

namespace casebook {
namespace {

// The length of the well-formed UTF-8 sequence starting at text[at], or 0
// when there is none (RFC 3629: no overlongs, no surrogates, <= U+10FFFF).
// Hand-written: fifteen lines against a Unicode library for one check.
size_t utf8_sequence(std::string_view text, size_t at) {
  const auto byte = [&](size_t i) {
    return static_cast<uint8_t>(text[at + i]);
  };
  const uint8_t lead = byte(0);
  size_t length = 0;
  uint8_t low = 0x80;
  uint8_t high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // overlong
    if (lead == 0xED) high = 0x9F;  // surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // overlong
    if (lead == 0xF4) high = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  if (at + length > text.size()) return 0;
  if (byte(1) < low || byte(1) > high) return 0;
  for (size_t i = 2; i < length; ++i) {
    if (byte(i) < 0x80 || byte(i) > 0xBF) return 0;
  }
  return length;
}

// The code point of the well-formed sequence of `length` bytes at text[at].
uint32_t code_point(std::string_view text, size_t at, size_t length) {
  static constexpr uint8_t kLeadBits[] = {0, 0x7F, 0x1F, 0x0F, 0x07};
  uint32_t code = static_cast<uint8_t>(text[at]) & kLeadBits[length];
  for (size_t i = 1; i < length; ++i) {
    code = (code << 6) | (static_cast<uint8_t>(text[at + i]) & 0x3F);
  }
  return code;
}

// What a terminal or a reader takes for other than text: the C1 controls
// (U+009B is a terminal's CSI), the line and paragraph separators U+2028
// and U+2029 (Python's splitlines, JavaScript and editors break lines
// there) and the bidirectional controls, which reorder what is shown
// ("Trojan Source", CVE-2021-42574).
bool is_control(uint32_t code) {
  return code < 0xA0 || code == 0x061C || code == 0x200E || code == 0x200F ||
         (code >= 0x2028 && code <= 0x202E) ||
         (code >= 0x2066 && code <= 0x2069);
}

void append_hex(std::string* out, uint8_t value) {
  char escaped[5];
  std::snprintf(escaped, sizeof escaped, "\\x%02x", value);
  *out += escaped;
}

std::string printable(std::string_view text, bool keep_lines) {
  std::string out;
  out.reserve(text.size());
  size_t at = 0;
  while (at < text.size()) {
    const auto c = static_cast<uint8_t>(text[at]);
    if (c >= 0x80) {
      const size_t length = utf8_sequence(text, at);
      const uint32_t code = length == 0 ? 0 : code_point(text, at, length);
      if (length == 0 || code < 0xA0) {  // not UTF-8, or a C1 control
        append_hex(&out, c);
        ++at;
        continue;
      }
      if (is_control(code)) {
        char escaped[12];
        std::snprintf(escaped, sizeof escaped, "\\u%04x", code);
        out += escaped;
      } else {
        out.append(text.substr(at, length));
      }
      at += length;
      continue;
    }
    if (c == '\n' || c == '\t') {
      if (keep_lines) {
        out += static_cast<char>(c);
      } else {
        out += c == '\n' ? "\\n" : "\\t";
      }
    } else if (c < 0x20 || c == 0x7F) {
      append_hex(&out, c);
    } else {
      out += static_cast<char>(c);
    }
    ++at;
  }
  return out;
}

}  // namespace

std::string printable_line(std::string_view text) {
  return printable(text, false);
}

std::string printable_text(std::string_view text) {
  return printable(text, true);
}

size_t utf8_prefix_length(std::string_view text) {
  size_t at = 0;
  while (at < text.size()) {
    if (static_cast<uint8_t>(text[at]) < 0x80) {
      ++at;
      continue;
    }
    const size_t length = utf8_sequence(text, at);
    if (length == 0) return at;
    at += length;
  }
  return at;
}

std::string bounded_text(std::string_view text, size_t limit) {
  if (text.size() <= limit) return std::string(text);
  size_t cut = limit;
  // Back off continuation bytes so that a character is never split.
  while (cut > 0 && (static_cast<uint8_t>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut)) + " ... (" +
         std::to_string(text.size() - cut) + " more bytes)";
}

std::string first_line(std::string_view text) {
  return std::string(text.substr(0, text.find('\n')));
}

}  // namespace casebook
