// `values`: a nested list (shape inferred, ragged rows rejected) or a flat
// list with `shape`, each element checked against the dtype and kept exactly.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "casebook/number_text.h"
#include "model/sections.h"

namespace casebook::model {
namespace {

std::string shape_text(const std::vector<int64_t>& shape) {
  std::vector<std::string> dims;
  dims.reserve(shape.size());
  for (int64_t dim : shape) dims.push_back(std::to_string(dim));
  return "[" + join(dims) + "]";
}

int64_t element_count(const std::vector<int64_t>& shape) {
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (dim != 0 && count > std::numeric_limits<int64_t>::max() / dim) {
      return std::numeric_limits<int64_t>::max();
    }
    count *= dim;
  }
  return count;
}

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

// The shortest decimal that rounds to `value` in `dtype` (0.3333 for the
// float16 nearest 1/3): how a person writes a value of that dtype.
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

std::string index_path(const std::string& path,
                       const std::vector<size_t>& index) {
  std::string out = path;
  for (size_t i : index) out += "[" + std::to_string(i) + "]";
  return out;
}

// Walks the values row-major, checking every row against the shape the first
// elements gave and every element against the dtype; stops at the first
// problem of shape or kind (one is enough to fix, and a long list would flood
// the report), but lists every value the dtype cannot hold exactly.
class ValuesWalker {
 public:
  ValuesWalker(Reader& reader, std::string path, DType dtype,
               std::vector<int64_t> shape, TensorSpec& spec)
      : reader_(reader),
        path_(std::move(path)),
        dtype_(dtype),
        shape_(std::move(shape)),
        spec_(spec) {}

  bool walk(const YAML::Node& node, size_t depth) {
    if (depth == shape_.size()) {
      if (node.IsSequence()) {
        return fail(node,
                    "ragged values: expected a number like the first "
                    "row's elements; got a list");
      }
      return element(node);
    }
    const auto expected = static_cast<size_t>(shape_[depth]);
    if (!node.IsSequence()) {
      return fail(node, "ragged values: expected a row of " +
                            std::to_string(expected) +
                            " elements like the first; got " + describe(node));
    }
    if (node.size() != expected) {
      return fail(
          node, "ragged values: this row has " + std::to_string(node.size()) +
                    " elements; the first row has " + std::to_string(expected));
    }
    for (size_t i = 0; i < expected; ++i) {
      index_.push_back(i);
      const bool ok = walk(node[i], depth + 1);
      index_.pop_back();
      if (!ok) return false;
    }
    return true;
  }

 private:
  bool fail(const YAML::Node& node, const std::string& message) {
    reader_.error(node, index_path(path_, index_), message);
    return false;
  }

  // Not a stop: every element the dtype cannot hold goes into one error
  // of the file (Reader::inexact_value), so the walk goes on.
  void inexact(const YAML::Node& node, const std::string& written,
               double becomes) {
    reader_.inexact_value(reader_.where(node), index_path(path_, index_),
                          written, dtype_number_text(dtype_, becomes),
                          std::string(dtype_name(dtype_)));
  }

  bool element(const YAML::Node& node) {
    const Scalar scalar = resolve_scalar(node);
    if (is_floating(dtype_)) {
      if (scalar.float_out_of_range) {
        return fail(node, out_of_range_message(scalar));
      }
      double value = 0.0;
      if (scalar.kind == Scalar::Kind::kFloat) {
        value = scalar.float_value;
      } else if (scalar.kind == Scalar::Kind::kInt) {
        value = scalar.int_overflow ? std::strtod(scalar.text.c_str(), nullptr)
                                    : static_cast<double>(scalar.int_value);
        if (!spec_.round_to_nearest && !scalar.int_overflow &&
            static_cast<long double>(scalar.int_value) !=
                static_cast<long double>(value)) {
          // Beyond 2^53: already rounded on the way to a double.
          const double becomes =
              dtype_ == DType::kFloat64
                  ? value
                  : inexact_in(dtype_, value).value_or(value);
          inexact(node, scalar.text, becomes);
          spec_.float_values.push_back(value);
          return true;
        }
      } else {
        return fail(node, "expected a number for " +
                              std::string(dtype_name(dtype_)) + "; got " +
                              describe(node));
      }
      if (!spec_.round_to_nearest) {
        if (const auto becomes = inexact_in(dtype_, value)) {
          inexact(node, scalar.text, *becomes);
        }
      }
      spec_.float_values.push_back(value);
      return true;
    }
    if (dtype_ == DType::kBool) {
      if (scalar.kind == Scalar::Kind::kBool) {
        spec_.int_values.push_back(scalar.bool_value ? 1 : 0);
        return true;
      }
      if (scalar.kind == Scalar::Kind::kInt && !scalar.int_overflow &&
          (scalar.int_value == 0 || scalar.int_value == 1)) {
        spec_.int_values.push_back(scalar.int_value);
        return true;
      }
      return fail(
          node, "expected true, false, 0 or 1 for bool; got " + describe(node));
    }
    const auto [low, high] = integer_range(dtype_);
    if (scalar.kind == Scalar::Kind::kInt && !scalar.int_overflow &&
        scalar.int_value >= low && scalar.int_value <= high) {
      spec_.int_values.push_back(scalar.int_value);
      return true;
    }
    return fail(node, "expected an integer in [" + std::to_string(low) + ", " +
                          std::to_string(high) + "] for " +
                          std::string(dtype_name(dtype_)) + "; got " +
                          describe(node));
  }

  Reader& reader_;
  std::string path_;
  DType dtype_;
  std::vector<int64_t> shape_;
  TensorSpec& spec_;
  std::vector<size_t> index_;
};

}  // namespace

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

bool read_values(Reader& reader, const Entry& entry, const std::string& path,
                 DType dtype, const std::optional<std::vector<int64_t>>& given,
                 TensorSpec& spec) {
  const YAML::Node& node = entry.value;
  if (node.IsMap() || node.IsNull()) {
    reader.error(reader.where(entry), path,
                 "expected a number or a (nested) list of numbers; got " +
                     describe(node));
    return false;
  }
  // The shape the first elements give: a scalar is a tensor of rank 0.
  // (Node::reset, never operator=: assigning a yaml-cpp node rewrites the
  // document it belongs to.)
  std::vector<int64_t> inferred;
  for (YAML::Node row = node; row.IsSequence();) {
    inferred.push_back(static_cast<int64_t>(row.size()));
    if (row.size() == 0) break;
    const YAML::Node first = std::as_const(row)[0];
    row.reset(first);
  }
  ValuesWalker walker(reader, path, dtype, inferred, spec);
  if (!walker.walk(node, 0)) return false;
  const int64_t count = element_count(inferred);
  if (given && inferred.size() <= 1) {
    // A flat list (or a scalar) takes the shape given.
    if (count != element_count(*given)) {
      reader.error(reader.where(entry), path,
                   std::to_string(count) + " values for shape " +
                       shape_text(*given) + ", which holds " +
                       std::to_string(element_count(*given)));
      return false;
    }
  } else if (given && inferred != *given) {
    reader.error(reader.where(entry), path,
                 "the nested values have shape " + shape_text(inferred) +
                     "; `shape` says " + shape_text(*given));
    return false;
  }
  spec.shape = given ? *given : inferred;
  return true;
}

}  // namespace casebook::model

namespace casebook {

std::string number_text(double value) {
  if (std::isnan(value)) return ".nan";
  if (std::isinf(value)) return value > 0 ? ".inf" : "-.inf";
  char buffer[40];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
    if (std::strtod(buffer, nullptr) == value) break;
  }
  return buffer;
}

std::string yaml_number(double value) {
  std::string text = number_text(value);
  const size_t exponent = text.find('e');
  if (exponent != std::string::npos && text.find('.') == std::string::npos) {
    text.insert(exponent, ".0");
  }
  return text;
}

}  // namespace casebook
