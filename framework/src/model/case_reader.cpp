// The top level of a case file (format version 1): each top-level key's
// reader, and the order they are read in (a key that needs another's value
// is read after it).
#include <algorithm>
#include <cctype>
#include <cmath>

#include "casebook/joined.h"
#include "casebook/loader.h"
#include "casebook/neighbors.h"
#include "casebook/op_traits.h"
#include "casebook/printable.h"
#include "casebook/suggestions.h"
#include "model/placeholders.h"
#include "model/sections.h"

namespace casebook::model {
namespace {

constexpr int kFormatVersion = 1;

const std::vector<std::string> kTopKeys{"casebook",
                                        "id",
                                        "summary",
                                        "op",
                                        "args",
                                        "inputs",
                                        "backends",
                                        "reference",
                                        "reference_layout",
                                        "tolerance",
                                        "expect",
                                        "timeout",
                                        "origin",
                                        "grad",
                                        "outputs",
                                        "repeat",
                                        "deterministic",
                                        "neighbors",
                                        "rounding",
                                        "steps"};

void read_id(Reader& reader, const Entry& entry, Case& out) {
  const auto text = reader.read_string(entry, "id");
  if (!text) return;
  if (text->empty()) {
    reader.error(reader.where(entry), "id", "expected a name; got nothing");
  } else if (printable_line(*text) != *text) {
    // An id is printed on every verdict line: a newline in it would forge
    // a line (the prescan refused every other control character).
    reader.error(reader.where(entry), "id",
                 "expected a name of printable characters; got `" +
                     printable_line(*text) +
                     "` (a newline or tab, shown escaped)");
  } else {
    out.id = *text;
    out.id_written = true;
  }
}

void read_summary(Reader& reader, const Entry& entry, Case& out) {
  auto text = reader.read_string(entry, "summary");
  if (!text) return;
  // A folded or literal block ends with a newline: not a second line.
  while (!text->empty() &&
         std::isspace(static_cast<unsigned char>(text->back()))) {
    text->pop_back();
  }
  const auto lines = std::count(text->begin(), text->end(), '\n') + 1;
  if (text->empty()) {
    reader.error(reader.where(entry), "summary",
                 "expected one line: what the case guards; got an empty "
                 "string");
  } else if (lines > 1) {
    reader.error(reader.where(entry), "summary",
                 "expected one line; got " + std::to_string(lines) + " lines");
  }
  out.summary = *text;
}

void read_op(Reader& reader, const Entry& entry, Case& out) {
  out.op_where = reader.where(entry);
  const auto op = reader.read_string(entry, "op");
  if (!op) return;
  out.op = *op;
  // Which names are ops is the ops' owner's to say (the families of its
  // table); whether the op exists is the registry's, when it runs.
  const OpTraitsTable& traits = installed_op_traits();
  if (traits.find(out.op) != nullptr) return;
  // PyTorch's Python spelling (`F.cross_entropy`, `nn.CrossEntropyLoss`):
  // the name a case gives the same op.
  reader.error(out.op_where, "op",
               "expected " + traits.wording.op_names + "; got " +
                   describe(entry.value) +
                   did_you_mean(python_op_spelling(out.op)));
}

void read_reference(Reader& reader, const Entry& entry, Case& out) {
  const Scalar scalar = resolve_scalar(entry.value);
  if (scalar.text == "cpu") {
    out.reference = Case::Reference::kCpu;
  } else if (scalar.text == "cpu64") {
    out.reference = Case::Reference::kCpu64;
  } else if (scalar.text == "none" && entry.value.IsScalar()) {
    out.reference = Case::Reference::kNone;
  } else if (scalar.text == "torch" && entry.value.IsScalar()) {
    out.reference = Case::Reference::kTorch;
    const OpTraitsTable& traits = installed_op_traits();
    const OpTraits* op = traits.find(out.op);
    if (op == nullptr || !op->torch_reference) {
      reader.error(reader.where(entry), "reference",
                   "expected `torch` only for " +
                       traits.wording.with_torch_reference + "; got op `" +
                       out.op + "`");
    }
  } else {
    reader.error(reader.where(entry), "reference",
                 "expected one of cpu, cpu64, torch, none; got " +
                     describe(entry.value));
  }
}

// `reference_layout`: contiguous (the default) or kept; only where a
// reference run of its own computes (cpu64, torch): the cpu reference is the
// CPU's judged run itself.
void read_reference_layout(Reader& reader, const Entry& entry, Case& out) {
  const auto text = reader.read_string(entry, "reference_layout");
  if (!text) return;
  if (*text != "contiguous" && *text != "kept") {
    reader.error(reader.where(entry), "reference_layout",
                 "expected contiguous or kept; got `" + *text + "`");
  } else if (out.reference != Case::Reference::kCpu64 &&
             out.reference != Case::Reference::kTorch) {
    reader.error(reader.where(entry), "reference_layout",
                 "goes with `reference: cpu64` or `reference: torch` (a "
                 "reference run of its own); the cpu reference is the CPU's "
                 "own run, with the case's layouts");
  } else {
    out.reference_keeps_layout = *text == "kept";
  }
}

void read_timeout(Reader& reader, const Entry& entry, Case& out) {
  const auto seconds =
      reader.read_number(entry.value, reader.where(entry), "timeout");
  if (!seconds) return;
  // A day: one op's run takes seconds, a slow GPU's minutes; a deadline
  // beyond the clock's range (about 292 years of nanoseconds) overflowed
  // into the past, a TIMEOUT at once (issue 49).
  constexpr double kLongestTimeout = 24 * 60 * 60;
  if (!std::isfinite(*seconds) || *seconds <= 0 || *seconds > kLongestTimeout) {
    reader.error(reader.where(entry), "timeout",
                 "expected a number of seconds > 0 and at most 86400 (a "
                 "day); got " +
                     describe(entry.value));
    return;
  }
  out.timeout_seconds = *seconds;
}

void read_repeat(Reader& reader, const Entry& entry, Case& out) {
  const auto count =
      reader.read_int(entry.value, reader.where(entry), "repeat");
  if (!count) return;
  // A bound that keeps a mistyped count from running for hours.
  constexpr int64_t kMostRepeats = 10000;
  if (*count < 1 || *count > kMostRepeats) {
    reader.error(reader.where(entry), "repeat",
                 "expected a number of runs in [1, 10000]; got " +
                     describe(entry.value));
    return;
  }
  out.repeat = static_cast<int>(*count);
}

void read_deterministic(Reader& reader, const Entry& entry, Case& out) {
  const Scalar scalar = resolve_scalar(entry.value);
  if (entry.value.IsScalar() && scalar.text == "bitwise") {
    out.deterministic = Case::Determinism::kBitwise;
  } else if (entry.value.IsScalar() && scalar.text == "tolerance") {
    out.deterministic = Case::Determinism::kTolerance;
  } else {
    reader.error(
        reader.where(entry), "deterministic",
        "expected `bitwise` or `tolerance`; got " + describe(entry.value));
  }
}

// Top-level `rounding: nearest`: the default of every tensor's `rounding`.
void read_rounding(Reader& reader, const Entry& entry) {
  const Scalar scalar = resolve_scalar(entry.value);
  if (entry.value.IsScalar() && scalar.kind == Scalar::Kind::kString &&
      scalar.text == "nearest") {
    reader.set_round_values_to_nearest(true);
  } else {
    reader.error(reader.where(entry), "rounding",
                 "expected `nearest`; got " + describe(entry.value));
  }
}

// The `same_as` an input's map gives (its text; empty where it is no
// string); nullopt for a tensor of its own.
std::optional<std::string> same_as_of(const YAML::Node& input) {
  if (!input.IsMap()) return std::nullopt;
  for (const auto& pair : input) {
    if (!pair.first.IsScalar() || pair.first.Scalar() != "same_as") continue;
    const Scalar name = resolve_scalar(pair.second);
    return pair.second.IsScalar() && name.kind == Scalar::Kind::kString
               ? name.text
               : std::string();
  }
  return std::nullopt;
}

// Why `name` cannot be the target of alias `alias` among `inputs` (a case
// of `steps` or not); empty when it can.
std::string alias_problem(const std::string& alias, const std::string& name,
                          const std::vector<Entry>& inputs, bool steps) {
  if (steps) {
    return "a step passes one tensor twice by naming it twice (`inputs: "
           "{self: x, out: x}`): a case of `steps` has no `same_as`";
  }
  if (name == alias) return "`" + alias + "` cannot be itself";
  std::vector<std::string> targets;
  for (const Entry& input : inputs) {
    if (input.key != alias && !same_as_of(input.value)) {
      targets.push_back(input.key);
    }
  }
  const Entry* target = find_entry(inputs, name);
  if (target == nullptr) {
    return "expected the name of another input of the case (" +
           (targets.empty() ? std::string("it has none") : joined(targets)) +
           "); got `" + name + "`" + did_you_mean(nearest_name(name, targets));
  }
  if (const auto further = same_as_of(target->value)) {
    return "`" + name + "` is an alias itself (`same_as: " + *further +
           "`): name the input it is";
  }
  return "";
}

// `{same_as: NAME}`: an input that is input NAME's tensor itself, standing
// alone (follow_aliases gives it NAME's spec once every input is read).
std::optional<TensorSpec> read_alias(Reader& reader, const Entry& input,
                                     const std::vector<Entry>& inputs,
                                     bool steps) {
  const std::string path = join_path("inputs", input.key);
  const auto map = reader.read_map(input.value, reader.where(input), path, {},
                                   "an alias: `{same_as: NAME}`");
  if (!map) return std::nullopt;
  const size_t errors_before = reader.error_count();
  for (const Entry& other : *map) {
    if (other.key == "same_as") continue;
    reader.error(other.key_node, join_path(path, other.key),
                 "expected `same_as` alone: the input is that input's tensor, "
                 "its dtype, shape and values; got `" +
                     other.key + "` beside it");
  }
  const Entry* same_as = find_entry(*map, "same_as");
  if (same_as == nullptr) return std::nullopt;  // never: same_as_of found it
  const std::string name = same_as_of(input.value).value_or("");
  const std::string why = name.empty()
                              ? "expected the name of another input; got " +
                                    describe(same_as->value)
                              : alias_problem(input.key, name, inputs, steps);
  if (!why.empty()) {
    reader.error(reader.where(*same_as), join_path(path, "same_as"), why);
  }
  if (reader.error_count() != errors_before) return std::nullopt;
  TensorSpec alias;
  alias.name = input.key;
  alias.where = reader.where(input);
  alias.same_as = name;
  return alias;
}

void read_inputs(Reader& reader, const Entry& entry, bool steps, Case& out) {
  const auto inputs =
      reader.read_map(entry.value, reader.where(entry), "inputs", {},
                      "a map of input names to tensors");
  if (!inputs) return;
  for (const Entry& input : *inputs) {
    auto tensor = same_as_of(input.value)
                      ? read_alias(reader, input, *inputs, steps)
                      : read_tensor(reader, input,
                                    join_path("inputs", input.key), out.file);
    if (tensor) out.inputs.push_back(std::move(*tensor));
  }
  follow_aliases(out.inputs);
}

// The format version, read before anything else: another version gives the
// other keys other meanings, so its file gets this one error only.
bool check_version(Reader& reader, const YAML::Node& root) {
  if (!root.IsMap()) return true;
  for (const auto& pair : root) {
    if (!pair.first.IsScalar() || pair.first.Scalar() != "casebook") continue;
    const Scalar scalar = resolve_scalar(pair.second);
    if (scalar.kind == Scalar::Kind::kInt && !scalar.int_overflow &&
        scalar.int_value == kFormatVersion) {
      return true;
    }
    const Entry version{"casebook", pair.first, pair.second};
    reader.error(reader.where(version), "casebook",
                 "unsupported format version " + describe(pair.second) +
                     "; this casebook reads version 1");
    return false;
  }
  return true;
}

// The top-level map of a case file while it is read.
struct TopLevel {
  Reader& reader;
  const std::vector<Entry>& map;
  SourceLocation where;  // the file's start

  const Entry* entry(const char* key) const { return find_entry(map, key); }
  // The entry, or null after reporting it missing.
  const Entry* required(const char* key) const {
    const Entry* found = entry(key);
    if (found == nullptr) reader.error(where, key, "required key missing");
    return found;
  }
};

// `casebook` (its value was checked first), `id` and `summary`.
void read_identity(const TopLevel& top, Case& out) {
  top.required("casebook");
  if (const Entry* id = top.entry("id")) read_id(top.reader, *id, out);
  if (const Entry* summary = top.required("summary")) {
    read_summary(top.reader, *summary, out);
  }
}

// One op (`op`, `args`), or a sequence of them (`steps`, each with its own
// args), reading `inputs` (after the file's `rounding`).
void read_computation(const TopLevel& top, Case& out) {
  Reader& reader = top.reader;
  const Entry* steps = top.entry("steps");
  if (steps == nullptr) {
    if (const Entry* op = top.required("op")) read_op(reader, *op, out);
  } else if (const Entry* op = top.entry("op")) {
    reader.error(reader.where(*op), "op",
                 "a case has `op` or `steps`, not both; line " +
                     std::to_string(reader.where(*steps).line) +
                     " gives `steps`");
  }
  if (const Entry* args = top.entry("args")) {
    if (steps != nullptr) {
      reader.error(reader.where(*args), "args",
                   "a case of `steps` gives each step its own `args`");
    } else {
      out.args = read_args(reader, *args);
    }
  }
  if (const Entry* rounding = top.entry("rounding"))
    read_rounding(reader, *rounding);
  if (const Entry* inputs = top.required("inputs"))
    read_inputs(reader, *inputs, steps != nullptr, out);
  if (steps != nullptr) read_steps(reader, *steps, out);
}

// `reference: none` with no `outputs`, top-level or in an expectation:
// nothing would judge the backends.
void check_judged_without_reference(const TopLevel& top, const Case& out) {
  if (out.reference != Case::Reference::kNone) return;
  bool any = !out.outputs.empty();
  for (const auto& [backend, entries] : out.expect_entries) {
    for (const Expectation& each : entries) any = any || !each.outputs.empty();
  }
  if (!any) {
    top.reader.error(top.reader.where(*top.entry("reference")), "reference",
                     "`none` needs `outputs`: what every backend is judged by");
  }
}

// Where the case runs and what judges it: backends, reference, tolerance,
// expect, grad, outputs.
void read_judging(const TopLevel& top, Case& out) {
  Reader& reader = top.reader;
  out.backends = built_in_backends();
  if (const Entry* backends = top.entry("backends")) {
    out.backends = read_backends(reader, *backends);
  }
  if (const Entry* reference = top.entry("reference")) {
    read_reference(reader, *reference, out);
  }
  if (const Entry* layout = top.entry("reference_layout")) {
    read_reference_layout(reader, *layout, out);
  }
  if (const Entry* tolerance = top.entry("tolerance")) {
    read_tolerance(reader, *tolerance, out);
  }
  if (const Entry* expect = top.entry("expect")) {
    read_expect(reader, *expect, out);
  }
  if (const Entry* grad = top.entry("grad")) read_grad(reader, *grad, out);
  if (const Entry* outputs = top.entry("outputs")) {
    out.outputs = read_outputs(reader, *outputs, "outputs", out.file);
  }
  read_step_outputs(reader, out);
  check_judged_without_reference(top, out);
}

// `repeat`, and `deterministic`, which compares the repeated runs.
void read_repetition(const TopLevel& top, Case& out) {
  Reader& reader = top.reader;
  if (const Entry* repeat = top.entry("repeat")) {
    read_repeat(reader, *repeat, out);
  }
  if (const Entry* deterministic = top.entry("deterministic")) {
    read_deterministic(reader, *deterministic, out);
    if (out.deterministic != Case::Determinism::kNone && out.repeat < 2) {
      reader.error(reader.where(*deterministic), "deterministic",
                   "needs `repeat` of 2 or more: the runs to compare");
    }
  }
}

// `neighbors`. A rule that does not apply to this op or these inputs is an
// error at its line; only a case that reads cleanly can be asked.
void read_neighbor_rules(const TopLevel& top, Case& out) {
  const Entry* neighbors = top.entry("neighbors");
  if (neighbors == nullptr) return;
  read_neighbors(top.reader, *neighbors, out);
  if (top.reader.error_count() != 0) return;
  for (const CaseError& error : declared_neighbors(out).errors) {
    top.reader.error(error.where, error.key_path, error.message);
  }
}

}  // namespace

void read_case(Reader& reader, const YAML::Node& root, Case& out,
               std::vector<std::string>* placeholders) {
  const SourceLocation start{reader.file(), 1, 1};
  if (!check_version(reader, root)) return;
  *placeholders = report_placeholders(reader, root);
  const auto map =
      reader.read_map(root, start, "", kTopKeys,
                      "a case: a map with casebook, summary, op, inputs");
  if (!map) return;
  const TopLevel top{reader, *map, start};
  read_identity(top, out);
  read_computation(top, out);
  read_judging(top, out);
  read_repetition(top, out);
  // Without the run's facts every condition is false: the entries without
  // `when` apply. The runner resolves again with its environment's facts.
  resolve_conditions(out, {});
  if (const Entry* timeout = top.entry("timeout")) {
    read_timeout(reader, *timeout, out);
  }
  if (const Entry* origin = top.entry("origin")) {
    out.origin = read_origin(reader, *origin);
  }
  read_neighbor_rules(top, out);
}

}  // namespace casebook::model
