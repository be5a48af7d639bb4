// check_case_against_op: what can be told about a case from its op's
// signature alone, before anything runs.
#include <algorithm>
#include <sstream>

#include "casebook/loader.h"
#include "casebook/ops.h"
#include "ops/names.h"

namespace casebook {
namespace {

// "input, target[, weight]"
std::string signature(const OpDef& def) {
  std::string text = join_names(def.inputs);
  for (const std::string& optional : def.optional_inputs) {
    text += (text.empty() ? "[" : "[, ") + optional + "]";
  }
  return text;
}

std::string given_names(const Case& kase) {
  std::vector<std::string> names;
  for (const TensorSpec& spec : kase.inputs) names.push_back(spec.name);
  return names.empty() ? "none" : join_names(names);
}

// The registered ops that report `what`, for the error that names them.
std::string ops_reporting(const OpRegistry& registry, bool processed) {
  std::vector<std::string> names;
  for (const std::string& name : registry.names()) {
    const OpDef* def = registry.find(name);
    if (processed ? def->reports_processed : def->reports_positions) {
      names.push_back(name);
    }
  }
  return names.empty() ? "none" : join_names(names);
}

// `processed` and `positions` ask the op for what only some ops report
// (OpDef::reports_processed, reports_positions): a case may expect only
// what its op reports, else the expectation could never be met.
void check_counts(const Case& kase, const OpDef& def,
                  std::vector<std::string>* problems) {
  for (const auto& [backend, entries] : kase.expect_entries) {
    for (const Expectation& expect : entries) {
      if (expect.processed && !def.reports_processed) {
        problems->push_back(
            format_location(expect.processed_where) + ": `" + kase.op +
            "` does not count the entries it processes, so `processed` "
            "cannot be checked (ops that do: " +
            ops_reporting(default_registry(), true) + ")");
      }
      if (expect.positions && !def.reports_positions) {
        problems->push_back(
            format_location(expect.positions_where) + ": `" + kase.op +
            "` reports no rejected positions, so `positions` cannot be "
            "checked (ops that do: " +
            ops_reporting(default_registry(), false) + ")");
      }
    }
  }
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
        "`'s argument `" + name + "`: expected one of " + join_names(words) +
        "; got `" + word + "`" +
        (nearest.empty() ? "" : "; did you mean `" + nearest + "`?"));
  }
}

}  // namespace

std::vector<std::string> check_case_against_op(const Case& kase,
                                               const OpRegistry& registry) {
  return resolve_op(kase, registry).problems;
}

std::vector<std::string> check_registered_op(const Case& kase,
                                             const OpDef* def) {
  std::vector<std::string> problems;
  const size_t required = def->inputs.size();
  const size_t most = required + def->optional_inputs.size();
  const size_t given = kase.inputs.size();
  if (given < required || given > most) {
    const SourceLocation& where =
        given > most ? kase.inputs[most].where : kase.op_where;
    const std::string count =
        required == most
            ? std::to_string(required)
            : std::to_string(required) + " to " + std::to_string(most);
    problems.push_back(format_location(where) + ": `" + kase.op + "` takes " +
                       count + " inputs (" + signature(*def) +
                       "), the case gives " + std::to_string(given) + " (" +
                       given_names(kase) + ")");
  }
  for (const auto& [name, value] : kase.args) {
    bool known = false;
    for (const std::string& accepted : def->args) known |= accepted == name;
    if (known) continue;
    std::string message = format_location(value.where) + ": `" + kase.op +
                          "` has no argument `" + name + "`";
    if (def->args.empty()) {
      message += "; it takes none";
    } else {
      const std::string nearest = nearest_name(name, def->args);
      if (!nearest.empty()) message += "; did you mean `" + nearest + "`?";
      message += " (it takes " + join_names(def->args) + ")";
    }
    problems.push_back(message);
  }
  check_arg_words(kase, *def, &problems);
  check_counts(kase, *def, &problems);
  return problems;
}

}  // namespace casebook
