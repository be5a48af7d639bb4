// `outputs`: what each output must be, by index or by name: values (inline,
// generated or from a fixture) and properties (finite, nan, shape, dtype,
// min, max, mean, std, equal_nan, tolerance).
#include <cmath>
#include <string>
#include <vector>

#include "casebook/limits.h"
#include "casebook/suggestions.h"
#include "model/sections.h"

namespace casebook::model {
namespace {

// `nan: true`, or a list of positions: integers (row-major flat indices) or
// lists of integers (multi-indices).
void read_nan(Reader& reader, const Entry& item, const std::string& path,
              OutputExpectation& out) {
  const Scalar scalar = resolve_scalar(item.value);
  if (item.value.IsScalar() && scalar.kind == Scalar::Kind::kBool &&
      scalar.bool_value) {
    out.all_nan = true;
    return;
  }
  const std::string what =
      "`true` (every element is NaN) or a list of positions (flat indices "
      "or [i, j, ...] multi-indices)";
  if (!item.value.IsSequence()) {
    reader.error(reader.where(item), path,
                 "expected " + what + "; got " + describe(item.value));
    return;
  }
  std::vector<std::vector<int64_t>> positions;
  for (size_t i = 0; i < item.value.size(); ++i) {
    const YAML::Node node = item.value[i];
    const std::string at = path + "[" + std::to_string(i) + "]";
    std::vector<YAML::Node> parts;
    if (node.IsSequence()) {
      for (const auto& part : node) parts.push_back(part);
    } else {
      parts.push_back(node);
    }
    std::vector<int64_t> position;
    for (const YAML::Node& part : parts) {
      const Scalar number = resolve_scalar(part);
      if (!part.IsScalar() || number.kind != Scalar::Kind::kInt ||
          number.int_overflow || number.int_value < 0) {
        reader.error(part, at, "expected an index >= 0; got " + describe(part));
        return;
      }
      position.push_back(number.int_value);
    }
    // A flat index is kept as {-1, i}: a multi-index has no negative part.
    if (!node.IsSequence()) position.insert(position.begin(), -1);
    positions.push_back(position);
  }
  out.nan_positions = positions;
}

std::optional<double> read_bound(Reader& reader, const Entry& item,
                                 const std::string& path) {
  const auto value = reader.read_number(item.value, reader.where(item), path);
  if (value && std::isnan(*value)) {
    reader.error(reader.where(item), path,
                 "expected a number (not .nan); got " + describe(item.value));
    return std::nullopt;
  }
  return value;
}

// `mean: {min: A, max: B}` (or `std`): one end or both, min <= max.
std::optional<ValueBounds> read_value_bounds(Reader& reader, const Entry& item,
                                             const std::string& path) {
  const size_t errors_before = reader.error_count();
  const auto map = reader.read_map(item.value, reader.where(item), path,
                                   {"min", "max"}, "a map {min: A, max: B}");
  if (!map) return std::nullopt;
  ValueBounds bounds;
  for (const Entry& end : *map) {
    const std::string end_path = join_path(path, end.key);
    (end.key == "min" ? bounds.min : bounds.max) =
        read_bound(reader, end, end_path);
  }
  if (!bounds.min && !bounds.max && reader.error_count() == errors_before) {
    reader.error(reader.where(item), path,
                 "expected a map {min: A, max: B} with min, max or both; got "
                 "an empty map");
  }
  if (bounds.min && bounds.max && *bounds.min > *bounds.max &&
      reader.error_count() == errors_before) {
    reader.error(reader.where(item), join_path(path, "max"),
                 "expected max >= min");
  }
  if (reader.error_count() != errors_before) return std::nullopt;
  return bounds;
}

// A stated `shape` over the output limits: the case asks for more than a
// run may hold, refused before anything runs (the child checks every output
// it makes too, child/execute.cpp). Without a dtype, one byte an element.
void check_stated_size(Reader& reader, const std::vector<Entry>& extras,
                       const std::string& path, const OutputExpectation& out) {
  const Entry* shape = find_entry(extras, "shape");
  if (shape == nullptr || !out.shape) return;
  const auto problem = check_output_size(
      element_count(*out.shape), out.dtype ? element_size(*out.dtype) : 1,
      out.dtype ? std::string(dtype_name(*out.dtype))
                : std::string("any dtype"));
  if (problem)
    reader.error(reader.where(*shape), join_path(path, "shape"), *problem);
}

// The output's key: an index >= 0 (into out.index) or a name. False after
// reporting anything else.
bool read_output_key(Reader& reader, const Entry& entry,
                     const std::string& path, OutputExpectation& out) {
  const Scalar key = resolve_scalar(entry.key_node);
  const bool index =
      key.kind == Scalar::Kind::kInt && !key.int_overflow && key.int_value >= 0;
  const bool name = key.kind == Scalar::Kind::kString && !key.text.empty();
  if (!index && !name) {
    reader.error(entry.key_node, path,
                 "expected an output index >= 0 or an output name; got " +
                     describe(entry.key_node));
    return false;
  }
  if (index) out.index = static_cast<size_t>(key.int_value);
  return true;
}

// `finite: true`; `false` is the default, not a property to state.
void read_finite(Reader& reader, const Entry& item, const std::string& path,
                 OutputExpectation& out) {
  const auto value = reader.read_bool(item, path);
  if (value && !*value) {
    reader.error(reader.where(item), path,
                 "expected `true` (omit the key to allow NaN and inf)");
  }
  out.finite = value.value_or(false);
}

using PropertyReader = void (*)(Reader& reader, const Entry& item,
                                const std::string& path,
                                OutputExpectation& out);

// A key of an output beside its values': `property` where it is the
// output's own (a tensor's `dtype` and `shape` are handed back by
// read_tensor too, for an output stated without values).
struct OutputKey {
  const char* name;
  bool property;
  PropertyReader read;
};

const std::vector<OutputKey>& output_keys() {
  using Out = OutputExpectation;
  static const std::vector<OutputKey> keys{
      {"dtype", false,
       [](Reader& reader, const Entry& item, const std::string& path,
          Out& out) {
         out.dtype =
             reader.read_name(item.value, reader.where(item), path, parse_dtype,
                              dtype_names(), suggest_dtype);
       }},
      {"shape", false,
       [](Reader& reader, const Entry& item, const std::string& path,
          Out& out) { out.shape = reader.read_int_list(item, path, 0); }},
      {"tolerance", true,
       [](Reader& reader, const Entry& item, const std::string& path,
          Out& out) {
         read_tolerance_at(reader, item, path, &out.tolerance, &out.equal_nan);
       }},
      {"equal_nan", true,
       [](Reader& reader, const Entry& item, const std::string& path,
          Out& out) {
         if (auto value = reader.read_bool(item, path)) out.equal_nan = value;
       }},
      {"finite", true, read_finite},
      {"nan", true, read_nan},
      {"min", true,
       [](Reader& reader, const Entry& item, const std::string& path,
          Out& out) { out.min = read_bound(reader, item, path); }},
      {"max", true,
       [](Reader& reader, const Entry& item, const std::string& path,
          Out& out) { out.max = read_bound(reader, item, path); }},
      {"mean", true,
       [](Reader& reader, const Entry& item, const std::string& path,
          Out& out) {
         out.mean_bounds = read_value_bounds(reader, item, path);
       }},
      {"std", true,
       [](Reader& reader, const Entry& item, const std::string& path,
          Out& out) {
         out.std_bounds = read_value_bounds(reader, item, path);
       }},
  };
  return keys;
}

// The keys read_tensor accepts beside a tensor's: the output's properties.
std::vector<std::string> property_keys() {
  std::vector<std::string> names;
  for (const OutputKey& key : output_keys()) {
    if (key.property) names.emplace_back(key.name);
  }
  return names;
}

void read_property(Reader& reader, const Entry& item, const std::string& path,
                   OutputExpectation& out) {
  for (const OutputKey& key : output_keys()) {
    if (item.key == key.name) {
      key.read(reader, item, path, out);
      return;
    }
  }
}

// Reports an output that states nothing, and properties that contradict
// each other; each only where the output read cleanly so far.
void check_consistent(Reader& reader, const std::string& path, bool any,
                      size_t errors_before, const OutputExpectation& out) {
  if (!any && reader.error_count() == errors_before) {
    reader.error(out.where, path,
                 "expected what the output must be: values, fill or file, "
                 "or a property (finite, nan, shape, dtype, min, max, mean, "
                 "std)");
  }
  if ((out.finite && (out.all_nan || out.nan_positions)) &&
      reader.error_count() == errors_before) {
    reader.error(out.where, path,
                 "`finite` and `nan` contradict each other: give one");
  }
  if (out.min && out.max && *out.min > *out.max &&
      reader.error_count() == errors_before) {
    reader.error(out.where, join_path(path, "max"), "expected max >= min");
  }
}

std::optional<OutputExpectation> read_output(
    Reader& reader, const Entry& entry, const std::string& path,
    const std::filesystem::path& case_file) {
  const size_t errors_before = reader.error_count();
  OutputExpectation out;
  out.key = entry.key;
  out.where = reader.where(entry);
  if (!read_output_key(reader, entry, path, out)) return std::nullopt;
  TensorKeys keys;
  keys.extra = property_keys();
  keys.source_optional = true;
  keys.values_round_to_nearest = true;
  std::vector<Entry> extras;
  bool has_source = false;
  out.values =
      read_tensor(reader, entry, path, case_file, keys, &extras, &has_source);
  if (out.values) {
    out.dtype = out.values->dtype;
    if (out.values->shape_given) out.shape = out.values->shape;
  }
  for (const Entry& item : extras) {
    read_property(reader, item, join_path(path, item.key), out);
  }
  check_stated_size(reader, extras, path, out);
  check_consistent(reader, path, has_source || !extras.empty(), errors_before,
                   out);
  if (reader.error_count() != errors_before) return std::nullopt;
  return out;
}

}  // namespace

std::vector<OutputExpectation> read_outputs(
    Reader& reader, const Entry& entry, const std::string& path,
    const std::filesystem::path& case_file) {
  std::vector<OutputExpectation> outputs;
  const auto map = reader.read_map(
      entry.value, reader.where(entry), path, {},
      "a map from output index (0, 1, ...) or name to what it must be");
  if (!map) return outputs;
  for (const Entry& item : *map) {
    if (auto output =
            read_output(reader, item, join_path(path, item.key), case_file)) {
      outputs.push_back(std::move(*output));
    }
  }
  return outputs;
}

}  // namespace casebook::model
