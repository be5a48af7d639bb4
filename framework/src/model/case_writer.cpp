// Case -> YAML text, flow style per tensor and expectation, in the order of
// docs/case-format.md's tables.
#include "casebook/case_writer.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "casebook/family.h"
#include "casebook/number_text.h"
#include "model/yaml_text.h"

namespace casebook {
namespace {

using model::tensor_fields;
using model::yaml_arg;
using model::yaml_ints;
using model::yaml_key;
using model::yaml_list;
using model::yaml_map;

std::string tolerance(const Tolerance& t) {
  return "{rtol: " + yaml_number(t.rtol) + ", atol: " + yaml_number(t.atol) +
         "}";
}

// `{min: A, max: B}`, the ends written.
std::string bounds(const ValueBounds& b) {
  std::string out;
  if (b.min) out += "min: " + yaml_number(*b.min);
  if (b.max) out += (out.empty() ? "max: " : ", max: ") + yaml_number(*b.max);
  return "{" + out + "}";
}

std::string output(const OutputExpectation& o) {
  std::vector<std::string> fields;
  if (o.values) {
    // The values' own fields carry dtype and shape.
    fields.push_back(tensor_fields(*o.values));
  } else {
    if (o.dtype)
      fields.push_back("dtype: " + std::string(dtype_name(*o.dtype)));
    if (o.shape) fields.push_back("shape: " + yaml_ints(*o.shape));
  }
  if (o.tolerance) fields.push_back("tolerance: " + tolerance(*o.tolerance));
  if (o.equal_nan)
    fields.push_back(*o.equal_nan ? "equal_nan: true" : "equal_nan: false");
  if (o.finite) fields.push_back("finite: true");
  if (o.all_nan) fields.push_back("nan: true");
  if (o.nan_positions) {
    fields.push_back("nan: " + yaml_list(*o.nan_positions, [](const auto& at) {
                       // A flat index is kept as {-1, i}.
                       return at.size() == 2 && at[0] == -1
                                  ? std::to_string(at[1])
                                  : yaml_ints(at);
                     }));
  }
  if (o.min) fields.push_back("min: " + yaml_number(*o.min));
  if (o.max) fields.push_back("max: " + yaml_number(*o.max));
  if (o.mean_bounds) fields.push_back("mean: " + bounds(*o.mean_bounds));
  if (o.std_bounds) fields.push_back("std: " + bounds(*o.std_bounds));
  return yaml_map(fields);
}

std::string outputs_map(const std::vector<OutputExpectation>& outputs) {
  return yaml_map(outputs, [](const OutputExpectation& o) {
    return yaml_key(o.key) + ": " + output(o);
  });
}

std::string when(const std::vector<Condition>& conditions) {
  return yaml_map(conditions, [](const Condition& c) {
    std::string value = double_quoted(c.text);
    if (c.fact == "cpu" || c.text.find(' ') != std::string::npos) {
      std::vector<std::string> words;
      std::istringstream in(c.text);
      for (std::string word; in >> word;) words.push_back(double_quoted(word));
      value = yaml_list(words, [](const std::string& w) { return w; });
    }
    return c.fact + ": " + value;
  });
}

std::string expectation(const Expectation& e) {
  std::vector<std::string> fields;
  switch (e.kind) {
    case Expectation::Kind::kMatch:
      break;
    case Expectation::Kind::kError:
      fields.push_back("error: " + std::string(family_name(e.family)));
      if (e.message) fields.push_back("message: " + double_quoted(*e.message));
      if (e.positions)
        fields.push_back("positions: " + yaml_ints(*e.positions));
      break;
    case Expectation::Kind::kXfail:
      fields.push_back("xfail: " + double_quoted(e.reason));
      if (e.family != Family::kNone) {
        fields.push_back("family: " + std::string(family_name(e.family)));
      }
      break;
    case Expectation::Kind::kSkip:
      fields.push_back("skip: " + double_quoted(e.reason));
      break;
  }
  // With match (alone it is one), error or xfail.
  if (e.processed)
    fields.push_back("processed: " + std::to_string(*e.processed));
  if (!e.outputs.empty())
    fields.push_back("outputs: " + outputs_map(e.outputs));
  if (!e.when.empty()) fields.push_back("when: " + when(e.when));
  if (fields.empty()) return "match";
  return yaml_map(fields);
}

// `{name: value, ...}`: a case's or a step's `args`.
std::string args_map(const std::map<std::string, ArgValue>& args) {
  return yaml_map(args, [](const auto& arg) {
    return yaml_key(arg.first) + ": " + yaml_arg(arg.second);
  });
}

void write_args(std::ostream& out,
                const std::map<std::string, ArgValue>& args) {
  if (!args.empty()) out << "args: " << args_map(args) << "\n";
}

// A step's `inputs` as the reader keeps them (model/steps_reader.cpp):
// `argument: source`, and a list's items as `argument[k]` (its `null`s are
// not kept, so a position without an item is written `null`).
std::string step_inputs_map(const std::vector<StepInput>& inputs) {
  struct Written {
    std::string name;
    bool list = false;
    std::vector<std::string> items;
  };
  std::vector<Written> written;
  for (const StepInput& input : inputs) {
    const size_t open = input.argument.find('[');
    const std::string name = input.argument.substr(0, open);
    auto entry =
        std::find_if(written.begin(), written.end(),
                     [&name](const Written& w) { return w.name == name; });
    if (entry == written.end()) {
      entry = written.insert(written.end(), Written{name});
    }
    const size_t at = open == std::string::npos
                          ? 0
                          : std::stoul(input.argument.substr(open + 1));
    entry->list = open != std::string::npos;
    if (entry->items.size() <= at) entry->items.resize(at + 1, "null");
    entry->items[at] = double_quoted(input.source);
  }
  return yaml_map(written, [](const Written& w) {
    return yaml_key(w.name) + ": " +
           (w.list ? yaml_list(w.items,
                               [](const std::string& item) { return item; })
                   : w.items.front());
  });
}

void write_steps(std::ostream& out, const std::vector<Step>& steps) {
  out << "steps:\n";
  for (const Step& step : steps) {
    out << "  - ";
    if (step.named) out << "name: " << double_quoted(step.name) << "\n    ";
    out << "op: " << step.op << "\n";
    if (!step.args.empty()) out << "    args: " << args_map(step.args) << "\n";
    out << "    inputs: " << step_inputs_map(step.inputs) << "\n";
  }
}

void write_inputs(std::ostream& out, const std::vector<TensorSpec>& inputs) {
  if (inputs.empty()) {  // an op of arguments only (`aten::zeros`)
    out << "inputs: {}\n";
    return;
  }
  out << "inputs:\n";
  for (const TensorSpec& input : inputs) {
    out << "  " << yaml_key(input.name) << ": {" << tensor_fields(input)
        << "}\n";
  }
}

void write_reference(std::ostream& out, const Case& kase) {
  switch (kase.reference) {
    case Case::Reference::kCpu:
      break;
    case Case::Reference::kCpu64:
      out << "reference: cpu64\n";
      break;
    case Case::Reference::kTorch:
      out << "reference: torch\n";
      break;
    case Case::Reference::kNone:
      out << "reference: none\n";
      break;
  }
  if (kase.reference_keeps_layout) out << "reference_layout: kept\n";
}

void write_tolerance(std::ostream& out, const Case& kase) {
  if (!kase.tolerance && !kase.equal_nan) return;
  out << "tolerance: {";
  if (kase.tolerance) {
    out << "rtol: " << yaml_number(kase.tolerance->rtol)
        << ", atol: " << yaml_number(kase.tolerance->atol)
        << (kase.equal_nan ? ", " : "");
  }
  if (kase.equal_nan) out << "equal_nan: true";
  out << "}\n";
}

// `repeat`, `deterministic` and `timeout`, where not their defaults.
void write_runs(std::ostream& out, const Case& kase) {
  if (kase.repeat != 1) out << "repeat: " << kase.repeat << "\n";
  if (kase.deterministic == Case::Determinism::kBitwise) {
    out << "deterministic: bitwise\n";
  } else if (kase.deterministic == Case::Determinism::kTolerance) {
    out << "deterministic: tolerance\n";
  }
  if (kase.timeout_seconds != 60.0) {
    out << "timeout: " << yaml_number(kase.timeout_seconds) << "\n";
  }
}

void write_grad(std::ostream& out, const GradSpec& grad) {
  out << "grad:\n  wrt: " << yaml_list(grad.wrt, [](const std::string& w) {
    return double_quoted(w);
  }) << "\n";
  if (!grad.grad_outputs.empty()) {
    out << "  grad_outputs:\n";
    for (const TensorSpec& fed : grad.grad_outputs) {
      out << "    " << yaml_key(fed.name) << ": {" << tensor_fields(fed)
          << "}\n";
    }
  }
  if (grad.finite_differences) out << "  check: finite_differences\n";
}

// One rule's written parameters, `{key: value, ...}` (`{}`: its defaults),
// in the order of docs/case-format.md's table.
std::string neighbor_parameters(const NeighborRule& rule) {
  std::vector<std::string> fields;
  auto number = [&fields](const char* key, const std::optional<int64_t>& n) {
    if (n) fields.push_back(std::string(key) + ": " + std::to_string(*n));
  };
  if (!rule.input.empty()) fields.push_back("input: " + yaml_key(rule.input));
  number("classes", rule.classes);
  if (rule.ignore_index_given) {
    fields.push_back("ignore_index: " +
                     (rule.ignore_index ? std::to_string(*rule.ignore_index)
                                        : std::string("null")));
  }
  if (!rule.errors.empty()) {
    fields.push_back("errors: " + yaml_map(rule.errors, [](const auto& error) {
                       return std::string(backend_name(error.first)) + ": " +
                              std::string(family_name(error.second));
                     }));
  }
  number("dataset_size", rule.dataset_size);
  number("batch_size", rule.batch_size);
  number("long", rule.long_length);
  if (rule.empty)
    fields.push_back(*rule.empty ? "empty: true" : "empty: false");
  if (!rule.blocks.empty())
    fields.push_back("blocks: " + yaml_ints(rule.blocks));
  if (!rule.along.empty()) {
    fields.push_back("along: " + yaml_map(rule.along, [](const auto& along) {
                       return yaml_key(along.first) + ": " +
                              std::to_string(along.second);
                     }));
  }
  auto names = [](const std::vector<std::string>& items) {
    return yaml_list(items, [](const std::string& n) { return yaml_key(n); });
  };
  if (!rule.layouts.empty())
    fields.push_back("layouts: " + names(rule.layouts));
  if (!rule.inputs.empty()) fields.push_back("inputs: " + names(rule.inputs));
  if (!rule.dtypes.empty()) {
    fields.push_back("dtypes: " + yaml_list(rule.dtypes, [](DType d) {
                       return std::string(dtype_name(d));
                     }));
  }
  if (rule.reference_cpu64) fields.push_back("reference: cpu64");
  return yaml_map(fields);
}

void write_neighbors(std::ostream& out,
                     const std::vector<NeighborRule>& rules) {
  if (rules.empty()) return;
  out << "neighbors:\n";
  for (const NeighborRule& rule : rules) {
    out << "  " << rule.name << ": " << neighbor_parameters(rule) << "\n";
  }
}

// An origin value: an integer plain, anything else double-quoted.
std::string origin_value(const std::string& text) {
  const bool integer =
      !text.empty() && text.size() < 19 &&
      text.find_first_not_of("0123456789") == std::string::npos;
  return integer ? text : double_quoted(text);
}

}  // namespace

std::string backends_to_yaml(const std::vector<Backend>& backends) {
  if (backends == built_in_backends()) return "";
  return "backends: " +
         yaml_list(backends,
                   [](Backend b) { return std::string(backend_name(b)); }) +
         "\n";
}

std::string expect_to_yaml(
    const std::map<Backend, std::vector<Expectation>>& entries) {
  std::string text;
  for (const auto& [backend, list] : entries) {
    text += "  " + std::string(backend_name(backend)) + ": ";
    if (list.size() == 1 && list[0].when.empty()) {
      text += expectation(list[0]) + "\n";
      continue;
    }
    text += '\n';
    for (const Expectation& entry : list) {
      text += "    - " + expectation(entry) + "\n";
    }
  }
  return text.empty() ? "" : "expect:\n" + text;
}

std::string outputs_to_yaml(const std::vector<OutputExpectation>& outputs) {
  std::string text;
  for (const OutputExpectation& o : outputs) {
    text += "  " + yaml_key(o.key) + ": " + output(o) + "\n";
  }
  return text.empty() ? "" : "outputs:\n" + text;
}

std::string origin_to_yaml(const Origin& origin) {
  // Top-level keys in the order first seen; `versions.*` and `data.*`
  // gathered under theirs, wherever they stand in the list.
  std::vector<std::string> tops;
  for (const auto& entry : origin.entries) {
    const std::string top = entry.first.substr(0, entry.first.find('.'));
    if (std::find(tops.begin(), tops.end(), top) == tops.end()) {
      tops.push_back(top);
    }
  }
  std::string text;
  for (const std::string& top : tops) {
    std::string group;
    for (const auto& [key, value] : origin.entries) {
      if (key == top) text += "  " + key + ": " + origin_value(value) + "\n";
      if (key.rfind(top + ".", 0) == 0) {
        group += "    " + key.substr(top.size() + 1) + ": " +
                 origin_value(value) + "\n";
      }
    }
    if (!group.empty()) text += "  " + top + ":\n" + group;
  }
  return text.empty() ? "" : "origin:\n" + text;
}

std::string case_to_yaml(const Case& kase) {
  std::ostringstream out;
  out << "casebook: 1\n";
  if (kase.id_written) out << "id: " << double_quoted(kase.id) << "\n";
  out << "summary: " << double_quoted(kase.summary) << "\n";
  if (kase.steps.empty()) {
    out << "op: " << kase.op << "\n";
  } else {
    write_steps(out, kase.steps);
  }
  write_args(out, kase.args);
  write_inputs(out, kase.inputs);
  out << backends_to_yaml(kase.backends);
  write_reference(out, kase);
  write_tolerance(out, kase);
  out << expect_to_yaml(kase.expect_entries);
  out << outputs_to_yaml(kase.outputs);
  write_runs(out, kase);
  if (kase.grad) write_grad(out, *kase.grad);
  write_neighbors(out, kase.neighbors);
  out << origin_to_yaml(kase.origin);
  return out.str();
}

}  // namespace casebook
