// The floating formats of the dtypes: rounding a value to a dtype, and the
// shortest decimal that names a value of it.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

#include "casebook/number_text.h"
#include "model/sections.h"

namespace casebook::model {
namespace {

// IEEE binary formats by their significand bits (implicit bit included),
// smallest normal exponent and largest finite value.
struct FloatFormat {
  int precision;
  int min_exponent;
  double max_finite;
};

FloatFormat format_of(DType dtype) {
  switch (dtype) {
    case DType::kFloat16:
      return {11, -14, 65504.0};
    case DType::kBFloat16:
      return {8, -126, 3.38953138925153547590470800371487866880e38};
    default:
      return {24, -126, static_cast<double>(std::numeric_limits<float>::max())};
  }
}

// `value` rounded to the nearest value of `format`, ties to even (the
// default rounding mode of std::nearbyint), infinite past the largest.
double round_to(const FloatFormat& format, double value) {
  if (!std::isfinite(value) || value == 0.0) return value;
  const int exponent = std::max(std::ilogb(value), format.min_exponent);
  const double quantum = std::ldexp(1.0, exponent - (format.precision - 1));
  const double rounded = std::nearbyint(value / quantum) * quantum;
  if (std::fabs(rounded) > format.max_finite) {
    return std::copysign(std::numeric_limits<double>::infinity(), value);
  }
  return rounded;
}

}  // namespace

std::string dtype_number_text(DType dtype, double value) {
  if (!std::isfinite(value) || dtype == DType::kFloat64) {
    return number_text(value);
  }
  const FloatFormat format = format_of(dtype);
  char buffer[40];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
    if (round_to(format, std::strtod(buffer, nullptr)) == value) break;
  }
  return buffer;
}

std::string beyond_range(DType dtype, double value,
                         const std::string& written) {
  if (dtype != DType::kFloat16 && dtype != DType::kBFloat16 &&
      dtype != DType::kFloat32) {
    return "";
  }
  if (!std::isfinite(value) || !std::isinf(round_to(format_of(dtype), value))) {
    return "";
  }
  return std::string(dtype_name(dtype)) + " cannot hold " + written +
         ": it is beyond its range, whose largest finite value is " +
         number_text(format_of(dtype).max_finite) +
         " (write .inf for an infinity)";
}

std::optional<double> inexact_in(DType dtype, double value) {
  if (dtype != DType::kFloat16 && dtype != DType::kBFloat16 &&
      dtype != DType::kFloat32) {
    return std::nullopt;
  }
  const FloatFormat format = format_of(dtype);
  const double nearest = round_to(format, value);
  if (nearest == value || std::isnan(value)) return std::nullopt;
  if (std::isinf(nearest)) return nearest;
  // The shortest decimal that rounds to `nearest` in this dtype: an author
  // who wrote it (0.1 for float32) meant that value of the dtype.
  char buffer[40];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, nearest);
    const double shortest = std::strtod(buffer, nullptr);
    if (round_to(format, shortest) == nearest) {
      if (shortest == value) return std::nullopt;
      break;
    }
  }
  return nearest;
}

}  // namespace casebook::model

namespace casebook {

std::string number_text(double value) {
  if (std::isnan(value)) return std::signbit(value) ? "-.nan" : ".nan";
  if (std::isinf(value)) return value > 0 ? ".inf" : "-.inf";
  // The shortest digits that read back as `value` (std::to_chars: exact, and
  // shortest where %.Ng's nearest N digits are not, e.g. 2^-44 is
  // 5.684341886080802e-14, while %.16g gives ...8015e-14, which does not read
  // back), then laid out as %g lays out that many digits: fixed from 1e-4 up
  // to the number of digits, else d.ddde±XX.
  char buffer[40];
  const auto written = std::to_chars(buffer, buffer + sizeof buffer, value,
                                     std::chars_format::scientific);
  std::string scientific(buffer, written.ptr);
  const size_t e = scientific.find('e');
  const bool negative = scientific[0] == '-';
  std::string digits =
      scientific.substr(negative ? 1 : 0, e - (negative ? 1 : 0));
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  int exponent = 0;  // to_chars wrote it: digits after an optional sign
  std::from_chars(scientific.data() + e + (scientific[e + 1] == '+' ? 2 : 1),
                  scientific.data() + scientific.size(), exponent);
  const int count = static_cast<int>(digits.size());
  if (exponent < -4 || exponent >= count) return scientific;
  std::string fixed;
  if (exponent < 0) {
    fixed =
        "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
  } else {
    fixed = digits.substr(0, static_cast<size_t>(exponent) + 1);
    if (exponent + 1 < count) fixed += "." + digits.substr(exponent + 1);
  }
  return (negative ? "-" : "") + fixed;
}

std::string yaml_number(double value) {
  std::string text = number_text(value);
  const size_t exponent = text.find('e');
  if (exponent != std::string::npos && text.find('.') == std::string::npos) {
    text.insert(exponent, ".0");
  }
  // `-0` is YAML's integer 0, which has no sign.
  if (text == "-0") text = "-0.0";
  return text;
}

std::string yaml_float(double value) {
  std::string text = yaml_number(value);
  if (text.find_first_of(".en") == std::string::npos) text += ".0";
  return text;
}

}  // namespace casebook
