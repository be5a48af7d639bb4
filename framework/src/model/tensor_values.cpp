// `values`: a nested list (shape inferred, ragged rows rejected) or a flat
// list with `shape`, each element checked against the dtype and kept exactly.
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>
#include <vector>

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

std::string index_path(const std::string& path,
                       const std::vector<size_t>& index) {
  std::string out = path;
  for (size_t i : index) out += "[" + std::to_string(i) + "]";
  return out;
}

// Walks the values row-major, checking every row against the shape the first
// elements gave and every element against the dtype; stops at the first
// problem (one is enough to fix, and a long list would flood the report).
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

  bool element(const YAML::Node& node) {
    const Scalar scalar = resolve_scalar(node);
    if (is_floating(dtype_)) {
      if (scalar.kind == Scalar::Kind::kFloat) {
        spec_.float_values.push_back(scalar.float_value);
      } else if (scalar.kind == Scalar::Kind::kInt) {
        spec_.float_values.push_back(
            scalar.int_overflow ? std::strtod(scalar.text.c_str(), nullptr)
                                : static_cast<double>(scalar.int_value));
      } else {
        return fail(node, "expected a number for " +
                              std::string(dtype_name(dtype_)) + "; got " +
                              describe(node));
      }
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
