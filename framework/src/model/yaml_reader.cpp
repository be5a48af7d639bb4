#include "model/yaml_reader.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>

#include "casebook/joined.h"
#include "casebook/printable.h"

namespace casebook::model {

std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Scalar: {
      std::string text = node.Scalar();
      const size_t cut = std::min(text.find('\n'), size_t{40});
      if (cut < text.size()) text = text.substr(0, cut) + "...";
      if (node.Tag() != "?") text = "\"" + text + "\"";
      return "`" + text + "`";
    }
    default:
      return "nothing";
  }
}

SourceLocation location_of_byte(const std::string& text, size_t offset,
                                const std::filesystem::path& file) {
  SourceLocation where{file, 1, 1};
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++where.line;
      where.column = 1;
    } else {
      ++where.column;
    }
  }
  return where;
}

std::string join_path(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

std::string dtype_names() {
  std::vector<std::string> names;
  for (DType dtype : all_dtypes()) names.emplace_back(dtype_name(dtype));
  return joined(names);
}

std::pair<int64_t, int64_t> integer_range(DType dtype) {
  switch (dtype) {
    case DType::kBool:
      return {0, 1};
    case DType::kUInt8:
      return {0, 255};
    case DType::kInt8:
      return {-128, 127};
    case DType::kInt16:
      return {-32768, 32767};
    case DType::kInt32:
      return {std::numeric_limits<int32_t>::min(),
              std::numeric_limits<int32_t>::max()};
    default:
      return {std::numeric_limits<int64_t>::min(),
              std::numeric_limits<int64_t>::max()};
  }
}

SourceLocation Reader::where(const YAML::Node& node) const {
  SourceLocation location{file_, 0, 0};
  const YAML::Mark mark = node.Mark();
  if (!mark.is_null()) {
    location.line = mark.line + 1;
    location.column = mark.column + 1;
  }
  return location;
}

SourceLocation Reader::where(const Entry& entry) const {
  if (entry.value.IsNull() || entry.value.Mark().is_null()) {
    return where(entry.key_node);
  }
  return where(entry.value);
}

void Reader::error(const SourceLocation& where, const std::string& key_path,
                   const std::string& message) {
  errors_.push_back(CaseError{where, key_path, message});
}

void Reader::inexact_value(const SourceLocation& where, const std::string& path,
                           const std::string& written,
                           const std::string& becomes,
                           const std::string& dtype) {
  if (inexact_.empty()) {
    inexact_error_ = errors_.size();
    errors_.push_back(CaseError{where, path, ""});
  }
  inexact_.push_back({path, written, becomes, dtype});
}

std::vector<CaseError> Reader::take_errors() {
  if (!inexact_.empty()) {
    const InexactValue& first = inexact_.front();
    std::string message;
    if (inexact_.size() == 1) {
      message = first.dtype + " cannot hold " + first.written +
                " exactly: it would become " + first.becomes +
                "; write that value, or add `rounding: nearest` to the tensor";
    } else {
      message = std::to_string(inexact_.size()) +
                " values their dtype cannot hold exactly; write the value "
                "each would become, or add `rounding: nearest` to the tensor "
                "(or at the top level, for every tensor):";
      // The count comes first: a message is cut at kMessageBytes when
      // printed, and the list goes on in file order until then.
      for (size_t i = 0; i < inexact_.size() && message.size() < kMessageBytes;
           ++i) {
        const InexactValue& value = inexact_[i];
        message += (i ? "; `" : " `") + value.path + "`: " + value.dtype +
                   " cannot hold " + value.written + ", it would become " +
                   value.becomes;
      }
    }
    errors_[inexact_error_].message = message;
    inexact_.clear();
  }
  return std::move(errors_);
}

std::optional<std::vector<Entry>> Reader::read_map(
    const YAML::Node& node, const SourceLocation& at, const std::string& path,
    const std::vector<std::string>& known, const std::string& what) {
  if (!node.IsMap()) {
    error(at, path, "expected " + what + "; got " + describe(node));
    return std::nullopt;
  }
  std::vector<Entry> entries;
  std::set<std::string> seen;
  for (const auto& pair : node) {
    const YAML::Node key_node = pair.first;
    if (!key_node.IsScalar()) {
      error(key_node, path, "expected a key name; got " + describe(key_node));
      continue;
    }
    const std::string& key = key_node.Scalar();
    const std::string key_path = join_path(path, key);
    // A key given twice was reported by prescan_yaml, in every map.
    if (!seen.insert(key).second) continue;
    if (!known.empty() &&
        std::find(known.begin(), known.end(), key) == known.end()) {
      const std::string nearest = nearest_name(key, known);
      error(key_node, key_path,
            "unknown key `" + key + "`; " +
                (nearest.empty() ? "expected one of " + joined(known)
                                 : "did you mean `" + nearest + "`?"));
      continue;
    }
    entries.push_back(Entry{key, key_node, pair.second});
  }
  return entries;
}

std::optional<std::string> Reader::read_string(const Entry& entry,
                                               const std::string& path) {
  if (!entry.value.IsScalar()) {
    error(where(entry), path,
          "expected a string; got " + describe(entry.value));
    return std::nullopt;
  }
  return entry.value.Scalar();
}

std::optional<int64_t> Reader::read_int(const YAML::Node& node,
                                        const SourceLocation& at,
                                        const std::string& path) {
  const Scalar scalar = resolve_scalar(node);
  if (scalar.kind == Scalar::Kind::kInt && !scalar.int_overflow) {
    return scalar.int_value;
  }
  error(at, path,
        std::string("expected an integer") +
            (scalar.int_overflow ? " within the int64 range" : "") + "; got " +
            describe(node));
  return std::nullopt;
}

std::optional<double> Reader::read_number(const YAML::Node& node,
                                          const SourceLocation& at,
                                          const std::string& path) {
  const Scalar scalar = resolve_scalar(node);
  if (scalar.float_out_of_range) {
    error(at, path, out_of_range_message(scalar));
    return std::nullopt;
  }
  if (scalar.kind == Scalar::Kind::kFloat) return scalar.float_value;
  if (scalar.kind == Scalar::Kind::kInt) {
    return scalar.int_overflow ? std::strtod(scalar.text.c_str(), nullptr)
                               : static_cast<double>(scalar.int_value);
  }
  error(at, path, "expected a number; got " + describe(node));
  return std::nullopt;
}

std::optional<bool> Reader::read_bool(const Entry& entry,
                                      const std::string& path) {
  const Scalar scalar = resolve_scalar(entry.value);
  if (scalar.kind == Scalar::Kind::kBool) return scalar.bool_value;
  error(where(entry), path,
        "expected true or false; got " + describe(entry.value));
  return std::nullopt;
}

std::optional<std::vector<int64_t>> Reader::read_int_list(
    const Entry& entry, const std::string& path, int64_t minimum) {
  if (!entry.value.IsSequence()) {
    error(where(entry), path,
          "expected a list of integers; got " + describe(entry.value));
    return std::nullopt;
  }
  std::vector<int64_t> out;
  bool ok = true;
  for (size_t i = 0; i < entry.value.size(); ++i) {
    const YAML::Node item = entry.value[i];
    const std::string item_path = path + "[" + std::to_string(i) + "]";
    const std::optional<int64_t> value = read_int(item, where(item), item_path);
    if (value && *value < minimum) {
      error(item, item_path,
            "expected an integer >= " + std::to_string(minimum) + "; got " +
                describe(item));
      ok = false;
    } else if (!value) {
      ok = false;
    } else {
      out.push_back(*value);
    }
  }
  if (!ok) return std::nullopt;
  return out;
}

const Entry* find_entry(const std::vector<Entry>& entries,
                        const std::string& key) {
  for (const Entry& entry : entries) {
    if (entry.key == key) return &entry;
  }
  return nullptr;
}

}  // namespace casebook::model
