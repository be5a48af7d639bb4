// `steps`: a case of several calls (docs/case-format.md, "Steps"). Each step
// names its op, its inputs (the case's tensors or earlier steps' outputs, by
// name) and its args. Only earlier steps may be read, so a sequence has no
// cycle by construction; a step that reads itself or a later one is told so.
// The ops' schemas are not known here (no LibTorch): whether a step's
// arguments bind is the op's to say when the case is planned.
#include <algorithm>
#include <cctype>

#include "casebook/joined.h"
#include "casebook/loader.h"
#include "model/sections.h"

namespace casebook::model {
namespace {

const std::vector<std::string> kStepKeys{"name", "op", "inputs", "args"};

// "logp.1" -> ("logp", "1"); "x" -> ("x", "").
std::pair<std::string, std::string> split_source(const std::string& source) {
  const size_t dot = source.find('.');
  if (dot == std::string::npos) return {source, ""};
  return {source.substr(0, dot), source.substr(dot + 1)};
}

bool is_plain_name(const std::string& name) {
  if (name.empty()) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  });
}

struct Known {
  std::vector<std::string> inputs;  // the case's tensors
  std::vector<std::string> steps;   // every step's name, in order
};

// Checks that `source`, read by step `index`, names a case input or an
// earlier step.
void check_source(Reader& reader, const SourceLocation& where,
                  const std::string& path, const std::string& source,
                  const Known& known, size_t index) {
  if (std::find(known.inputs.begin(), known.inputs.end(), source) !=
      known.inputs.end()) {
    return;
  }
  const auto [head, output] = split_source(source);
  const auto step = std::find(known.steps.begin(), known.steps.end(), head);
  if (step != known.steps.end()) {
    const size_t position = static_cast<size_t>(step - known.steps.begin());
    if (position >= index) {
      reader.error(where, path,
                   "`" + source + "` is " +
                       (position == index ? "this step's own output"
                                          : "the output of step " +
                                                std::to_string(position + 1) +
                                                ", which runs after this one") +
                       ": a step reads the case's inputs and earlier steps' "
                       "outputs (a sequence, no cycle)");
    } else if (source.back() == '.') {
      reader.error(where, path,
                   "expected `" + head + "`, `" + head + ".<index>` or `" +
                       head + ".<return name>`; got `" + source + "`");
    }
    return;
  }
  std::vector<std::string> candidates = known.inputs;
  for (size_t i = 0; i < index && i < known.steps.size(); ++i) {
    candidates.push_back(known.steps[i]);
  }
  std::string message = "`" + source +
                        "` is neither an input of the case nor an earlier "
                        "step; inputs: " +
                        (known.inputs.empty() ? "none" : joined(known.inputs));
  if (index > 0) {
    message += "; earlier steps: " +
               joined(std::vector<std::string>(
                   known.steps.begin(),
                   known.steps.begin() + static_cast<long>(index)));
  }
  const std::string meant = nearest_name(head, candidates);
  if (!meant.empty()) message += "; did you mean `" + meant + "`?";
  reader.error(where, path, message);
}

// One `argument: source` (or `argument: [source, null, ...]`) of a step.
void read_step_input(Reader& reader, const Entry& input,
                     const std::string& path, const Known& known, size_t index,
                     Step& step) {
  auto add = [&](const YAML::Node& node, const std::string& argument,
                 const std::string& at) {
    const Scalar scalar = resolve_scalar(node);
    if (!node.IsScalar() || scalar.kind != Scalar::Kind::kString) {
      reader.error(reader.where(node), at,
                   "expected the name of a case input or of an earlier step "
                   "(a step's name, or `<step>.<index>`); got " +
                       describe(node));
      return;
    }
    StepInput read{argument, scalar.text, reader.where(node)};
    check_source(reader, read.where, at, read.source, known, index);
    step.inputs.push_back(std::move(read));
  };
  if (!input.value.IsSequence()) {
    add(input.value, input.key, path);
    return;
  }
  // A list of tensors (Tensor[]), whose `null`s stand for None in a
  // Tensor?[] (`indices: [null, idx]` is x[:, idx]).
  for (size_t k = 0; k < input.value.size(); ++k) {
    const YAML::Node item = input.value[k];
    const std::string at = path + "[" + std::to_string(k) + "]";
    if (item.IsNull() ||
        (item.IsScalar() && resolve_scalar(item).kind == Scalar::Kind::kNull)) {
      continue;
    }
    add(item, input.key + "[" + std::to_string(k) + "]", at);
  }
}

void read_step(Reader& reader, const Entry& entry, const std::string& path,
               const Known& known, size_t index, Step& step) {
  const auto map = reader.read_map(entry.value, reader.where(entry), path,
                                   kStepKeys, "a step: a map with op, inputs");
  step.where = reader.where(entry);
  if (!map) return;
  const Entry* op = find_entry(*map, "op");
  if (op == nullptr) {
    reader.error(step.where, join_path(path, "op"), "required key missing");
  } else {
    step.op_where = reader.where(*op);
    if (auto text = reader.read_string(*op, join_path(path, "op"))) {
      step.op = *text;
    }
  }
  if (const Entry* args = find_entry(*map, "args")) {
    step.args = read_args(reader, *args, join_path(path, "args"));
  }
  const Entry* inputs = find_entry(*map, "inputs");
  if (inputs == nullptr) {
    reader.error(step.where, join_path(path, "inputs"),
                 "required key missing: what the step reads (`{self: x}`)");
    return;
  }
  const std::string inputs_path = join_path(path, "inputs");
  const auto entries =
      reader.read_map(inputs->value, reader.where(*inputs), inputs_path, {},
                      "a map of the op's arguments to the case inputs or "
                      "earlier steps they read");
  if (!entries) return;
  for (const Entry& input : *entries) {
    read_step_input(reader, input, join_path(inputs_path, input.key), known,
                    index, step);
  }
}

// The names of the steps, read first so that a later step's name is known
// when an earlier one reads it (and told it runs later).
std::vector<std::string> read_names(Reader& reader, const YAML::Node& list,
                                    const std::string& path,
                                    const std::vector<std::string>& inputs,
                                    std::vector<bool>* named) {
  std::vector<std::string> names;
  for (size_t i = 0; i < list.size(); ++i) {
    std::string name = "step" + std::to_string(i + 1);
    bool given = false;
    const YAML::Node node = list[i];
    if (node.IsMap() && node["name"]) {
      const YAML::Node value = node["name"];
      const Scalar scalar = resolve_scalar(value);
      const std::string at = path + "[" + std::to_string(i) + "].name";
      if (!value.IsScalar() || scalar.kind != Scalar::Kind::kString ||
          !is_plain_name(scalar.text)) {
        reader.error(reader.where(value), at,
                     "expected a name of letters, digits and `_`; got " +
                         describe(value));
      } else if (scalar.text == "grad") {
        reader.error(reader.where(value), at,
                     "`grad` names the gradients (`grad.<input>`); give the "
                     "step another name");
      } else if (std::find(names.begin(), names.end(), scalar.text) !=
                 names.end()) {
        reader.error(reader.where(value), at,
                     "`" + scalar.text + "` names an earlier step too");
      } else if (std::find(inputs.begin(), inputs.end(), scalar.text) !=
                 inputs.end()) {
        reader.error(reader.where(value), at,
                     "`" + scalar.text +
                         "` names an input of the case too; a source must "
                         "name one thing");
      } else {
        name = scalar.text;
        given = true;
      }
    }
    names.push_back(name);
    named->push_back(given);
  }
  return names;
}

}  // namespace

void read_steps(Reader& reader, const Entry& entry, Case& out) {
  out.op_where = reader.where(entry);
  if (!entry.value.IsSequence() || entry.value.size() == 0) {
    reader.error(out.op_where, "steps",
                 "expected a list of steps, each a map with op and inputs; "
                 "got " +
                     describe(entry.value));
    return;
  }
  // A bound that keeps a generated file from planning thousands of calls.
  constexpr size_t kMostSteps = 64;
  if (entry.value.size() > kMostSteps) {
    reader.error(
        out.op_where, "steps",
        "expected at most 64 steps; got " + std::to_string(entry.value.size()));
    return;
  }
  Known known;
  for (const TensorSpec& input : out.inputs) known.inputs.push_back(input.name);
  std::vector<bool> named;
  known.steps = read_names(reader, entry.value, "steps", known.inputs, &named);
  for (size_t i = 0; i < entry.value.size(); ++i) {
    Step step;
    step.name = known.steps[i];
    step.named = named[i];
    const YAML::Node node = entry.value[i];
    const Entry item{"steps[" + std::to_string(i) + "]", node, node};
    read_step(reader, item, item.key, known, i, step);
    out.steps.push_back(std::move(step));
  }
  out.op = "steps(" +
           joined(out.steps, ", ", [](const Step& step) { return step.op; }) +
           ")";
  // An input no step reads is a typo or a leftover: either way not the
  // case the file means.
  for (const TensorSpec& input : out.inputs) {
    bool read = false;
    for (const Step& step : out.steps) {
      for (const StepInput& source : step.inputs) {
        read = read || source.source == input.name;
      }
    }
    if (!read) {
      reader.error(input.where, join_path("inputs", input.name),
                   "no step reads the input `" + input.name + "`");
    }
  }
}

void read_step_outputs(Reader& reader, Case& out) {
  if (out.steps.empty()) return;
  std::vector<const OutputExpectation*> entries;
  entries.reserve(out.outputs.size());
  for (const OutputExpectation& output : out.outputs)
    entries.push_back(&output);
  for (const auto& [backend, list] : out.expect_entries) {
    for (const Expectation& expect : list) {
      for (const OutputExpectation& output : expect.outputs) {
        entries.push_back(&output);
      }
    }
  }
  for (const OutputExpectation* output : entries) {
    const auto [head, which] = split_source(output->key);
    if (which.empty() || head == "grad") continue;
    const auto step =
        std::find_if(out.steps.begin(), out.steps.end(),
                     [&head = head](const Step& s) { return s.name == head; });
    if (step == out.steps.end()) continue;  // a return name of the last step
    if (&*step == &out.steps.back()) {
      reader.error(output->where, join_path("outputs", output->key),
                   "`" + head +
                       "` is the last step: its outputs are the case's; "
                       "write `" +
                       which + "`");
      continue;
    }
    const bool seen = std::any_of(
        out.step_outputs.begin(), out.step_outputs.end(),
        [&](const StepInput& s) { return s.source == output->key; });
    if (!seen) {
      out.step_outputs.push_back({output->key, output->key, output->where});
    }
  }
}

}  // namespace casebook::model
