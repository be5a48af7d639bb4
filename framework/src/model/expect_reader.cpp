// `expect`: per backend, what must happen; and the rules that tie it to
// `backends`, `reference` and the op's kind.
#include <algorithm>
#include <string>
#include <vector>

#include "model/sections.h"

namespace casebook::model {
namespace {

std::string family_names() {
  std::vector<std::string> names;
  for (Family family : all_families()) {
    names.emplace_back(family_name(family));
  }
  return join(names);
}

std::optional<Family> read_family(Reader& reader, const Entry& entry,
                                  const std::string& path) {
  const Scalar scalar = resolve_scalar(entry.value);
  const auto family = scalar.kind == Scalar::Kind::kString
                          ? parse_family(scalar.text)
                          : std::nullopt;
  if (!family) {
    reader.error(
        reader.where(entry), path,
        "expected one of " + family_names() + "; got " + describe(entry.value));
  }
  return family;
}

std::optional<std::string> read_reason(Reader& reader, const Entry& entry,
                                       const std::string& path) {
  auto reason = reader.read_string(entry, path);
  if (reason && reason->empty()) {
    reader.error(reader.where(entry), path,
                 "expected a reason; got an empty string");
    return std::nullopt;
  }
  return reason;
}

std::optional<Expectation> read_expectation(Reader& reader, const Entry& entry,
                                            const std::string& path,
                                            bool validate_op) {
  Expectation expectation;
  expectation.where = reader.where(entry);
  const std::string what =
      "`match`, {error: FAMILY}, {xfail: REASON} or {skip: REASON}";
  if (entry.value.IsScalar() && entry.value.Scalar() == "match") {
    return expectation;
  }
  if (!entry.value.IsMap()) {
    reader.error(expectation.where, path,
                 "expected " + what + "; got " + describe(entry.value));
    return std::nullopt;
  }
  const size_t errors_before = reader.error_count();
  const auto map =
      reader.read_map(entry.value, expectation.where, path,
                      {"error", "positions", "xfail", "family", "skip"}, what);
  std::vector<std::string> kinds;
  for (const Entry& item : *map) {
    if (item.key == "error" || item.key == "xfail" || item.key == "skip") {
      kinds.push_back("`" + item.key + "`");
    }
  }
  if (kinds.size() != 1) {
    // A misspelt kind was reported already as an unknown key.
    if (!kinds.empty() || reader.error_count() == errors_before) {
      reader.error(expectation.where, path,
                   "expected exactly one of `error`, `xfail`, `skip`; got " +
                       (kinds.empty() ? std::string("none") : join(kinds)));
    }
    return std::nullopt;
  }
  const std::string kind = kinds.front().substr(1, kinds.front().size() - 2);
  for (const Entry& item : *map) {
    const std::string item_path = join_path(path, item.key);
    if (item.key == "error") {
      expectation.kind = Expectation::Kind::kError;
      expectation.family =
          read_family(reader, item, item_path).value_or(Family::kNone);
    } else if (item.key == "xfail" || item.key == "skip") {
      expectation.kind = item.key == "xfail" ? Expectation::Kind::kXfail
                                             : Expectation::Kind::kSkip;
      expectation.reason = read_reason(reader, item, item_path).value_or("");
    } else if (item.key == "family" && kind == "xfail") {
      expectation.family =
          read_family(reader, item, item_path).value_or(Family::kNone);
    } else if (item.key == "positions" && kind == "error" && validate_op) {
      expectation.positions = reader.read_int_list(item, item_path, 0);
    } else {
      reader.error(item.key_node, item_path,
                   "`" + item.key + "` goes with " +
                       (item.key == "family" ? "`xfail` only"
                                             : "`error` of a validate.* op "
                                               "only"));
    }
  }
  if (reader.error_count() != errors_before) return std::nullopt;
  return expectation;
}

}  // namespace

void read_expect(Reader& reader, const Entry& entry, Case& out) {
  std::vector<std::string> backend_names;
  for (Backend backend : all_backends()) {
    backend_names.emplace_back(backend_name(backend));
  }
  const auto map =
      reader.read_map(entry.value, reader.where(entry), "expect", backend_names,
                      "a map from backend (cpu, cuda, hip) to "
                      "what must happen");
  if (!map) return;
  const bool validate_op = out.op.rfind("validate.", 0) == 0;
  std::string listed;
  for (Backend backend : out.backends) {
    listed += (listed.empty() ? "" : ", ") + std::string(backend_name(backend));
  }
  std::vector<Backend> written;
  for (const Entry& item : *map) {
    const std::string path = join_path("expect", item.key);
    const Backend backend = *parse_backend(item.key);
    written.push_back(backend);
    if (!out.runs_on(backend)) {
      reader.error(item.key_node, path,
                   "`" + item.key + "` is not in `backends` (" + listed + ")");
      continue;
    }
    if (auto expectation = read_expectation(reader, item, path, validate_op)) {
      out.expect[backend] = *expectation;
    }
  }
  // The reference itself must fail: nothing to compare GPU runs with, so each
  // one needs its own expectation.
  const auto cpu = out.expect.find(Backend::kCpu);
  if (cpu == out.expect.end() ||
      cpu->second.kind != Expectation::Kind::kError) {
    return;
  }
  if (out.reference != Case::Reference::kCpu) {
    reader.error(
        cpu->second.where, "expect.cpu",
        std::string("expected no CPU error with `reference: ") +
            (out.reference == Case::Reference::kCpu64 ? "cpu64" : "torch") +
            "`: the CPU run is then compared with that reference");
  }
  std::vector<std::string> missing;
  for (Backend backend : out.backends) {
    if (is_gpu(backend) &&
        std::find(written.begin(), written.end(), backend) == written.end()) {
      missing.emplace_back(backend_name(backend));
    }
  }
  if (!missing.empty()) {
    reader.error(cpu->second.where, "expect.cpu",
                 "the reference must fail, so every GPU backend needs its own "
                 "expect; missing: " +
                     join(missing));
  }
}

}  // namespace casebook::model
