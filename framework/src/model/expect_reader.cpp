// `expect`: per backend, what must happen; and the rules that tie it to
// `backends`, `reference` and the op's kind.
#include <algorithm>
#include <string>
#include <vector>

#include "casebook/message_pattern.h"
#include "casebook/op_traits.h"
#include "casebook/suggestions.h"
#include "model/sections.h"

namespace casebook::model {
namespace {

// "a validate.* or kernels.* op": the ops that report counts, in their
// owner's words.
std::string counting_ops() { return installed_op_traits().wording.with_counts; }

std::string family_names() {
  std::vector<std::string> names;
  for (Family family : all_families()) {
    names.emplace_back(family_name(family));
  }
  return join(names);
}

std::optional<Family> read_family(Reader& reader, const Entry& entry,
                                  const std::string& path) {
  return reader.read_name(entry.value, reader.where(entry), path, parse_family,
                          family_names(), suggest_family);
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

// `message`: a regular expression (RE2's syntax: linear time, no
// backreferences or look-around), checked here so that a bad one is the
// file's error, not a run's.
std::optional<std::string> read_message_pattern(Reader& reader,
                                                const Entry& entry,
                                                const std::string& path) {
  auto pattern = reader.read_string(entry, path);
  if (!pattern) return std::nullopt;
  if (const auto problem = message_pattern_problem(*pattern)) {
    reader.error(reader.where(entry), path,
                 "expected a regular expression (RE2's syntax: no "
                 "backreferences or look-around); `" +
                     *pattern + "` does not compile: " + *problem);
    return std::nullopt;
  }
  return pattern;
}

// `processed`: a count of entries, an integer >= 0.
std::optional<int64_t> read_processed(Reader& reader, const Entry& entry,
                                      const std::string& path) {
  const auto count = reader.read_int(entry.value, reader.where(entry), path);
  if (count && *count < 0) {
    reader.error(
        reader.where(entry), path,
        "expected a number of entries >= 0; got " + describe(entry.value));
    return std::nullopt;
  }
  return count;
}

std::optional<Expectation> read_expectation(
    Reader& reader, const Entry& entry, const std::string& path,
    Backend backend, bool counting_op, const std::filesystem::path& case_file) {
  Expectation expectation;
  expectation.where = reader.where(entry);
  const std::string what =
      "`match`, {error: FAMILY}, {xfail: REASON}, {skip: REASON} or "
      "{outputs: ...}, each optionally with `when`";
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
                      {"error", "positions", "processed", "message", "xfail",
                       "family", "skip", "outputs", "when"},
                      what);
  std::vector<std::string> kinds;
  for (const Entry& item : *map) {
    if (item.key == "error" || item.key == "xfail" || item.key == "skip") {
      kinds.push_back("`" + item.key + "`");
    }
  }
  const bool plain_match = kinds.empty() &&
                           reader.error_count() == errors_before &&
                           (find_entry(*map, "outputs") != nullptr ||
                            find_entry(*map, "processed") != nullptr ||
                            find_entry(*map, "when") != nullptr);
  if (kinds.size() != 1 && !plain_match) {
    // A misspelt kind was reported already as an unknown key.
    if (!kinds.empty() || reader.error_count() == errors_before) {
      reader.error(expectation.where, path,
                   "expected exactly one of `error`, `xfail`, `skip` (or "
                   "`outputs` alone, to match); got " +
                       (kinds.empty() ? std::string("none") : join(kinds)));
    }
    return std::nullopt;
  }
  const std::string kind =
      plain_match ? "match" : kinds.front().substr(1, kinds.front().size() - 2);
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
    } else if (item.key == "positions" && kind == "error" && counting_op) {
      expectation.positions = reader.read_int_list(item, item_path, 0);
      expectation.positions_where = reader.where(item.key_node);
    } else if (item.key == "processed" && kind != "skip" && counting_op) {
      expectation.processed = read_processed(reader, item, item_path);
      expectation.processed_where = reader.where(item.key_node);
    } else if (item.key == "message" && kind == "error") {
      expectation.message = read_message_pattern(reader, item, item_path);
    } else if (item.key == "outputs" && (kind == "match" || kind == "xfail")) {
      expectation.outputs = read_outputs(reader, item, item_path, case_file);
    } else if (item.key == "when") {
      expectation.when = read_when(reader, item, item_path, backend);
    } else {
      reader.error(
          item.key_node, item_path,
          "`" + item.key + "` goes with " +
              (item.key == "family"    ? "`xfail` only"
               : item.key == "message" ? "`error` only"
               : item.key == "outputs"
                   ? "a run that gives outputs (`match` or `xfail`) "
                     "only"
               : item.key == "processed"
                   ? "`match`, `error` or `xfail` of " + counting_ops() +
                         " only (an op that counts its entries)"
                   : "`error` of " + counting_ops() + " only"));
    }
  }
  if (reader.error_count() != errors_before) return std::nullopt;
  return expectation;
}

// `expect.<backend>`: one expectation, or a list of them tried in order (the
// first whose `when` holds applies; none: `match`).
std::vector<Expectation> read_entries(Reader& reader, const Entry& item,
                                      const std::string& path, Backend backend,
                                      bool counting_op,
                                      const std::filesystem::path& case_file) {
  std::vector<Expectation> entries;
  if (!item.value.IsSequence()) {
    if (auto expectation = read_expectation(reader, item, path, backend,
                                            counting_op, case_file)) {
      entries.push_back(*expectation);
    }
    return entries;
  }
  if (item.value.size() == 0) {
    reader.error(reader.where(item), path,
                 "expected a list of expectations; got an empty list");
  }
  for (size_t i = 0; i < item.value.size(); ++i) {
    const std::string at = path + "[" + std::to_string(i) + "]";
    const Entry element{item.key, item.value[i], item.value[i]};
    if (auto expectation = read_expectation(reader, element, at, backend,
                                            counting_op, case_file)) {
      entries.push_back(*expectation);
    }
  }
  return entries;
}

}  // namespace

void read_expect(Reader& reader, const Entry& entry, Case& out) {
  std::vector<std::string> backend_names;
  for (Backend backend : all_backends()) {
    backend_names.emplace_back(backend_name(backend));
  }
  // Keys are checked below, not by read_map: a word for a kind of device
  // (`gpu`) suggests every backend of that kind, not the nearest spelling.
  const auto map =
      reader.read_map(entry.value, reader.where(entry), "expect", {},
                      "a map from backend (" + casebook::backend_names() +
                          ") to what must happen");
  if (!map) return;
  // The ops whose traits say they report counts and rejected positions;
  // which of them report which is the registered op's to say
  // (check_registered_op, framework/src/ops).
  const OpTraits* traits = installed_op_traits().find(out.op);
  const bool counting_op = traits != nullptr && traits->reports_counts;
  std::string listed;
  for (Backend backend : out.backends) {
    listed += (listed.empty() ? "" : ", ") + std::string(backend_name(backend));
  }
  for (const Entry& item : *map) {
    const std::string path = join_path("expect", item.key);
    const std::optional<Backend> parsed = parse_backend(item.key);
    if (!parsed) {
      const std::vector<std::string> meant = suggest_backends(item.key);
      reader.error(
          item.key_node, path,
          "unknown key `" + item.key + "`" +
              (meant.empty() ? "; expected one of " + join(backend_names)
                             : did_you_mean(meant)));
      continue;
    }
    const Backend backend = *parsed;
    if (!out.runs_on(backend)) {
      reader.error(item.key_node, path,
                   "`" + item.key + "` is not in `backends` (" + listed + ")");
      continue;
    }
    out.expect_entries[backend] =
        read_entries(reader, item, path, backend, counting_op, out.file);
  }
  // The reference itself must fail: nothing to compare with. (A GPU backend
  // without its own expectation is then that backend's ERROR when it runs:
  // resolve_conditions().)
  if (out.reference == Case::Reference::kCpu ||
      out.reference == Case::Reference::kNone) {
    return;
  }
  for (const Expectation& cpu : out.expect_entries[Backend::kCpu]) {
    if (cpu.kind != Expectation::Kind::kError) continue;
    reader.error(
        cpu.where, "expect.cpu",
        std::string("expected no CPU error with `reference: ") +
            (out.reference == Case::Reference::kCpu64 ? "cpu64" : "torch") +
            "`: the CPU run is then compared with that reference");
    break;
  }
  if (out.expect_entries[Backend::kCpu].empty()) {
    out.expect_entries.erase(Backend::kCpu);
  }
}

}  // namespace casebook::model
