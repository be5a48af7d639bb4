// Plain YAML scalars resolved as YAML 1.2's core schema: null, booleans,
// integers (decimal, 0x, 0o; kept exactly, overflow flagged), floats with
// .nan and .inf. Quoted scalars are strings.
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "model/yaml_reader.h"

namespace casebook::model {
namespace {

bool is_digits(std::string_view text, bool hex) {
  if (text.empty()) return false;
  for (char c : text) {
    const bool digit = c >= '0' && c <= '9';
    const bool hex_digit = (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    if (!digit && !(hex && hex_digit)) return false;
  }
  return true;
}

// YAML 1.2 core schema floats: [-+]? ( . [0-9]+ | [0-9]+ ( . [0-9]* )? )
// ( [eE] [-+]? [0-9]+ )?
bool is_float_syntax(std::string_view text) {
  size_t i = 0;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
  size_t digits = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i, ++digits;
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
    if (!is_digits(text.substr(i), false)) return false;
    return true;
  }
  return i == text.size();
}

void resolve_integer(std::string_view text, Scalar& out) {
  const bool negative = text[0] == '-';
  std::string_view digits = text;
  if (text[0] == '-' || text[0] == '+') digits.remove_prefix(1);
  int base = 10;
  if (digits.size() > 2 && digits[0] == '0' &&
      (digits[1] == 'x' || digits[1] == 'o')) {
    base = digits[1] == 'x' ? 16 : 8;
    digits.remove_prefix(2);
  }
  // Parse the magnitude unsigned so that -2^63 is representable.
  uint64_t magnitude = 0;
  const auto [end, status] = std::from_chars(
      digits.data(), digits.data() + digits.size(), magnitude, base);
  out.kind = Scalar::Kind::kInt;
  const uint64_t limit =
      static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) +
      (negative ? 1 : 0);
  if (status != std::errc() || magnitude > limit) {
    out.int_overflow = true;
    out.float_out_of_range =
        std::isinf(std::strtod(std::string(text).c_str(), nullptr));
    return;
  }
  out.int_value = negative ? static_cast<int64_t>(0 - magnitude)
                           : static_cast<int64_t>(magnitude);
}

bool is_integer_syntax(std::string_view text) {
  std::string_view digits = text;
  if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) {
    digits.remove_prefix(1);
  }
  if (digits.size() > 2 && digits[0] == '0' && digits[1] == 'x') {
    return is_digits(digits.substr(2), true);
  }
  if (digits.size() > 2 && digits[0] == '0' && digits[1] == 'o') {
    return digits.find_first_not_of("01234567", 2) == std::string_view::npos;
  }
  return is_digits(digits, false);
}

}  // namespace

std::string out_of_range_message(const Scalar& scalar) {
  const bool beyond = scalar.int_overflow ||
                      std::isinf(std::strtod(scalar.text.c_str(), nullptr));
  return beyond ? "float64 cannot hold " + scalar.text +
                      ": it is beyond its range (write .inf for an infinity)"
                : "float64 cannot hold " + scalar.text +
                      ": it is below its smallest subnormal and would read as "
                      "0 (write 0)";
}

namespace {

// One of YAML's spellings of a word (`true`, `True`, `TRUE`).
bool spells(std::string_view text, std::string_view lower,
            std::string_view title, std::string_view upper) {
  return text == lower || text == title || text == upper;
}

// `.inf`, `-.inf` and `.nan` as the core schema spells them; `-.nan` is a
// NaN with its sign bit set (casebook's addition, as torch.save keeps and a
// kernel may produce). Leaves `out` a string where `text` is none of them.
void resolve_non_finite(std::string_view text, Scalar& out) {
  const bool negative = !text.empty() && text[0] == '-';
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    text.remove_prefix(1);
  }
  const double sign = negative ? -1.0 : 1.0;
  if (spells(text, ".inf", ".Inf", ".INF")) {
    out.kind = Scalar::Kind::kFloat;
    out.float_value = sign * std::numeric_limits<double>::infinity();
  } else if (spells(text, ".nan", ".NaN", ".NAN")) {
    out.kind = Scalar::Kind::kFloat;
    out.float_value =
        std::copysign(std::numeric_limits<double>::quiet_NaN(), sign);
  }
}

}  // namespace

Scalar resolve_scalar(const YAML::Node& node) {
  Scalar out;
  if (!node.IsScalar()) return out;  // kNull
  out.text = node.Scalar();
  out.quoted = node.Tag() != "?";
  out.kind = Scalar::Kind::kString;
  if (out.quoted) return out;
  const std::string& text = out.text;
  if (spells(text, "true", "True", "TRUE")) {
    out.kind = Scalar::Kind::kBool;
    out.bool_value = true;
  } else if (spells(text, "false", "False", "FALSE")) {
    out.kind = Scalar::Kind::kBool;
  } else if (is_integer_syntax(text)) {
    resolve_integer(text, out);
  } else if (is_float_syntax(text)) {
    out.kind = Scalar::Kind::kFloat;
    // strtod, unlike from_chars, gives +-inf for 1e400 and 0 for 1e-400 and
    // says so in errno (case files never change the "C" locale).
    errno = 0;
    out.float_value = std::strtod(text.c_str(), nullptr);
    out.float_out_of_range = errno == ERANGE && (std::isinf(out.float_value) ||
                                                 out.float_value == 0.0);
  } else {
    resolve_non_finite(text, out);
  }
  return out;
}

}  // namespace casebook::model
