// check_case_against_op: what can be told about a case from its op's
// signature alone, before anything runs.
#include <algorithm>
#include <sstream>
#include <type_traits>

#include "casebook/joined.h"
#include "casebook/loader.h"
#include "casebook/ops.h"
#include "ops/input_reading.h"
#include "ops/names.h"

namespace casebook {
namespace {

// "input, target[, weight]"
std::string signature(const OpDef& def) {
  std::string text = joined(def.inputs);
  for (const std::string& optional : def.optional_inputs) {
    text += (text.empty() ? "[" : "[, ") + optional + "]";
  }
  return text;
}

std::string given_names(const Case& kase) {
  std::vector<std::string> names;
  names.reserve(kase.inputs.size());
  for (const TensorSpec& spec : kase.inputs) names.push_back(spec.name);
  return names.empty() ? "none" : joined(names);
}

// An argument that takes one of a closed set of words (OpDef::arg_words),
// given another: `reduction: average` is refused at its line, as the op
// would refuse it when it runs.
void check_arg_words(const Case& kase, const OpDef& def,
                     std::vector<std::string>* problems) {
  for (const auto& [name, words] : def.arg_words) {
    const auto given = kase.args.find(name);
    if (given == kase.args.end() ||
        given->second.kind != ArgValue::Kind::kString) {
      continue;  // absent: the default; another kind: the op's own error
    }
    const std::string& word = given->second.string_value;
    if (std::find(words.begin(), words.end(), word) != words.end()) continue;
    const std::string nearest = nearest_name(word, words);
    problems->push_back(
        format_location(given->second.where) + ": `" + kase.op +
        "`'s argument `" + name + "`: expected one of " + joined(words) +
        "; got `" + word + "`" +
        (nearest.empty() ? "" : "; did you mean `" + nearest + "`?"));
  }
}

}  // namespace

std::vector<std::string> check_case_against_op(const Case& kase,
                                               const OpRegistry& registry) {
  return resolve_op(kase, registry).problems;
}

namespace {

// The inputs a registered op reads, in its order: required, then optional.
std::vector<std::string> op_inputs(const OpDef& def) {
  std::vector<std::string> all = def.inputs;
  all.insert(all.end(), def.optional_inputs.begin(), def.optional_inputs.end());
  return all;
}

// The number of inputs the op takes against the case's; empty when fine.
std::string count_problem(const Case& kase, const OpDef& def) {
  const size_t required = def.inputs.size();
  const size_t most = required + def.optional_inputs.size();
  const size_t given = kase.inputs.size();
  if (given >= required && given <= most) return "";
  const SourceLocation& where =
      given > most ? kase.inputs[most].where : kase.op_where;
  const std::string count =
      required == most
          ? std::to_string(required)
          : std::to_string(required) + " to " + std::to_string(most);
  return format_location(where) + ": `" + kase.op + "` takes " + count +
         " inputs (" + signature(def) + "), the case gives " +
         std::to_string(given) + " (" + given_names(kase) + ")";
}

const SourceLocation& input_where(const Case& kase, const std::string& name) {
  for (const TensorSpec& spec : kase.inputs) {
    if (spec.name == name) return spec.where;
  }
  return kase.op_where;
}

std::vector<std::string> case_input_names(const Case& kase) {
  std::vector<std::string> given;
  given.reserve(kase.inputs.size());
  for (const TensorSpec& spec : kase.inputs) given.push_back(spec.name);
  return given;
}

aten::InputSlots op_slots(const Case& kase, const OpDef& def) {
  const std::vector<std::string> all = op_inputs(def);
  return {"`" + kase.op + "`", all, all};
}

// Binds the case's inputs to the op's by name, else by position
// (aten::read_input_names, the rule of every op): `order[p]` is the case
// input the op reads as its input p. Empty when fine, else the problem.
std::string bind_inputs(const Case& kase, const OpDef& def,
                        std::vector<size_t>* order) {
  const std::vector<std::string> all = op_inputs(def);
  const std::vector<std::string> given = case_input_names(kase);
  std::string why;
  std::string culprit;
  const auto read =
      aten::read_input_names(op_slots(kase, def), given, &why, &culprit);
  if (!read) {
    return format_location(input_where(kase, culprit)) + ": `" + kase.op +
           "`: " + why;
  }
  order->assign(given.size(), given.size());
  for (size_t i = 0; i < read->size(); ++i) {
    const auto at = std::find(all.begin(), all.end(), (*read)[i]);
    const auto position = static_cast<size_t>(at - all.begin());
    if (position < order->size()) (*order)[position] = i;
  }
  for (size_t position = 0; position < order->size(); ++position) {
    if ((*order)[position] != given.size()) continue;
    // An input the op reads by position is missing before one it was given.
    return format_location(kase.op_where) + ": `" + kase.op + "` needs its " +
           (position < def.inputs.size() ? "input" : "optional input") + " `" +
           all[position] + "` before the others it was given (it " + "takes " +
           signature(def) + "), the case gives " + given_names(kase);
  }
  return "";
}

void check_args(const Case& kase, const OpDef& def,
                std::vector<std::string>* problems) {
  for (const auto& [name, value] : kase.args) {
    bool known = false;
    for (const std::string& accepted : def.args) known |= accepted == name;
    if (known) continue;
    std::string message = format_location(value.where) + ": `" + kase.op +
                          "` has no argument `" + name + "`";
    if (def.args.empty()) {
      message += "; it takes none";
    } else {
      const std::string nearest = nearest_name(name, def.args);
      if (!nearest.empty()) message += "; did you mean `" + nearest + "`?";
      message += " (it takes " + joined(def.args) + ")";
    }
    problems->push_back(message);
  }
}

// `def` reading the case's inputs in the op's order: the case's order where
// it is the op's, else a copy of `def` whose calls hand the op its inputs
// reordered (OpCall::with_inputs), so that every function of the op (its
// run, its named run, its torch reference) reads input p as the op's p.
ResolvedOp bound_op(const OpDef& def, const std::vector<size_t>& order) {
  ResolvedOp resolved;
  bool in_order = true;
  for (size_t position = 0; position < order.size(); ++position) {
    in_order = in_order && order[position] == position;
  }
  if (in_order) {
    resolved.def = &def;
    return resolved;
  }
  auto bound = std::make_shared<OpDef>(def);
  const std::vector<std::string> all = op_inputs(def);
  bound->input_arguments.resize(order.size());
  for (size_t position = 0; position < order.size(); ++position) {
    bound->input_arguments[order[position]] = all[position];
  }
  auto reorder = [order](const auto& run) {
    using Run = std::decay_t<decltype(run)>;
    if (!run) return Run();
    return Run([order, run](const OpCall& call) {
      std::vector<at::Tensor> placed;
      placed.reserve(order.size());
      for (const size_t index : order) placed.push_back(call.input(index));
      return run(call.with_inputs(placed));
    });
  };
  bound->run = reorder(def.run);
  bound->run_named = reorder(def.run_named);
  bound->torch_reference = reorder(def.torch_reference);
  resolved.def = bound.get();
  resolved.generated = std::move(bound);
  return resolved;
}

}  // namespace

ResolvedOp resolve_registered_op(const Case& kase, const OpDef& def,
                                 PositionalInputs* positional) {
  std::vector<std::string> problems;
  std::vector<size_t> order;
  std::string problem = count_problem(kase, def);
  if (problem.empty()) problem = bind_inputs(kase, def, &order);
  if (!problem.empty()) problems.push_back(std::move(problem));
  check_args(kase, def, &problems);
  check_arg_words(kase, def, &problems);
  if (!problems.empty()) {
    ResolvedOp refused;
    refused.problems = std::move(problems);
    return refused;
  }
  positional->names =
      aten::read_by_position(op_slots(kase, def), case_input_names(kase));
  positional->names_taken = aten::names_taken(op_slots(kase, def));
  return bound_op(def, order);
}

}  // namespace casebook
