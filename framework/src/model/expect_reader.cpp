// `expect`: per backend, what must happen; and the rules that tie it to
// `backends`, `reference` and the op's kind.
#include <algorithm>
#include <string>
#include <vector>

#include "casebook/joined.h"
#include "casebook/message_pattern.h"
#include "casebook/op_traits.h"
#include "casebook/suggestions.h"
#include "model/sections.h"

namespace casebook::model {
namespace {

std::string family_names() {
  std::vector<std::string> names;
  for (Family family : all_families()) {
    names.emplace_back(family_name(family));
  }
  return joined(names);
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

// What reading the keys of one expectation needs.
struct ExpectationContext {
  Reader& reader;
  Backend backend;
  const std::string& op;
  const OpTraits* op_traits;  // null: the table knows no such op
  const std::filesystem::path& case_file;
  std::string kind;  // match, error, xfail or skip
};

// A key of an expectation: whether it goes with the expectation's kind (and
// op), how it is read, and what it goes with, for the error where it does
// not.
struct ExpectationKey {
  const char* name;
  bool (*allowed)(const ExpectationContext&);
  void (*read)(const ExpectationContext&, const Entry& item,
               const std::string& path, Expectation& out);
  std::string (*goes_with)();
  // A key only some ops report (`processed`, `positions`): the trait that
  // says an op does, and the words for an op that does not.
  bool OpTraits::* reported_by = nullptr;
  const char* unreported = nullptr;
};

// Where the case's op does not report what `key` asks of it, why: naming
// the ops that do. Empty where it does (or the key asks nothing of it).
std::string unreported(const ExpectationContext& context,
                       const ExpectationKey& key) {
  if (key.reported_by == nullptr) return "";
  const OpTraits* traits = context.op_traits;
  if (traits != nullptr && (*traits).*key.reported_by) return "";
  const std::vector<std::string> reporting =
      installed_op_traits().names_where(key.reported_by);
  return "`" + context.op + "` " + key.unreported + ", so `" + key.name +
         "` cannot be checked (ops that do: " +
         (reporting.empty() ? std::string("none") : joined(reporting)) + ")";
}

bool always(const ExpectationContext&) { return true; }

// `xfail` or `skip`: the kind, and its reason.
void read_reason_key(const ExpectationContext& context, const Entry& item,
                     const std::string& path, Expectation& out) {
  out.kind = item.key == "xfail" ? Expectation::Kind::kXfail
                                 : Expectation::Kind::kSkip;
  out.reason = read_reason(context.reader, item, path).value_or("");
}

// Every key of an expectation, in the order of docs/case-format.md.
const std::vector<ExpectationKey>& expectation_keys() {
  using Context = ExpectationContext;
  static const std::vector<ExpectationKey> keys{
      {"error", always,
       [](const Context& c, const Entry& item, const std::string& path,
          Expectation& out) {
         out.kind = Expectation::Kind::kError;
         out.family = read_family(c.reader, item, path).value_or(Family::kNone);
       },
       nullptr},
      {"positions", [](const Context& c) { return c.kind == "error"; },
       [](const Context& c, const Entry& item, const std::string& path,
          Expectation& out) {
         out.positions = c.reader.read_int_list(item, path, 0);
         out.positions_where = c.reader.where(item.key_node);
       },
       [] { return std::string("`error` only"); }, &OpTraits::reports_positions,
       "reports no rejected positions"},
      {"processed", [](const Context& c) { return c.kind != "skip"; },
       [](const Context& c, const Entry& item, const std::string& path,
          Expectation& out) {
         out.processed = read_processed(c.reader, item, path);
         out.processed_where = c.reader.where(item.key_node);
       },
       [] { return std::string("`match`, `error` or `xfail` only"); },
       &OpTraits::reports_processed, "does not count the entries it processes"},
      {"message", [](const Context& c) { return c.kind == "error"; },
       [](const Context& c, const Entry& item, const std::string& path,
          Expectation& out) {
         out.message = read_message_pattern(c.reader, item, path);
       },
       [] { return std::string("`error` only"); }},
      {"xfail", always, read_reason_key, nullptr},
      {"family", [](const Context& c) { return c.kind == "xfail"; },
       [](const Context& c, const Entry& item, const std::string& path,
          Expectation& out) {
         out.family = read_family(c.reader, item, path).value_or(Family::kNone);
       },
       [] { return std::string("`xfail` only"); }},
      {"skip", always, read_reason_key, nullptr},
      {"outputs",
       [](const Context& c) { return c.kind == "match" || c.kind == "xfail"; },
       [](const Context& c, const Entry& item, const std::string& path,
          Expectation& out) {
         out.outputs = read_outputs(c.reader, item, path, c.case_file);
       },
       [] {
         return std::string(
             "a run that gives outputs (`match` or `xfail`) only");
       }},
      {"when", always,
       [](const Context& c, const Entry& item, const std::string& path,
          Expectation& out) {
         out.when = read_when(c.reader, item, path, c.backend);
       },
       nullptr},
  };
  return keys;
}

std::vector<std::string> expectation_key_names() {
  std::vector<std::string> names;
  for (const ExpectationKey& key : expectation_keys()) {
    names.emplace_back(key.name);
  }
  return names;
}

// One key of an expectation, read where it goes with the expectation's
// kind, else reported.
void read_expectation_key(const ExpectationContext& context, const Entry& item,
                          const std::string& path, Expectation& out) {
  for (const ExpectationKey& key : expectation_keys()) {
    if (item.key != key.name) continue;
    if (!key.allowed(context)) {
      context.reader.error(item.key_node, path,
                           "`" + item.key + "` goes with " + key.goes_with());
      return;
    }
    // A case may expect only what its op reports.
    const std::string why = unreported(context, key);
    if (why.empty()) {
      key.read(context, item, path, out);
    } else {
      context.reader.error(item.key_node, path, why);
    }
    return;
  }
}

// The expectation's kind: the one of `error`, `xfail`, `skip` given, or
// `match` where none is and `outputs`, `processed` or `when` is. Nullopt
// after reporting none or several (a misspelt kind was reported already,
// by read_map, as an unknown key).
std::optional<std::string> expectation_kind(Reader& reader,
                                            const std::vector<Entry>& map,
                                            const SourceLocation& where,
                                            const std::string& path,
                                            size_t errors_before) {
  std::vector<std::string> kinds;
  for (const Entry& item : map) {
    if (item.key == "error" || item.key == "xfail" || item.key == "skip") {
      kinds.push_back("`" + item.key + "`");
    }
  }
  const bool plain_match = kinds.empty() &&
                           reader.error_count() == errors_before &&
                           (find_entry(map, "outputs") != nullptr ||
                            find_entry(map, "processed") != nullptr ||
                            find_entry(map, "when") != nullptr);
  if (plain_match) return "match";
  if (kinds.size() != 1) {
    if (!kinds.empty() || reader.error_count() == errors_before) {
      reader.error(where, path,
                   "expected exactly one of `error`, `xfail`, `skip` (or "
                   "`outputs` alone, to match); got " +
                       (kinds.empty() ? std::string("none") : joined(kinds)));
    }
    return std::nullopt;
  }
  return kinds.front().substr(1, kinds.front().size() - 2);
}

std::optional<Expectation> read_expectation(
    Reader& reader, const Entry& entry, const std::string& path,
    Backend backend, const std::string& op, const OpTraits* op_traits,
    const std::filesystem::path& case_file) {
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
  const auto map = reader.read_map(entry.value, expectation.where, path,
                                   expectation_key_names(), what);
  if (!map) return std::nullopt;
  const std::optional<std::string> kind =
      expectation_kind(reader, *map, expectation.where, path, errors_before);
  if (!kind) return std::nullopt;
  const ExpectationContext context{reader,    backend,   op,
                                   op_traits, case_file, *kind};
  for (const Entry& item : *map) {
    read_expectation_key(context, item, join_path(path, item.key), expectation);
  }
  if (reader.error_count() != errors_before) return std::nullopt;
  return expectation;
}

// `expect.<backend>`: one expectation, or a list of them tried in order (the
// first whose `when` holds applies; none: `match`).
std::vector<Expectation> read_entries(Reader& reader, const Entry& item,
                                      const std::string& path, Backend backend,
                                      const std::string& op,
                                      const OpTraits* op_traits,
                                      const std::filesystem::path& case_file) {
  std::vector<Expectation> entries;
  if (!item.value.IsSequence()) {
    if (auto expectation = read_expectation(reader, item, path, backend, op,
                                            op_traits, case_file)) {
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
    if (auto expectation = read_expectation(reader, element, at, backend, op,
                                            op_traits, case_file)) {
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
  // What the op reports (`processed`, `positions`): its declared traits.
  const OpTraits* traits = installed_op_traits().find(out.op);
  const std::string listed = joined(out.backends, ", ", backend_name);
  for (const Entry& item : *map) {
    const std::string path = join_path("expect", item.key);
    const std::optional<Backend> parsed = parse_backend(item.key);
    if (!parsed) {
      const std::vector<std::string> meant = suggest_backends(item.key);
      reader.error(
          item.key_node, path,
          "unknown key `" + item.key + "`" +
              (meant.empty() ? "; expected one of " + joined(backend_names)
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
        read_entries(reader, item, path, backend, out.op, traits, out.file);
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
