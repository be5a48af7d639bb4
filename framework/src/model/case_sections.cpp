// The small top-level sections: args, backends, tolerance, origin.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "casebook/joined.h"
#include "model/sections.h"

namespace casebook::model {
namespace {

// An argument: a scalar, a string or null (lists are handled by the caller).
std::optional<ArgValue> read_arg_scalar(Reader& reader, const YAML::Node& node,
                                        const SourceLocation& at,
                                        const std::string& path) {
  ArgValue value;
  value.where = at;
  if (node.IsNull()) return value;
  if (!node.IsScalar()) {
    reader.error(at, path,
                 "expected a number, true, false, a string or null; got " +
                     describe(node));
    return std::nullopt;
  }
  const Scalar scalar = resolve_scalar(node);
  if (scalar.float_out_of_range && scalar.kind == Scalar::Kind::kFloat) {
    reader.read_number(node, at, path);  // reports the range
    return std::nullopt;
  }
  switch (scalar.kind) {
    case Scalar::Kind::kNull:
      break;
    case Scalar::Kind::kBool:
      value.kind = ArgValue::Kind::kBool;
      value.bool_value = scalar.bool_value;
      break;
    case Scalar::Kind::kInt:
      if (scalar.int_overflow) {
        reader.read_int(node, at, path);  // reports the range
        return std::nullopt;
      }
      value.kind = ArgValue::Kind::kInt;
      value.int_value = scalar.int_value;
      break;
    case Scalar::Kind::kFloat:
      value.kind = ArgValue::Kind::kFloat;
      value.float_value = scalar.float_value;
      break;
    case Scalar::Kind::kString:
      value.kind = ArgValue::Kind::kString;
      value.string_value = scalar.text;
      break;
  }
  return value;
}

// "[a, b]" for lists, "{k: v}" for maps, the text for scalars.
std::string render(const YAML::Node& node) {
  if (node.IsSequence()) {
    std::vector<std::string> items;
    for (const YAML::Node& item : node) items.push_back(render(item));
    return "[" + joined(items) + "]";
  }
  if (node.IsMap()) {
    std::vector<std::string> items;
    for (const auto& pair : node) {
      items.push_back(render(pair.first) + ": " + render(pair.second));
    }
    return "{" + joined(items) + "}";
  }
  return node.IsScalar() ? node.Scalar() : "";
}

void flatten(const std::string& key, const YAML::Node& node, Origin& out) {
  if (!node.IsMap()) {
    out.entries.emplace_back(key, render(node));
    return;
  }
  for (const auto& pair : node) {
    flatten(join_path(key, render(pair.first)), pair.second, out);
  }
}

// `{seed: N}`: a random op's generator, seeded with N (0 <= N < 2^63).
std::optional<ArgValue> read_generator(Reader& reader, const Entry& arg,
                                       const std::string& path) {
  // A map without `seed` is no generator: an argument of the wrong shape.
  if (!arg.value["seed"]) {
    reader.error(reader.where(arg), path,
                 "expected a number, true, false, a string or null, or "
                 "`{seed: N}` for a Generator; got " +
                     describe(arg.value));
    return std::nullopt;
  }
  const auto map = reader.read_map(arg.value, reader.where(arg), path, {"seed"},
                                   "`{seed: N}`, a generator seeded with N");
  if (!map) return std::nullopt;
  const Entry* seed = find_entry(*map, "seed");
  const auto value = reader.read_int(seed->value, reader.where(*seed),
                                     join_path(path, "seed"));
  if (!value) return std::nullopt;
  if (*value < 0) {
    reader.error(reader.where(*seed), join_path(path, "seed"),
                 "expected a seed >= 0; got " + std::to_string(*value));
    return std::nullopt;
  }
  ArgValue generator;
  generator.kind = ArgValue::Kind::kGenerator;
  generator.int_value = *value;
  generator.where = reader.where(arg);
  return generator;
}

}  // namespace

std::map<std::string, ArgValue> read_args(Reader& reader, const Entry& entry,
                                          const std::string& at) {
  std::map<std::string, ArgValue> args;
  const auto map = reader.read_map(entry.value, reader.where(entry), at, {},
                                   "a map of argument names to values");
  if (!map) return args;
  for (const Entry& arg : *map) {
    const std::string path = join_path(at, arg.key);
    if (arg.value.IsMap()) {
      if (auto generator = read_generator(reader, arg, path)) {
        args[arg.key] = *generator;
      }
      continue;
    }
    if (!arg.value.IsSequence()) {
      if (auto value =
              read_arg_scalar(reader, arg.value, reader.where(arg), path)) {
        args[arg.key] = *value;
      }
      continue;
    }
    ArgValue list;
    list.kind = ArgValue::Kind::kList;
    list.where = reader.where(arg);
    bool ok = true;
    for (size_t i = 0; i < arg.value.size(); ++i) {
      const YAML::Node item = arg.value[i];
      auto value = read_arg_scalar(reader, item, reader.where(item),
                                   path + "[" + std::to_string(i) + "]");
      if (value) list.list.push_back(*value);
      ok = ok && value.has_value();
    }
    if (ok) args[arg.key] = list;
  }
  return args;
}

std::vector<Backend> read_backends(Reader& reader, const Entry& entry) {
  std::vector<Backend> listed{Backend::kCpu};  // the reference always runs
  if (!entry.value.IsSequence()) {
    reader.error(reader.where(entry), "backends",
                 "expected a list of " + backend_names() + "; got " +
                     describe(entry.value));
    return listed;
  }
  std::vector<Backend> seen;
  for (size_t i = 0; i < entry.value.size(); ++i) {
    const YAML::Node item = entry.value[i];
    const std::string path = "backends[" + std::to_string(i) + "]";
    const auto backend = reader.read_name(item, reader.where(item), path,
                                          parse_backend, backend_names());
    if (!backend) continue;
    if (std::find(seen.begin(), seen.end(), *backend) != seen.end()) {
      reader.error(item, path, "`" + item.Scalar() + "` is listed twice");
    } else {
      seen.push_back(*backend);
      if (*backend != Backend::kCpu) listed.push_back(*backend);
    }
  }
  std::sort(listed.begin(), listed.end());
  return listed;
}

void read_tolerance_at(Reader& reader, const Entry& entry,
                       const std::string& at,
                       std::optional<Tolerance>* tolerance_out,
                       std::optional<bool>* equal_nan_out) {
  const auto map = reader.read_map(entry.value, reader.where(entry), at,
                                   {"rtol", "atol", "equal_nan"},
                                   "a map {rtol, atol, "
                                   "equal_nan}");
  if (!map) return;
  Tolerance tolerance;
  std::vector<std::string> given;
  bool ok = true;
  for (const Entry& item : *map) {
    const std::string path = join_path(at, item.key);
    if (item.key == "equal_nan") {
      const auto value = reader.read_bool(item, path);
      *equal_nan_out = value.value_or(false);
      tolerance.equal_nan = value.value_or(false);
      continue;
    }
    given.push_back("`" + item.key + "`");
    const auto value = reader.read_number(item.value, reader.where(item), path);
    if (value && (!std::isfinite(*value) || *value < 0)) {
      reader.error(
          reader.where(item), path,
          "expected a finite number >= 0; got " + describe(item.value));
    }
    ok = ok && value && std::isfinite(*value) && *value >= 0;
    (item.key == "rtol" ? tolerance.rtol : tolerance.atol) = value.value_or(0);
  }
  if (given.size() == 1) {
    reader.error(reader.where(entry), at,
                 "expected both `rtol` and `atol` or neither; got only " +
                     given.front());
  } else if (given.size() == 2 && ok) {
    *tolerance_out = tolerance;
  }
}

void read_tolerance(Reader& reader, const Entry& entry, Case& out) {
  std::optional<bool> equal_nan;
  read_tolerance_at(reader, entry, "tolerance", &out.tolerance, &equal_nan);
  out.equal_nan = equal_nan.value_or(false);
}

Origin read_origin(Reader& reader, const Entry& entry) {
  static const std::vector<std::string> kOriginKeys{
      "first_error", "iteration", "last_completed_step", "revision", "versions",
      "backend",     "data",      "distinguishing",      "cause",    "change",
      "control",     "source",    "reduced_from"};
  Origin origin;
  if (entry.value.IsNull()) return origin;
  const auto map = reader.read_map(entry.value, reader.where(entry), "origin",
                                   kOriginKeys, "a map (the dossier)");
  if (!map) return origin;
  for (const Entry& item : *map) flatten(item.key, item.value, origin);
  return origin;
}

}  // namespace casebook::model
