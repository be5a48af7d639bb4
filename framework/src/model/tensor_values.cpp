// `values`: a nested list (shape inferred, ragged rows rejected) or a flat
// list with `shape`, each element checked against the dtype and kept exactly.
// A complex element is a pair `[re, im]`, a map `{re, im}` or a real number
// (im 0): in a complex tensor a list of numbers is one element, not a row.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "casebook/number_text.h"
#include "casebook/shape_text.h"
#include "model/sections.h"

namespace casebook::model {
namespace {

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

// Whether `node` is one complex element written as a pair: a list whose
// first entry is a number (a row's first entry is a list or a map).
bool complex_pair(const YAML::Node& node) {
  return node.IsSequence() && node.size() > 0 &&
         std::as_const(node)[0].IsScalar();
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
      if (is_complex(dtype_)) return complex_element(node);
      if (node.IsSequence()) {
        return fail(node,
                    "ragged values: expected a number like the first "
                    "row's elements; got a list");
      }
      return element(node);
    }
    const auto expected = static_cast<size_t>(shape_[depth]);
    if (is_complex(dtype_) && (complex_pair(node) || node.IsMap())) {
      return fail(node, "ragged values: expected a row of " +
                            std::to_string(expected) +
                            " elements like the first; got one complex "
                            "element");
    }
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
    return fail_part(node, "", message);
  }
  bool fail_part(const YAML::Node& node, const std::string& part_path,
                 const std::string& message) {
    reader_.error(node, index_path(path_, index_) + part_path, message);
    return false;
  }

  // Not a stop: every element the dtype cannot hold goes into one error
  // of the file (Reader::inexact_value), so the walk goes on.
  // `dtype`: the dtype the value is rounded to (a complex one's part's).
  void inexact(const YAML::Node& node, const std::string& part_path,
               DType dtype, const std::string& written, double becomes) {
    reader_.inexact_value(
        reader_.where(node), index_path(path_, index_) + part_path, written,
        dtype_number_text(dtype, becomes), std::string(dtype_name(dtype_)));
  }

  // One complex element: `[re, im]`, `{re: .., im: ..}`, or a real number.
  bool complex_element(const YAML::Node& node) {
    const std::string what =
        "a complex number: a pair [re, im], a map {re: .., im: ..} or a "
        "real number";
    const DType part = part_dtype(dtype_);
    if (node.IsScalar()) {
      if (!floating_value(node, part, "")) return false;
      spec_.float_values.push_back(0.0);
      return true;
    }
    if (node.IsSequence()) {
      if (node.size() != 2) {
        return fail(node, "expected " + what + "; got a list of " +
                              std::to_string(node.size()) +
                              (node.size() == 1 ? " entry" : " entries"));
      }
      return floating_value(node[0], part, "[0]") &&
             floating_value(node[1], part, "[1]");
    }
    if (!node.IsMap()) return fail(node, "expected " + what);
    const size_t errors_before = reader_.error_count();
    const auto parts =
        reader_.read_map(node, reader_.where(node), index_path(path_, index_),
                         {"re", "im"}, what);
    if (!parts || reader_.error_count() != errors_before) return false;
    const Entry* re = find_entry(*parts, "re");
    const Entry* im = find_entry(*parts, "im");
    if (re == nullptr || im == nullptr) {
      return fail(node, "expected " + what + "; the map lacks `" +
                            std::string(re == nullptr ? "re" : "im") + "`");
    }
    return floating_value(re->value, part, ".re") &&
           floating_value(im->value, part, ".im");
  }

  // A floating number of `dtype` (a complex element's part: `part_path` is
  // "[0]", ".im", ...; "" for a real element), appended to float_values.
  bool floating_value(const YAML::Node& node, DType dtype,
                      const std::string& part_path) {
    const Scalar scalar = resolve_scalar(node);
    if (scalar.float_out_of_range) {
      return fail_part(node, part_path, out_of_range_message(scalar));
    }
    double value = 0.0;
    if (scalar.kind == Scalar::Kind::kFloat) {
      value = scalar.float_value;
    } else if (scalar.kind == Scalar::Kind::kInt) {
      value = scalar.int_overflow ? std::strtod(scalar.text.c_str(), nullptr)
                                  : static_cast<double>(scalar.int_value);
    }
    // Past the dtype's largest finite value: an infinity nobody wrote, unless
    // the tensor asks for rounding to nearest (which makes it one, as IEEE
    // rounding does, and as version-1 files have it).
    const std::string beyond = beyond_range(dtype, value, scalar.text);
    if (!beyond.empty() && !spec_.round_to_nearest) {
      return fail_part(node, part_path, beyond);
    }
    if (scalar.kind == Scalar::Kind::kInt) {
      if (!spec_.round_to_nearest && !scalar.int_overflow &&
          static_cast<long double>(scalar.int_value) !=
              static_cast<long double>(value)) {
        // Beyond 2^53: already rounded on the way to a double.
        const double becomes = dtype == DType::kFloat64
                                   ? value
                                   : inexact_in(dtype, value).value_or(value);
        inexact(node, part_path, dtype, scalar.text, becomes);
        spec_.float_values.push_back(value);
        return true;
      }
    } else if (scalar.kind != Scalar::Kind::kFloat) {
      return fail_part(node, part_path,
                       "expected a number for " +
                           std::string(dtype_name(dtype_)) + "; got " +
                           describe(node));
    }
    if (!spec_.round_to_nearest) {
      if (const auto becomes = inexact_in(dtype, value)) {
        inexact(node, part_path, dtype, scalar.text, *becomes);
      }
    }
    spec_.float_values.push_back(value);
    return true;
  }

  bool element(const YAML::Node& node) {
    if (is_floating(dtype_)) return floating_value(node, dtype_, "");
    const Scalar scalar = resolve_scalar(node);
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
  if ((node.IsMap() && !is_complex(dtype)) || node.IsNull()) {
    reader.error(reader.where(entry), path,
                 "expected a number or a (nested) list of numbers; got " +
                     describe(node));
    return false;
  }
  // The shape the first elements give: a scalar is a tensor of rank 0.
  // (Node::reset, never operator=: assigning a yaml-cpp node rewrites the
  // document it belongs to.)
  std::vector<int64_t> inferred;
  for (YAML::Node row = node;
       row.IsSequence() && !(is_complex(dtype) && complex_pair(row));) {
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
