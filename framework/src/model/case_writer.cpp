// Case -> YAML text, flow style per tensor and expectation, in the order of
// docs/case-format.md's tables.
#include "casebook/case_writer.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "casebook/number_text.h"

namespace casebook {
namespace {

// A double-quoted YAML scalar (JSON escapes are YAML's).
std::string yaml_quoted(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\x%02x", c);
      out += buffer;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// A key as written: plain where it is a plain word or index ("0",
// "grad.input"), else quoted (a quoted "0" would be a name, not an index).
std::string key(const std::string& text) {
  const bool plain =
      !text.empty() && text.find_first_not_of(
                           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"
                           "WXYZ0123456789_.") == std::string::npos;
  return plain ? text : yaml_quoted(text);
}

template <typename T, typename F>
std::string list(const std::vector<T>& items, F each) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    out += (i ? ", " : "") + each(items[i]);
  }
  return out + "]";
}

std::string ints(const std::vector<int64_t>& values) {
  return list(values, [](int64_t v) { return std::to_string(v); });
}

std::string arg(const ArgValue& value) {
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
      return yaml_quoted(value.string_value);
    case ArgValue::Kind::kList:
      return list(value.list, [](const ArgValue& item) { return arg(item); });
    case ArgValue::Kind::kGenerator:
      return "{seed: " + std::to_string(value.int_value) + "}";
  }
  return "null";
}

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

// A complex tensor's values (re and im in turn) as a flat list of pairs,
// `[[1.0, 2.0], [3.0, -0.5]]`: the shape is always written beside them.
std::string complex_pairs(const std::vector<double>& parts) {
  std::string out = "[";
  for (size_t i = 0; i + 1 < parts.size(); i += 2) {
    out += (i ? ", [" : "[") + yaml_number(parts[i]) + ", " +
           yaml_number(parts[i + 1]) + "]";
  }
  return out + "]";
}

std::string layout(const Layout& l) {
  switch (l.kind) {
    case Layout::Kind::kDefault:
      return "";
    case Layout::Kind::kTranspose:
      return "{transpose: " + ints(l.dims) + "}";
    case Layout::Kind::kPermute:
      return "{permute: " + ints(l.dims) + "}";
    case Layout::Kind::kStrided:
      return "{stride: " + ints(l.stride) +
             ", storage_offset: " + std::to_string(l.storage_offset) + "}";
    case Layout::Kind::kNonContiguous:
      return "{contiguous: false}";
  }
  return "";
}

std::string tensor_fields(const TensorSpec& spec) {
  std::string out = "dtype: " + std::string(dtype_name(spec.dtype));
  if (spec.shape_given) out += ", shape: " + ints(spec.shape);
  switch (spec.source) {
    case TensorSpec::Source::kValues:
      if (is_complex(spec.dtype)) {
        out += ", values: " + complex_pairs(spec.float_values);
      } else if (is_floating(spec.dtype)) {
        out += ", values: " + list(spec.float_values, yaml_number);
      } else {
        out += ", values: " + ints(spec.int_values);
      }
      if (spec.round_to_nearest) out += ", rounding: nearest";
      break;
    case TensorSpec::Source::kFill:
      out += ", fill: " + fill(spec);
      if (spec.seed != 0) out += ", seed: " + std::to_string(spec.seed);
      break;
    case TensorSpec::Source::kFile:
      out += ", file: " +
             // `file` is as written: its `#name` is in it already.
             yaml_quoted(spec.file);
      if (!spec.sha256.empty()) out += ", sha256: " + spec.sha256;
      break;
  }
  const std::string how = layout(spec.layout);
  if (!how.empty()) out += ", layout: " + how;
  return out;
}

std::string tolerance(const Tolerance& t) {
  return "{rtol: " + yaml_number(t.rtol) + ", atol: " + yaml_number(t.atol) +
         "}";
}

// `{min: A, max: B}`, the ends written.
std::string bounds(const ValueBounds& b) {
  std::string out;
  if (b.min) out += "min: " + yaml_number(*b.min);
  if (b.max) out += (out.empty() ? "max: " : ", max: ") + yaml_number(*b.max);
  return "{" + out + "}";
}

std::string output(const OutputExpectation& o) {
  std::vector<std::string> fields;
  if (o.values) {
    // The values' own fields carry dtype and shape.
    fields.push_back(tensor_fields(*o.values));
  } else {
    if (o.dtype)
      fields.push_back("dtype: " + std::string(dtype_name(*o.dtype)));
    if (o.shape) fields.push_back("shape: " + ints(*o.shape));
  }
  if (o.tolerance) fields.push_back("tolerance: " + tolerance(*o.tolerance));
  if (o.equal_nan)
    fields.push_back(*o.equal_nan ? "equal_nan: true" : "equal_nan: false");
  if (o.finite) fields.push_back("finite: true");
  if (o.all_nan) fields.push_back("nan: true");
  if (o.nan_positions) {
    fields.push_back("nan: " + list(*o.nan_positions, [](const auto& at) {
                       // A flat index is kept as {-1, i}.
                       return at.size() == 2 && at[0] == -1
                                  ? std::to_string(at[1])
                                  : ints(at);
                     }));
  }
  if (o.min) fields.push_back("min: " + yaml_number(*o.min));
  if (o.max) fields.push_back("max: " + yaml_number(*o.max));
  if (o.mean_bounds) fields.push_back("mean: " + bounds(*o.mean_bounds));
  if (o.std_bounds) fields.push_back("std: " + bounds(*o.std_bounds));
  std::string out = "{";
  for (size_t i = 0; i < fields.size(); ++i) out += (i ? ", " : "") + fields[i];
  return out + "}";
}

std::string outputs_map(const std::vector<OutputExpectation>& outputs) {
  std::string out = "{";
  for (size_t i = 0; i < outputs.size(); ++i) {
    out += (i ? ", " : "") + key(outputs[i].key) + ": " + output(outputs[i]);
  }
  return out + "}";
}

std::string when(const std::vector<Condition>& conditions) {
  std::string out = "{";
  for (size_t i = 0; i < conditions.size(); ++i) {
    const Condition& c = conditions[i];
    std::string value = yaml_quoted(c.text);
    if (c.fact == "cpu" || c.text.find(' ') != std::string::npos) {
      std::vector<std::string> words;
      std::istringstream in(c.text);
      for (std::string word; in >> word;) words.push_back(yaml_quoted(word));
      value = list(words, [](const std::string& w) { return w; });
    }
    out += (i ? ", " : "") + c.fact + ": " + value;
  }
  return out + "}";
}

std::string expectation(const Expectation& e) {
  std::vector<std::string> fields;
  switch (e.kind) {
    case Expectation::Kind::kMatch:
      break;
    case Expectation::Kind::kError:
      fields.push_back("error: " + std::string(family_name(e.family)));
      if (e.message) fields.push_back("message: " + yaml_quoted(*e.message));
      if (e.positions) fields.push_back("positions: " + ints(*e.positions));
      break;
    case Expectation::Kind::kXfail:
      fields.push_back("xfail: " + yaml_quoted(e.reason));
      if (e.family != Family::kNone) {
        fields.push_back("family: " + std::string(family_name(e.family)));
      }
      break;
    case Expectation::Kind::kSkip:
      fields.push_back("skip: " + yaml_quoted(e.reason));
      break;
  }
  if (!e.outputs.empty())
    fields.push_back("outputs: " + outputs_map(e.outputs));
  if (!e.when.empty()) fields.push_back("when: " + when(e.when));
  if (fields.empty()) return "match";
  std::string out = "{";
  for (size_t i = 0; i < fields.size(); ++i) out += (i ? ", " : "") + fields[i];
  return out + "}";
}

// `origin`'s dotted keys ("versions.torch") back into nested maps.
void write_origin(std::ostream& out, const Origin& origin) {
  out << "origin:\n";
  std::string group;
  for (const auto& [key, value] : origin.entries) {
    const size_t dot = key.find('.');
    if (dot == std::string::npos) {
      group.clear();
      out << "  " << key << ": " << yaml_quoted(value) << "\n";
      continue;
    }
    const std::string head = key.substr(0, dot);
    if (head != group) {
      out << "  " << head << ":\n";
      group = head;
    }
    out << "    " << key.substr(dot + 1) << ": " << yaml_quoted(value) << "\n";
  }
}

}  // namespace

std::string case_to_yaml(const Case& kase) {
  std::ostringstream out;
  out << "casebook: 1\n";
  out << "summary: " << yaml_quoted(kase.summary) << "\n";
  out << "op: " << kase.op << "\n";
  if (!kase.args.empty()) {
    out << "args: {";
    bool first = true;
    for (const auto& [name, value] : kase.args) {
      out << (first ? "" : ", ") << name << ": " << arg(value);
      first = false;
    }
    out << "}\n";
  }
  out << "inputs:\n";
  for (const TensorSpec& input : kase.inputs) {
    out << "  " << key(input.name) << ": {" << tensor_fields(input) << "}\n";
  }
  if (kase.backends != built_in_backends()) {
    out << "backends: " << list(kase.backends, [](Backend b) {
      return std::string(backend_name(b));
    }) << "\n";
  }
  switch (kase.reference) {
    case Case::Reference::kCpu:
      break;
    case Case::Reference::kCpu64:
      out << "reference: cpu64\n";
      break;
    case Case::Reference::kTorch:
      out << "reference: torch\n";
      break;
    case Case::Reference::kNone:
      out << "reference: none\n";
      break;
  }
  if (kase.tolerance || kase.equal_nan) {
    out << "tolerance: {";
    if (kase.tolerance) {
      out << "rtol: " << yaml_number(kase.tolerance->rtol)
          << ", atol: " << yaml_number(kase.tolerance->atol)
          << (kase.equal_nan ? ", " : "");
    }
    if (kase.equal_nan) out << "equal_nan: true";
    out << "}\n";
  }
  if (!kase.expect_entries.empty()) {
    out << "expect:\n";
    for (const auto& [backend, entries] : kase.expect_entries) {
      out << "  " << backend_name(backend) << ": ";
      if (entries.size() == 1 && entries[0].when.empty()) {
        out << expectation(entries[0]) << "\n";
        continue;
      }
      out << "\n";
      for (const Expectation& entry : entries) {
        out << "    - " << expectation(entry) << "\n";
      }
    }
  }
  if (!kase.outputs.empty()) {
    out << "outputs:\n";
    for (const OutputExpectation& o : kase.outputs) {
      out << "  " << key(o.key) << ": " << output(o) << "\n";
    }
  }
  if (kase.repeat != 1) out << "repeat: " << kase.repeat << "\n";
  if (kase.deterministic == Case::Determinism::kBitwise) {
    out << "deterministic: bitwise\n";
  } else if (kase.deterministic == Case::Determinism::kTolerance) {
    out << "deterministic: tolerance\n";
  }
  if (kase.timeout_seconds != 60.0) {
    out << "timeout: " << yaml_number(kase.timeout_seconds) << "\n";
  }
  if (kase.grad) {
    out << "grad:\n  wrt: " << list(kase.grad->wrt, [](const std::string& w) {
      return yaml_quoted(w);
    }) << "\n";
    if (!kase.grad->grad_outputs.empty()) {
      out << "  grad_outputs:\n";
      for (const TensorSpec& fed : kase.grad->grad_outputs) {
        out << "    " << key(fed.name) << ": {" << tensor_fields(fed) << "}\n";
      }
    }
    if (kase.grad->finite_differences) out << "  check: finite_differences\n";
  }
  if (!kase.origin.empty()) write_origin(out, kase.origin);
  return out.str();
}

}  // namespace casebook
