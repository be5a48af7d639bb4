// `neighbors`: the rules whose neighbouring cases run with the case, each
// with its parameters (docs/case-format.md, "Neighbours"). A map of rule
// names to parameters (`{}` or nothing for the defaults; a list for
// `layouts` and `dtypes`), or a list of rule names.
#include <algorithm>

#include "casebook/internal_error.h"
#include "casebook/joined.h"
#include "casebook/neighbors.h"
#include "casebook/suggestions.h"
#include "model/sections.h"

namespace casebook::model {
namespace {

const std::vector<std::string>& keys_of(const std::string& rule) {
  static const std::map<std::string, std::vector<std::string>> keys{
      {"label_limits", {"input", "classes", "ignore_index", "errors"}},
      {"last_batch", {"dataset_size", "batch_size", "along"}},
      {"lengths", {"long", "empty", "along"}},
      {"block_boundaries", {"blocks", "along"}},
      {"layouts", {"layouts", "inputs"}},
      {"dtypes", {"dtypes", "reference"}},
  };
  return keys.at(rule);
}

std::optional<int64_t> read_count(Reader& reader, const Entry& entry,
                                  const std::string& path, int64_t minimum) {
  // Sizes past 2^53 are no tensor's; the bound keeps n + 1 from overflowing.
  constexpr int64_t kLargest = int64_t{1} << 53;
  const auto value = reader.read_int(entry.value, reader.where(entry), path);
  if (value && (*value < minimum || *value > kLargest)) {
    reader.error(reader.where(entry), path,
                 "expected an integer in [" + std::to_string(minimum) +
                     ", 2^53]; got " + describe(entry.value));
    return std::nullopt;
  }
  return value;
}

// A list of names, each one of `known`.
std::vector<std::string> read_names(Reader& reader, const Entry& entry,
                                    const std::string& path,
                                    const std::vector<std::string>& known) {
  std::vector<std::string> out;
  if (!entry.value.IsSequence()) {
    reader.error(reader.where(entry), path,
                 "expected a list" +
                     (known.empty() ? std::string(" of names")
                                    : " of " + joined(known)) +
                     "; got " + describe(entry.value));
    return out;
  }
  for (size_t i = 0; i < entry.value.size(); ++i) {
    const YAML::Node item = entry.value[i];
    const std::string item_path = path + "[" + std::to_string(i) + "]";
    const Scalar scalar = resolve_scalar(item);
    if (!item.IsScalar() || scalar.kind != Scalar::Kind::kString ||
        (!known.empty() &&
         std::find(known.begin(), known.end(), scalar.text) == known.end())) {
      const std::string near = nearest_name(scalar.text, known);
      reader.error(item, item_path,
                   "expected " +
                       (known.empty() ? std::string("a name")
                                      : "one of " + joined(known)) +
                       "; got " + describe(item) +
                       (near.empty() ? "" : "; did you mean `" + near + "`?"));
      continue;
    }
    if (std::find(out.begin(), out.end(), scalar.text) != out.end()) {
      reader.error(item, item_path, "`" + scalar.text + "` is named twice");
      continue;
    }
    out.push_back(scalar.text);
  }
  return out;
}

std::vector<std::pair<std::string, int64_t>> read_along(
    Reader& reader, const Entry& entry, const std::string& path) {
  std::vector<std::pair<std::string, int64_t>> out;
  const auto map = reader.read_map(entry.value, reader.where(entry), path, {},
                                   "a map of input names to dims");
  if (!map) return out;
  for (const Entry& item : *map) {
    const auto dim = reader.read_int(item.value, reader.where(item),
                                     join_path(path, item.key));
    if (dim) out.emplace_back(item.key, *dim);
  }
  return out;
}

void read_errors(Reader& reader, const Entry& entry, const std::string& path,
                 const Case& kase, NeighborRule& rule) {
  std::vector<std::string> backends;
  for (Backend backend : all_backends()) {
    backends.emplace_back(backend_name(backend));
  }
  const auto map = reader.read_map(entry.value, reader.where(entry), path,
                                   backends, "a map of backends to families");
  if (!map) return;
  std::vector<std::string> families;
  for (Family family : all_families()) {
    if (family != Family::kNone) families.emplace_back(family_name(family));
  }
  for (const Entry& item : *map) {
    const std::string item_path = join_path(path, item.key);
    const std::optional<Backend> named = parse_backend(item.key);
    CASEBOOK_ASSERT(named, "read_map admitted a key that names no backend");
    const Backend backend = *named;
    if (!kase.runs_on(backend)) {
      reader.error(reader.where(item), item_path,
                   "the case does not run on " + item.key + " (`backends`)");
      continue;
    }
    const auto text = reader.read_string(item, item_path);
    if (!text) continue;
    const auto family = parse_family(*text);
    if (!family || *family == Family::kNone) {
      const std::string near = suggest_family(*text);
      reader.error(reader.where(item), item_path,
                   "expected an error family (" + joined(families) +
                       "); got `" + *text + "`" +
                       (near.empty() ? "" : "; did you mean `" + near + "`?"));
      continue;
    }
    rule.errors[backend] = *family;
  }
}

std::vector<std::string> dtype_list() {
  return {"float16", "bfloat16", "float32", "float64"};
}

// `block_boundaries.blocks`: a list of block sizes, each at least 1,
// appended to rule.blocks; a value that is no list is reported as such.
void read_blocks(Reader& reader, const Entry& item, const std::string& path,
                 NeighborRule& rule) {
  if (!item.value.IsSequence()) {
    reader.read_int_list(item, path, 1);  // reports the kind
    return;
  }
  for (size_t i = 0; i < item.value.size(); ++i) {
    const Entry block{item.key, item.value[i], item.value[i]};
    const std::string at = path + "[" + std::to_string(i) + "]";
    if (auto size = read_count(reader, block, at, 1)) {
      rule.blocks.push_back(*size);
    }
  }
}

// `dtypes.reference`: only `cpu64`, which sets rule.reference_cpu64.
void read_reference(Reader& reader, const Entry& item, const std::string& path,
                    NeighborRule& rule) {
  const auto text = reader.read_string(item, path);
  if (text && *text == "cpu64") {
    rule.reference_cpu64 = true;
  } else if (text) {
    reader.error(reader.where(item), path,
                 "expected `cpu64` (without it the base's reference stays); "
                 "got `" +
                     *text + "`");
  }
}

void read_parameter(Reader& reader, const Entry& item, const std::string& path,
                    const Case& kase, NeighborRule& rule) {
  const std::string& key = item.key;
  if (key == "input") {
    if (auto text = reader.read_string(item, path)) rule.input = *text;
  } else if (key == "classes") {
    rule.classes = read_count(reader, item, path, 1);
  } else if (key == "ignore_index") {
    rule.ignore_index_given = true;
    if (!item.value.IsNull() &&
        resolve_scalar(item.value).kind != Scalar::Kind::kNull) {
      rule.ignore_index = reader.read_int(item.value, reader.where(item), path);
    }
  } else if (key == "errors") {
    read_errors(reader, item, path, kase, rule);
  } else if (key == "dataset_size") {
    rule.dataset_size = read_count(reader, item, path, 1);
  } else if (key == "batch_size") {
    rule.batch_size = read_count(reader, item, path, 1);
  } else if (key == "long") {
    rule.long_length = read_count(reader, item, path, 1);
  } else if (key == "empty") {
    rule.empty = reader.read_bool(item, path);
  } else if (key == "blocks") {
    read_blocks(reader, item, path, rule);
  } else if (key == "along") {
    rule.along = read_along(reader, item, path);
  } else if (key == "layouts") {
    rule.layouts =
        read_names(reader, item, path,
                   {"contiguous", "transposed", "sliced", "channels_last"});
  } else if (key == "inputs") {
    rule.inputs = read_names(reader, item, path, {});
  } else if (key == "dtypes") {
    for (const std::string& name :
         read_names(reader, item, path, dtype_list())) {
      const std::optional<DType> dtype = parse_dtype(name);
      CASEBOOK_ASSERT(dtype, "read_names admitted a name that is no dtype");
      rule.dtypes.push_back(*dtype);
    }
  } else if (key == "reference") {
    read_reference(reader, item, path, rule);
  }
}

void read_rule(Reader& reader, const Entry& entry, Case& out) {
  NeighborRule rule;
  rule.name = entry.key;
  rule.where = reader.where(entry.key_node);
  const std::string path = join_path("neighbors", entry.key);
  const YAML::Node& value = entry.value;
  const bool nothing =
      !value.IsDefined() || value.IsNull() ||
      (value.IsScalar() && resolve_scalar(value).kind == Scalar::Kind::kNull);
  if (nothing) {
    // `label_limits:` alone: the defaults.
  } else if (value.IsSequence() &&
             (rule.name == "layouts" || rule.name == "dtypes")) {
    read_parameter(reader, Entry{rule.name, entry.key_node, value}, path, out,
                   rule);
  } else {
    const auto map = reader.read_map(
        value, reader.where(entry), path, keys_of(rule.name),
        "a map of the rule's parameters (" + joined(keys_of(rule.name)) + ")" +
            (rule.name == "layouts" || rule.name == "dtypes" ? " or a list"
                                                             : ""));
    if (map) {
      for (const Entry& item : *map) {
        read_parameter(reader, item, join_path(path, item.key), out, rule);
      }
    }
  }
  out.neighbors.push_back(std::move(rule));
}

bool known_rule(Reader& reader, const YAML::Node& at, const std::string& name,
                const std::string& path) {
  const auto& names = neighbor_rule_names();
  if (std::find(names.begin(), names.end(), name) != names.end()) return true;
  const std::string near = nearest_name(name, names);
  reader.error(at, path,
               "unknown rule `" + name + "`; " +
                   (near.empty() ? "the rules are " + joined(names)
                                 : "did you mean `" + near + "`?"));
  return false;
}

}  // namespace

void read_neighbors(Reader& reader, const Entry& entry, Case& out) {
  if (entry.value.IsSequence()) {
    std::vector<std::string> seen;
    for (size_t i = 0; i < entry.value.size(); ++i) {
      const YAML::Node item = entry.value[i];
      const std::string path = "neighbors[" + std::to_string(i) + "]";
      const Scalar scalar = resolve_scalar(item);
      if (!item.IsScalar() || scalar.kind != Scalar::Kind::kString) {
        reader.error(item, path,
                     "expected a rule name (" + joined(neighbor_rule_names()) +
                         "); got " + describe(item));
        continue;
      }
      if (!known_rule(reader, item, scalar.text, path)) continue;
      if (std::find(seen.begin(), seen.end(), scalar.text) != seen.end()) {
        reader.error(item, path, "rule `" + scalar.text + "` is named twice");
        continue;
      }
      seen.push_back(scalar.text);
      read_rule(reader, Entry{scalar.text, item, YAML::Node()}, out);
    }
    return;
  }
  // Unknown keys are reported here with the nearest rule, by read_map.
  const auto map = reader.read_map(
      entry.value, reader.where(entry), "neighbors", neighbor_rule_names(),
      "a map of rules (" + joined(neighbor_rule_names()) +
          ") to their parameters, or a list of rules");
  if (!map) return;
  for (const Entry& rule : *map) read_rule(reader, rule, out);
}

}  // namespace casebook::model
