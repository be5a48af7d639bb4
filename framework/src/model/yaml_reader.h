// Internal: reading checked values out of a yaml-cpp tree while collecting
// errors that name the file, the 1-based line and column and the key path.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "casebook/case.h"
#include "casebook/loader.h"

namespace casebook::model {

// One `key: value` of a map, with the key's own node (for its location).
struct Entry {
  std::string key;
  YAML::Node key_node;
  YAML::Node value;
};

// A plain scalar resolved as YAML's core schema does; quoted scalars are
// always strings. `text` is the scalar as written.
struct Scalar {
  enum class Kind { kNull, kBool, kInt, kFloat, kString };
  Kind kind = Kind::kNull;
  bool bool_value = false;
  int64_t int_value = 0;
  double float_value = 0.0;
  bool int_overflow = false;  // an integer beyond the int64 range
  // A number (float, or integer beyond int64) that float64 cannot hold at
  // all: 1e400 (beyond its range: infinity is `.inf`) or 1e-400 (below its
  // smallest subnormal: it would read as 0). Refused wherever a number is
  // read, as docs/case-format.md says.
  bool float_out_of_range = false;
  bool quoted = false;
  std::string text;
};

Scalar resolve_scalar(const YAML::Node& node);

// "float64 cannot hold 1e400: it is beyond its range (write .inf for an
// infinity)": why a float_out_of_range scalar is refused.
std::string out_of_range_message(const Scalar& scalar);

// "`float`", "`\"1\"`", "a list", "a map", "nothing": what was found.
std::string describe(const YAML::Node& node);

// The line and column (1-based) of byte `offset` of `text`.
SourceLocation location_of_byte(const std::string& text, size_t offset,
                                const std::filesystem::path& file);

// "a.b" from "a" and "b"; "b" when `path` is empty.
std::string join_path(const std::string& path, const std::string& key);

// The closed interval of values an integer dtype holds (bool: 0..1).
std::pair<int64_t, int64_t> integer_range(DType dtype);

// "float32, float64, ...": every dtype's name, for errors.
std::string dtype_names();

class Reader {
 public:
  explicit Reader(std::filesystem::path file) : file_(std::move(file)) {}

  const std::filesystem::path& file() const { return file_; }
  SourceLocation where(const YAML::Node& node) const;
  // The value's location, or the key's where the value has none (a missing
  // value: yaml-cpp marks it at the next token).
  SourceLocation where(const Entry& entry) const;

  void error(const SourceLocation& where, const std::string& key_path,
             const std::string& message);
  void error(const YAML::Node& at, const std::string& key_path,
             const std::string& message) {
    error(where(at), key_path, message);
  }
  size_t error_count() const { return errors_.size(); }
  // Every error, the values not held exactly (below) gathered into one.
  std::vector<CaseError> take_errors();

  // An element of `values` its dtype cannot hold exactly (`path`:
  // "inputs.x.values[2]"; `written` as the file says it, `becomes` the
  // value it would be in `dtype`). Every such element of the file goes into
  // one error, at the first, listing each: the author fixes them at once.
  void inexact_value(const SourceLocation& where, const std::string& path,
                     const std::string& written, const std::string& becomes,
                     const std::string& dtype);

  // The file's top-level `rounding: nearest`: every tensor's `values` are
  // rounded to their dtype's nearest value, as each tensor's own
  // `rounding: nearest` says.
  void set_round_values_to_nearest(bool nearest) { round_values_ = nearest; }
  bool round_values_to_nearest() const { return round_values_; }

  // The entries of a map, in file order. Reports (and drops) keys that are
  // not in `known`, with the nearest known one, and keys that are not
  // scalars; drops a key given twice (prescan_yaml reported it). An empty
  // `known` accepts every key. Returns nullopt (after an error "expected
  // <what>") when `node` is not a map.
  std::optional<std::vector<Entry>> read_map(
      const YAML::Node& node, const SourceLocation& at, const std::string& path,
      const std::vector<std::string>& known, const std::string& what);

  // Typed values; each reports "expected ...; got ..." and returns nullopt.
  std::optional<std::string> read_string(const Entry& entry,
                                         const std::string& path);
  std::optional<int64_t> read_int(const YAML::Node& node,
                                  const SourceLocation& at,
                                  const std::string& path);
  std::optional<double> read_number(const YAML::Node& node,
                                    const SourceLocation& at,
                                    const std::string& path);
  std::optional<bool> read_bool(const Entry& entry, const std::string& path);
  // A scalar naming one of a closed set (a dtype, a family, a backend):
  // `parse(text)` gives its value or nullopt; the error lists `names`, and
  // `suggest(text)` (model/suggestions.h; may be null) the name meant.
  template <typename Parse>
  auto read_name(const YAML::Node& node, const SourceLocation& at,
                 const std::string& path, Parse parse, const std::string& names,
                 std::string (*suggest)(const std::string&) = nullptr)
      -> decltype(parse(std::string())) {
    const Scalar scalar = resolve_scalar(node);
    auto value = scalar.kind == Scalar::Kind::kString
                     ? parse(scalar.text)
                     : decltype(parse(std::string())){};
    if (!value) {
      std::string message =
          "expected one of " + names + "; got " + describe(node);
      if (suggest != nullptr && scalar.kind == Scalar::Kind::kString) {
        const std::string meant = suggest(scalar.text);
        if (!meant.empty()) message += "; did you mean `" + meant + "`?";
      }
      error(at, path, message);
    }
    return value;
  }
  // A list of integers, each at least `minimum`.
  std::optional<std::vector<int64_t>> read_int_list(const Entry& entry,
                                                    const std::string& path,
                                                    int64_t minimum);

 private:
  struct InexactValue {
    std::string path, written, becomes, dtype;
  };

  std::filesystem::path file_;
  std::vector<CaseError> errors_;
  bool round_values_ = false;
  std::vector<InexactValue> inexact_;
  size_t inexact_error_ = 0;  // its place in errors_, once inexact_ has one
};

// The entry named `key`, or null.
const Entry* find_entry(const std::vector<Entry>& entries,
                        const std::string& key);

}  // namespace casebook::model
