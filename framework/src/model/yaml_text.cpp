// The flow-style YAML text of values, arguments and tensors, as
// case_to_yaml writes them (model/yaml_text.h).
#include "model/yaml_text.h"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <cmath>

#include "casebook/limits.h"
#include "casebook/number_text.h"
#include "model/yaml_reader.h"

namespace casebook::model {

std::string yaml_key(const std::string& text) {
  const bool plain =
      !text.empty() && text.find_first_not_of(
                           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"
                           "WXYZ0123456789_.") == std::string::npos;
  return plain ? text : double_quoted(text);
}

std::string yaml_ints(const std::vector<int64_t>& values) {
  return yaml_list(values, [](int64_t v) { return std::to_string(v); });
}

namespace {

// A word (a letter or `_`, then letters, digits, `_`, `.`, `-`) that the
// loader's reading of a plain scalar (resolve_scalar) gives back as that
// string: not `true`, `null`, `.nan` or a number.
bool plain_reads_back(const std::string& text) {
  if (text.empty() ||
      !(std::isalpha(static_cast<unsigned char>(text[0])) || text[0] == '_')) {
    return false;
  }
  for (const char c : text) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' &&
        c != '-') {
      return false;
    }
  }
  const Scalar read = resolve_scalar(YAML::Load(text));
  return read.kind == Scalar::Kind::kString && read.text == text;
}

}  // namespace

std::string yaml_arg(const ArgValue& value) {
  switch (value.kind) {
    case ArgValue::Kind::kNull:
      return "null";
    case ArgValue::Kind::kBool:
      return value.bool_value ? "true" : "false";
    case ArgValue::Kind::kInt:
      return std::to_string(value.int_value);
    case ArgValue::Kind::kFloat:
      return yaml_float(value.float_value);
    case ArgValue::Kind::kString:
      return plain_reads_back(value.string_value)
                 ? value.string_value
                 : double_quoted(value.string_value);
    case ArgValue::Kind::kList:
      return yaml_list(value.list,
                       [](const ArgValue& item) { return yaml_arg(item); });
    case ArgValue::Kind::kGenerator:
      return "{seed: " + std::to_string(value.int_value) + "}";
  }
  return "null";
}

namespace {

std::string fill(const TensorSpec& spec) {
  const Fill& f = spec.fill;
  const bool integral = !is_floating(spec.dtype) && !is_complex(spec.dtype);
  auto scalar = [&](double v) {
    if (spec.dtype == DType::kBool)
      return std::string(v != 0 ? "true" : "false");
    if (integral && std::isfinite(v)) {
      return std::to_string(static_cast<int64_t>(v));
    }
    return yaml_number(v);
  };
  auto pair = [&](const char* a, const char* b) {
    return std::string("{") + a + ": " + scalar(f.first) + ", " + b + ": " +
           scalar(f.second) + "}";
  };
  switch (f.kind) {
    case Fill::Kind::kNormal:
      return "{normal: " + pair("mean", "std") + "}";
    case Fill::Kind::kUniform:
      return "{uniform: " + pair("low", "high") + "}";
    case Fill::Kind::kRandint:
      return "{randint: " + pair("low", "high") + "}";
    case Fill::Kind::kArange:
      return "{arange: " + pair("start", "step") + "}";
    case Fill::Kind::kFull:
      if (is_complex(spec.dtype)) {
        return "{full: [" + scalar(f.first) + ", " + scalar(f.second) + "]}";
      }
      return "{full: " + scalar(f.first) + "}";
    case Fill::Kind::kTorch:
      if (f.torch_call == "randint" || f.torch_call == "uniform") {
        return "{torch: {" + f.torch_call + ": " + pair("low", "high") + "}}";
      }
      if (f.torch_call == "normal") {
        return "{torch: {normal: " + pair("mean", "std") + "}}";
      }
      if (f.torch_call == "bernoulli") {
        return "{torch: {bernoulli: {p: " + yaml_number(f.first) + "}}}";
      }
      return "{torch: " + f.torch_call + "}";
  }
  return "{}";
}

// Element `k` (C order) of `spec`'s values, exact: bool as true/false,
// integers as int64 text, floating values as yaml_number, complex ones as
// `[re, im]`.
std::string element_text(const TensorSpec& spec, size_t k) {
  if (is_complex(spec.dtype)) {
    return "[" + yaml_number(spec.float_values[2 * k]) + ", " +
           yaml_number(spec.float_values[2 * k + 1]) + "]";
  }
  if (is_floating(spec.dtype)) return yaml_number(spec.float_values[k]);
  if (spec.dtype == DType::kBool)
    return spec.int_values[k] != 0 ? "true" : "false";
  return std::to_string(spec.int_values[k]);
}

// Values nested by a shape of more dims than this are written as one flat
// list beside their shape: a list nested once per dim, inside a case file's
// few levels of maps, would pass the reader's nesting limit
// (LoadLimits::max_depth, 64), and PyTorch's own error inputs hold 65-dim
// tensors.
constexpr size_t kMostNestedDims = 32;

bool writes_values_flat(const TensorSpec& spec) {
  return spec.shape.size() > kMostNestedDims;
}

void write_nested(std::string& out, const TensorSpec& spec, size_t dim,
                  int64_t* at, int64_t limit) {
  if (dim == spec.shape.size()) {
    out += limit < 0 || *at < limit
               ? element_text(spec, static_cast<size_t>(*at))
               : "...";
    ++*at;
    return;
  }
  out += '[';
  for (int64_t i = 0; i < spec.shape[dim]; ++i) {
    if (i > 0) out += ", ";
    if (limit >= 0 && *at >= limit) {
      out += "...";
      break;
    }
    write_nested(out, spec, dim + 1, at, limit);
  }
  out += ']';
}

std::string layout(const Layout& l) {
  switch (l.kind) {
    case Layout::Kind::kDefault:
      return "";
    case Layout::Kind::kTranspose:
      return "{transpose: " + yaml_ints(l.dims) + "}";
    case Layout::Kind::kPermute:
      return "{permute: " + yaml_ints(l.dims) + "}";
    case Layout::Kind::kStrided:
      return "{stride: " + yaml_ints(l.stride) +
             ", storage_offset: " + std::to_string(l.storage_offset) + "}";
    case Layout::Kind::kNonContiguous:
      return "{contiguous: false}";
  }
  return "";
}

}  // namespace

std::string values_text(const TensorSpec& spec, int64_t limit) {
  // No element: `[]`, the shape beside it (nested lists cannot say the dims
  // after a 0: [2, 0, 3] would read back as [2, 0]).
  if (element_count(spec.shape) == 0) return "[]";
  std::string out;
  int64_t at = 0;
  if (writes_values_flat(spec)) {  // one list, the shape beside it
    out += '[';
    const auto count = static_cast<int64_t>(element_count(spec.shape));
    for (; at < count; ++at) {
      if (at > 0) out += ", ";
      if (limit >= 0 && at >= limit) {
        out += "...";
        break;
      }
      out += element_text(spec, static_cast<size_t>(at));
    }
    return out + ']';
  }
  // A 0-d tensor's one element in a list, as the loader reads it.
  if (spec.shape.empty()) out += '[';
  write_nested(out, spec, 0, &at, limit);
  if (spec.shape.empty()) out += ']';
  return out;
}

std::string tensor_fields(const TensorSpec& spec) {
  if (!spec.same_as.empty()) {  // its target's tensor: nothing of its own
    return "same_as: " + (plain_reads_back(spec.same_as)
                              ? spec.same_as
                              : double_quoted(spec.same_as));
  }
  std::string out = "dtype: " + std::string(dtype_name(spec.dtype));
  const bool shape_needed =
      spec.source == TensorSpec::Source::kValues &&
      (element_count(spec.shape) == 0 || writes_values_flat(spec));
  if (spec.shape_given || shape_needed) {
    out += ", shape: " + yaml_ints(spec.shape);
  }
  switch (spec.source) {
    case TensorSpec::Source::kValues:
      out += ", values: " + values_text(spec);
      if (spec.round_to_nearest) out += ", rounding: nearest";
      break;
    case TensorSpec::Source::kFill:
      out += ", fill: " + fill(spec);
      if (spec.seed != 0) out += ", seed: " + std::to_string(spec.seed);
      break;
    case TensorSpec::Source::kFile:
      out += ", file: " +
             // `file` is as written: its `#name` is in it already.
             double_quoted(spec.file);
      if (!spec.sha256.empty()) out += ", sha256: " + spec.sha256;
      break;
  }
  const std::string how = layout(spec.layout);
  if (!how.empty()) out += ", layout: " + how;
  return out;
}

}  // namespace casebook::model
