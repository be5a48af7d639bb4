// `when`: conditions on the run's environment (LibTorch's version, the
// operating system, the machine, the CPU's features, the GPU's compute
// capability or gfx target), read from a case file and evaluated against the
// facts of the run, first matching entry first.
#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "casebook/joined.h"
#include "model/sections.h"

namespace casebook {
namespace {

const std::vector<std::string> kHostFacts{"torch", "cuda", "hip",
                                          "os",    "arch", "cpu"};

// Every fact a condition may read: the host's, then each backend's device's
// (casebook/backend.h), in backend order.
std::vector<std::string> all_facts() {
  std::vector<std::string> facts = kHostFacts;
  for (Backend backend : all_backends()) {
    for (const DeviceFactName& fact : device_fact_names(backend)) {
      facts.push_back(fact.name);
    }
  }
  return facts;
}

std::string fact_list() { return joined(all_facts()); }

// A device's version fact ("compute capability"), else empty.
std::string device_version_of(const std::string& fact) {
  const std::optional<Backend> device = backend_of_device_fact(fact);
  if (!device) return "";
  for (const DeviceFactName& known : device_fact_names(*device)) {
    if (known.name == fact) return known.version_of;
  }
  return "";
}

bool is_version_fact(const std::string& fact) {
  return fact == "torch" || fact == "cuda" || fact == "hip" ||
         !device_version_of(fact).empty();
}

// The facts of one backend's device, known only once the backend's probe
// has answered; a condition on one belongs to that backend's entries.
std::optional<Backend> device_fact_backend(const std::string& fact) {
  return backend_of_device_fact(fact);
}

std::string trim(const std::string& text) {
  size_t begin = 0;
  size_t end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin])))
    ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1])))
    --end;
  return text.substr(begin, end - begin);
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, separator)) parts.push_back(trim(part));
  return parts;
}

// "2.11.0+cu130" -> {2, 11, 0}: the leading dotted numbers; empty when the
// text does not start with a number.
std::vector<long> version_numbers(const std::string& text) {
  std::vector<long> numbers;
  size_t at = 0;
  while (at < text.size() &&
         std::isdigit(static_cast<unsigned char>(text[at]))) {
    long value = 0;
    while (at < text.size() &&
           std::isdigit(static_cast<unsigned char>(text[at]))) {
      value = value * 10 + (text[at] - '0');
      if (value > 1'000'000'000) return {};
      ++at;
    }
    numbers.push_back(value);
    if (at < text.size() && text[at] == '.' && at + 1 < text.size() &&
        std::isdigit(static_cast<unsigned char>(text[at + 1]))) {
      ++at;
    } else {
      break;
    }
  }
  return numbers;
}

struct Constraint {
  std::string op;  // "==", "!=", ">=", "<=", ">", "<"
  std::vector<long> version;
};

// "<2.0" -> {"<", {2, 0}}; a bare version means "==". Returns false for
// anything else.
bool parse_constraint(const std::string& text, Constraint* out) {
  static const char* const kOps[] = {"==", "!=", ">=", "<=", ">", "<"};
  std::string rest = text;
  out->op = "==";
  for (const char* op : kOps) {
    if (rest.rfind(op, 0) == 0) {
      out->op = op;
      rest = trim(rest.substr(std::string(op).size()));
      break;
    }
  }
  out->version = version_numbers(rest);
  std::ostringstream back;
  for (size_t i = 0; i < out->version.size(); ++i) {
    back << (i ? "." : "") << out->version[i];
  }
  return !out->version.empty() && back.str() == rest;
}

// Compares the first `digits` components (missing ones count as 0).
int compare_versions(const std::vector<long>& a, const std::vector<long>& b,
                     size_t digits) {
  for (size_t i = 0; i < digits; ++i) {
    const long x = i < a.size() ? a[i] : 0;
    const long y = i < b.size() ? b[i] : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

// "==1.13" holds for 1.13.1 (the components written), "<2" for 1.13.1.
bool satisfies(const std::vector<long>& version, const Constraint& c) {
  const bool prefix = c.op == "==" || c.op == "!=";
  const size_t digits =
      prefix ? c.version.size() : std::max(version.size(), c.version.size());
  const int order = compare_versions(version, c.version, digits);
  if (c.op == "==") return order == 0;
  if (c.op == "!=") return order != 0;
  if (c.op == ">=") return order >= 0;
  if (c.op == "<=") return order <= 0;
  if (c.op == ">") return order > 0;
  return order < 0;
}

bool holds(const Condition& condition, const EnvironmentFacts& facts) {
  const auto fact = facts.find(condition.fact);
  if (fact == facts.end() || fact->second.empty()) return false;
  if (is_version_fact(condition.fact)) {
    const std::vector<long> version = version_numbers(fact->second);
    if (version.empty()) return false;
    for (const std::string& part : split(condition.text, ',')) {
      Constraint constraint;
      if (!parse_constraint(part, &constraint) ||
          !satisfies(version, constraint)) {
        return false;
      }
    }
    return true;
  }
  if (condition.fact == "cpu") {
    const std::string features = " " + fact->second + " ";
    for (const std::string& feature : split(condition.text, ' ')) {
      if (feature.empty()) continue;
      const bool absent = feature.front() == '!';
      const std::string name = absent ? feature.substr(1) : feature;
      const bool present = features.find(" " + name + " ") != std::string::npos;
      if (present == absent) return false;
    }
    return true;
  }
  // os, arch: one of the names written.
  for (const std::string& name : split(condition.text, ' ')) {
    if (!name.empty() && name == fact->second) return true;
  }
  return false;
}

}  // namespace

bool is_host_fact(std::string_view fact) {
  return std::find(kHostFacts.begin(), kHostFacts.end(), fact) !=
         kHostFacts.end();
}

bool reads_device_facts(const Case& kase, Backend backend) {
  const auto entries = kase.expect_entries.find(backend);
  if (entries == kase.expect_entries.end()) return false;
  for (const Expectation& entry : entries->second) {
    for (const Condition& condition : entry.when) {
      if (device_fact_backend(condition.fact)) return true;
    }
  }
  return false;
}

namespace {

// The first of `backend`'s entries whose conditions all hold; null: none.
const Expectation* first_holding(const Case& kase, Backend backend,
                                 const EnvironmentFacts& facts) {
  const auto entries = kase.expect_entries.find(backend);
  if (entries == kase.expect_entries.end()) return nullptr;
  for (const Expectation& entry : entries->second) {
    bool all = true;
    for (const Condition& condition : entry.when) {
      all = all && holds(condition, facts);
    }
    if (all) return &entry;
  }
  return nullptr;
}

// The reference itself must fail here: a GPU backend has nothing to be
// compared with, so without an expectation of its own it cannot be judged.
// That is its ERROR when it runs, not the file's (the CPU verdict stands).
Expectation missing_expectation(const Case& kase, Backend backend,
                                const Expectation& cpu) {
  Expectation missing;
  missing.where = cpu.where;
  const std::string name(backend_name(backend));
  missing.missing =
      "the CPU run must fail (expect.cpu is an error), so " + name +
      " has no reference to match: add `expect." + name +
      "` ({error: FAMILY}, {xfail: REASON} or {skip: REASON})" +
      (kase.expect_entries.count(backend)
           ? " that holds here (no `when` of expect." + name + " holds)"
           : "");
  return missing;
}

}  // namespace

std::optional<Expectation> expectation_for(const Case& kase, Backend backend,
                                           const EnvironmentFacts& facts) {
  if (const Expectation* entry = first_holding(kase, backend, facts)) {
    return *entry;
  }
  if (!is_gpu(backend) || !kase.runs_on(backend)) return std::nullopt;
  const Expectation* cpu = first_holding(kase, Backend::kCpu, facts);
  if (cpu == nullptr || cpu->kind != Expectation::Kind::kError) {
    return std::nullopt;
  }
  return missing_expectation(kase, backend, *cpu);
}

void resolve_conditions(Case& kase, const EnvironmentFacts& host) {
  kase.expect.clear();
  for (Backend backend : all_backends()) {
    if (std::optional<Expectation> expectation =
            expectation_for(kase, backend, host)) {
      kase.expect[backend] = std::move(*expectation);
    }
  }
}

namespace model {
namespace {

bool is_feature_name(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

// The words of a scalar or of a list of scalars, space separated.
std::optional<std::string> read_words(Reader& reader, const Entry& item,
                                      const std::string& path,
                                      const std::string& what) {
  std::vector<YAML::Node> nodes;
  if (item.value.IsSequence()) {
    for (const auto& node : item.value) nodes.push_back(node);
  } else {
    nodes.push_back(item.value);
  }
  std::string words;
  for (const YAML::Node& node : nodes) {
    const Scalar scalar = resolve_scalar(node);
    const bool absent = !scalar.text.empty() && scalar.text.front() == '!';
    const std::string name = absent ? scalar.text.substr(1) : scalar.text;
    if (!node.IsScalar() || scalar.kind != Scalar::Kind::kString ||
        !is_feature_name(name) || (absent && item.key != "cpu")) {
      reader.error(node.IsScalar() ? node : item.value, path,
                   "expected " + what + "; got " + describe(node));
      return std::nullopt;
    }
    words += (words.empty() ? "" : " ") + scalar.text;
  }
  if (words.empty()) {
    reader.error(reader.where(item), path,
                 "expected " + what + "; got an empty list");
    return std::nullopt;
  }
  return words;
}

// The value of a version fact: comma-separated constraints (">=1.13, <2.1"),
// each one parse_constraint reads; nullopt once the error is reported.
std::optional<std::string> read_constraints(Reader& reader, const Entry& item,
                                            const std::string& item_path) {
  const Scalar scalar = resolve_scalar(item.value);
  bool ok = item.value.IsScalar() && scalar.kind != Scalar::Kind::kNull;
  for (const std::string& part : split(scalar.text, ',')) {
    Constraint constraint;
    ok = ok && parse_constraint(part, &constraint);
  }
  if (!ok) {
    const std::string device_version = device_version_of(item.key);
    reader.error(reader.where(item), item_path,
                 !device_version.empty()
                     ? "expected " + device_version +
                           " constraints like \">=8.0\" or \"9.0\"; got " +
                           describe(item.value)
                     : "expected version constraints like \">=1.13, "
                       "<2.1\" or \"1.13\"; got " +
                           describe(item.value));
    return std::nullopt;
  }
  return scalar.text;
}

}  // namespace

std::vector<Condition> read_when(Reader& reader, const Entry& entry,
                                 const std::string& path, Backend backend) {
  std::vector<Condition> conditions;
  const auto map = reader.read_map(
      entry.value, reader.where(entry), path, all_facts(),
      "a map of facts (" + fact_list() + ") to what they must be");
  if (!map) return conditions;
  if (map->empty() && entry.value.size() == 0) {
    reader.error(reader.where(entry), path,
                 "expected at least one condition (" + fact_list() + ")");
  }
  for (const Entry& item : *map) {
    const std::string item_path = join_path(path, item.key);
    const std::optional<Backend> device = device_fact_backend(item.key);
    if (device && *device != backend) {
      const std::string owner(backend_name(*device));
      reader.error(item.key_node, item_path,
                   "`" + item.key + "` is a fact of the " + owner +
                       " device, read only by `expect." + owner +
                       "` entries; this entry is expect." +
                       std::string(backend_name(backend)));
      continue;
    }
    Condition condition;
    condition.fact = item.key;
    condition.where = reader.where(item);
    if (is_version_fact(item.key)) {
      const auto text = read_constraints(reader, item, item_path);
      if (!text) continue;
      condition.text = *text;
    } else {
      const std::string what =
          item.key == "cpu"
              ? "CPU features (avx2, avx512f, avx512_bf16, amx_bf16, ...), "
                "each present or absent (`!avx512f`)"
          : item.key == "os"  ? "an operating system (linux) or a list"
          : item.key == "gfx" ? "a gfx target (gfx90a, gfx942) or a list"
                              : "a machine (x86_64, aarch64) or a list";
      const auto words = read_words(reader, item, item_path, what);
      if (!words) continue;
      condition.text = *words;
    }
    conditions.push_back(condition);
  }
  return conditions;
}

}  // namespace model
}  // namespace casebook
