// Case files to Case values: the top level of format version 1. Every problem
// becomes a CaseError; nothing throws out of load_case_*.
#include "casebook/loader.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>

#include "casebook/limits.h"
#include "casebook/neighbors.h"
#include "casebook/op_traits.h"
#include "casebook/printable.h"
#include "casebook/suggestions.h"
#include "model/placeholders.h"
#include "model/sections.h"
#include "model/yaml_prescan.h"

namespace casebook {
namespace {

using model::Entry;
using model::Reader;

constexpr int kFormatVersion = 1;

const std::vector<std::string> kTopKeys{
    "casebook",      "id",        "summary",   "op",        "args",
    "inputs",        "backends",  "reference", "tolerance", "expect",
    "timeout",       "origin",    "grad",      "outputs",   "repeat",
    "deterministic", "neighbors", "rounding",  "steps"};

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
                   model::describe(entry.value) +
                   did_you_mean(python_op_spelling(out.op)));
}

void read_reference(Reader& reader, const Entry& entry, Case& out) {
  const model::Scalar scalar = model::resolve_scalar(entry.value);
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
                     model::describe(entry.value));
  }
}

void read_timeout(Reader& reader, const Entry& entry, Case& out) {
  const auto seconds =
      reader.read_number(entry.value, reader.where(entry), "timeout");
  if (!seconds) return;
  if (!std::isfinite(*seconds) || *seconds <= 0) {
    reader.error(reader.where(entry), "timeout",
                 "expected a number of seconds > 0; got " +
                     model::describe(entry.value));
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
                     model::describe(entry.value));
    return;
  }
  out.repeat = static_cast<int>(*count);
}

void read_deterministic(Reader& reader, const Entry& entry, Case& out) {
  const model::Scalar scalar = model::resolve_scalar(entry.value);
  if (entry.value.IsScalar() && scalar.text == "bitwise") {
    out.deterministic = Case::Determinism::kBitwise;
  } else if (entry.value.IsScalar() && scalar.text == "tolerance") {
    out.deterministic = Case::Determinism::kTolerance;
  } else {
    reader.error(reader.where(entry), "deterministic",
                 "expected `bitwise` or `tolerance`; got " +
                     model::describe(entry.value));
  }
}

// Top-level `rounding: nearest`: the default of every tensor's `rounding`.
void read_rounding(Reader& reader, const Entry& entry) {
  const model::Scalar scalar = model::resolve_scalar(entry.value);
  if (entry.value.IsScalar() && scalar.kind == model::Scalar::Kind::kString &&
      scalar.text == "nearest") {
    reader.set_round_values_to_nearest(true);
  } else {
    reader.error(reader.where(entry), "rounding",
                 "expected `nearest`; got " + model::describe(entry.value));
  }
}

void read_inputs(Reader& reader, const Entry& entry, Case& out) {
  const auto inputs =
      reader.read_map(entry.value, reader.where(entry), "inputs", {},
                      "a map of input names to tensors");
  if (!inputs) return;
  for (const Entry& input : *inputs) {
    auto tensor = model::read_tensor(
        reader, input, model::join_path("inputs", input.key), out.file);
    if (tensor) out.inputs.push_back(std::move(*tensor));
  }
}

// The whole document; `out` is complete where the reader holds no errors.
// The format version, read before anything else: another version gives the
// other keys other meanings, so its file gets this one error only.
bool check_version(Reader& reader, const YAML::Node& root) {
  if (!root.IsMap()) return true;
  for (const auto& pair : root) {
    if (!pair.first.IsScalar() || pair.first.Scalar() != "casebook") continue;
    const model::Scalar scalar = model::resolve_scalar(pair.second);
    if (scalar.kind == model::Scalar::Kind::kInt && !scalar.int_overflow &&
        scalar.int_value == kFormatVersion) {
      return true;
    }
    const Entry version{"casebook", pair.first, pair.second};
    reader.error(reader.where(version), "casebook",
                 "unsupported format version " + model::describe(pair.second) +
                     "; this casebook reads version 1");
    return false;
  }
  return true;
}

// `placeholders`: the key paths of the `TODO`s a skeleton left.
void read_case(Reader& reader, const YAML::Node& root, Case& out,
               std::vector<std::string>* placeholders) {
  const SourceLocation top{reader.file(), 1, 1};
  if (!check_version(reader, root)) return;
  *placeholders = model::report_placeholders(reader, root);
  const auto map =
      reader.read_map(root, top, "", kTopKeys,
                      "a case: a map with casebook, summary, op, inputs");
  if (!map) return;
  auto entry = [&](const char* key) { return model::find_entry(*map, key); };
  auto required = [&](const char* key) {
    const Entry* found = entry(key);
    if (found == nullptr) reader.error(top, key, "required key missing");
    return found;
  };

  required("casebook");  // its value was checked first
  if (const Entry* id = entry("id")) read_id(reader, *id, out);
  if (const Entry* summary = required("summary")) {
    read_summary(reader, *summary, out);
  }
  // One op (`op`, `args`), or a sequence of them (`steps`, each with its
  // own args), reading `inputs`.
  const Entry* steps = entry("steps");
  if (steps == nullptr) {
    if (const Entry* op = required("op")) read_op(reader, *op, out);
  } else if (const Entry* op = entry("op")) {
    reader.error(reader.where(*op), "op",
                 "a case has `op` or `steps`, not both; line " +
                     std::to_string(reader.where(*steps).line) +
                     " gives `steps`");
  }
  if (const Entry* args = entry("args")) {
    if (steps != nullptr) {
      reader.error(reader.where(*args), "args",
                   "a case of `steps` gives each step its own `args`");
    } else {
      out.args = model::read_args(reader, *args);
    }
  }
  if (const Entry* rounding = entry("rounding"))
    read_rounding(reader, *rounding);
  if (const Entry* inputs = required("inputs"))
    read_inputs(reader, *inputs, out);
  if (steps != nullptr) model::read_steps(reader, *steps, out);
  out.backends = built_in_backends();
  if (const Entry* backends = entry("backends")) {
    out.backends = model::read_backends(reader, *backends);
  }
  if (const Entry* reference = entry("reference")) {
    read_reference(reader, *reference, out);
  }
  if (const Entry* tolerance = entry("tolerance")) {
    model::read_tolerance(reader, *tolerance, out);
  }
  if (const Entry* expect = entry("expect")) {
    model::read_expect(reader, *expect, out);
  }
  if (const Entry* grad = entry("grad")) model::read_grad(reader, *grad, out);
  if (const Entry* outputs = entry("outputs")) {
    out.outputs = model::read_outputs(reader, *outputs, "outputs", out.file);
  }
  model::read_step_outputs(reader, out);
  if (out.reference == Case::Reference::kNone) {
    bool any = !out.outputs.empty();
    for (const auto& [backend, entries] : out.expect_entries) {
      for (const Expectation& each : entries)
        any = any || !each.outputs.empty();
    }
    if (!any) {
      reader.error(reader.where(*entry("reference")), "reference",
                   "`none` needs `outputs`: what every backend is judged by");
    }
  }
  if (const Entry* repeat = entry("repeat")) read_repeat(reader, *repeat, out);
  if (const Entry* deterministic = entry("deterministic")) {
    read_deterministic(reader, *deterministic, out);
    if (out.deterministic != Case::Determinism::kNone && out.repeat < 2) {
      reader.error(reader.where(*deterministic), "deterministic",
                   "needs `repeat` of 2 or more: the runs to compare");
    }
  }
  // Without the run's facts every condition is false: the entries without
  // `when` apply. The runner resolves again with its environment's facts.
  resolve_conditions(out, {});
  if (const Entry* timeout = entry("timeout"))
    read_timeout(reader, *timeout, out);
  if (const Entry* origin = entry("origin")) {
    out.origin = model::read_origin(reader, *origin);
  }
  if (const Entry* neighbors = entry("neighbors")) {
    model::read_neighbors(reader, *neighbors, out);
    // A rule that does not apply to this op or these inputs is an error at
    // its line; only a case that reads cleanly can be asked.
    if (reader.error_count() == 0) {
      for (const CaseError& error : declared_neighbors(out).errors) {
        reader.error(error.where, error.key_path, error.message);
      }
    }
  }
}

// Checked before parsing: a case holds a computation, not its data. The
// error points at the first byte past the limit; `size` is the whole file's.
CaseError too_large(const std::string& text, uint64_t size,
                    const std::filesystem::path& file) {
  const uint64_t limit = load_limits().max_file_bytes;
  return CaseError{
      model::location_of_byte(text, limit, file), "",
      "the file is " + format_bytes(size) + ", over the limit of " +
          format_bytes(limit) +
          " for a case file; large data belongs in a fixture (a .npy, "
          ".safetensors or .pt file under fixtures/, named by `file:`)"};
}

}  // namespace

LoadedCase load_case_text(const std::string& text,
                          const std::filesystem::path& file,
                          const std::filesystem::path& relative_to) {
  LoadedCase loaded;
  loaded.file = file;
  Reader reader(file);
  std::vector<std::string> placeholders;
  std::string internal_failure;
  try {
    loaded.id = derive_case_id(file, relative_to);
    Case value;
    value.file = file;
    value.id = loaded.id;
    if (text.size() > load_limits().max_file_bytes) {
      const CaseError error = too_large(text, text.size(), file);
      reader.error(error.where, error.key_path, error.message);
      loaded.errors = reader.take_errors();
      return loaded;
    }
    if (!model::prescan_yaml(text, reader)) {
      loaded.errors = reader.take_errors();
      return loaded;
    }
    std::vector<YAML::Node> documents;
    try {
      documents = YAML::LoadAll(text);
    } catch (const YAML::ParserException& error) {
      reader.error(
          SourceLocation{file, error.mark.line + 1, error.mark.column + 1}, "",
          "invalid YAML: " + error.msg);
    }
    if (documents.empty() && reader.error_count() == 0) {
      reader.error(SourceLocation{file, 0, 0}, "",
                   "empty file: expected a case (casebook: 1, summary, op, "
                   "inputs)");
    } else if (documents.size() > 1) {
      reader.error(documents[1], "",
                   "expected one YAML document; got " +
                       std::to_string(documents.size()));
    } else if (documents.size() == 1) {
      read_case(reader, documents.front(), value, &placeholders);
    }
    loaded.id = value.id;
    if (reader.error_count() == 0) loaded.value = std::move(value);
  } catch (const std::exception& error) {
    // Reading never throws for bad content (every problem is an error at
    // its line), so this is casebook's own fault, never the file's: the
    // case is INTERNAL, not invalid_case.
    internal_failure = std::string("internal error while reading the case: ") +
                       error.what() + "; please report";
  }
  loaded.errors = reader.take_errors();
  model::drop_errors_about_placeholders(&loaded.errors, placeholders);
  if (!internal_failure.empty()) {
    CaseError internal{SourceLocation{file, 0, 0}, "", internal_failure};
    internal.internal = true;
    loaded.errors.push_back(std::move(internal));
  }
  return loaded;
}

LoadedCase load_case_file(const std::filesystem::path& file,
                          const std::filesystem::path& relative_to) {
  std::error_code error;
  const auto status = std::filesystem::status(file, error);
  std::ifstream stream;
  if (std::filesystem::is_regular_file(status)) {
    stream.open(file, std::ios::binary);
  }
  // Reads no more than one byte past the limit: a huge file costs nothing.
  const uint64_t limit = load_limits().max_file_bytes;
  std::string text;
  if (stream.is_open()) {
    text.resize(limit + 1);
    stream.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<size_t>(stream.gcount()));
  }
  if (!stream.is_open() || stream.bad()) {
    LoadedCase loaded;
    loaded.file = file;
    loaded.id = derive_case_id(file, relative_to);
    const char* why = !std::filesystem::exists(status) ? "no such file"
                      : std::filesystem::is_directory(status)
                          ? "cannot read the file: it is a folder"
                          : "cannot read the file";
    loaded.errors.push_back(CaseError{SourceLocation{file, 0, 0}, "", why});
    return loaded;
  }
  if (text.size() > limit) {
    LoadedCase loaded;
    loaded.file = file;
    loaded.id = derive_case_id(file, relative_to);
    const uint64_t size = std::filesystem::file_size(file, error);
    loaded.errors.push_back(too_large(text, error ? text.size() : size, file));
    return loaded;
  }
  return load_case_text(text, file, relative_to);
}

}  // namespace casebook
