// validate.class_mapping: a label mapping must be a bijection onto the
// `classes` list before anyone shifts every label (subtracts 1 from a
// 1-based numbering). Checked on the host; every problem is named at once.
#include <ATen/ATen.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "casebook/joined.h"
#include "casebook/ops.h"
#include "ops/op_declarations.h"
#include "ops/op_helpers.h"

namespace casebook {
namespace {

// A list-of-strings argument (`classes`, `names`); nullopt when absent.
std::optional<std::vector<std::string>> string_list(const OpCall& call,
                                                    const std::string& name) {
  const auto found = call.args.find(name);
  if (found == call.args.end()) return std::nullopt;
  const ArgValue& value = found->second;
  std::vector<std::string> strings;
  bool ok = value.kind == ArgValue::Kind::kList;
  for (const ArgValue& item : value.list) {
    ok = ok && item.kind == ArgValue::Kind::kString;
    strings.push_back(item.string_value);
  }
  CASEBOOK_CHECK_INPUT(
      ok, call.arg_where(name),
      "argument `" + name + "`: expected a list of names (strings)");
  return strings;
}

std::string backticked(const std::string& name) { return "`" + name + "`"; }

// "positions 1 and 3", "positions 0, 2 and 5".
std::string positions_text(const std::vector<int64_t>& positions) {
  std::string text = positions.size() == 1 ? "position " : "positions ";
  for (size_t i = 0; i < positions.size(); ++i) {
    if (i > 0) text += i + 1 == positions.size() ? " and " : ", ";
    text += std::to_string(positions[i]);
  }
  return text;
}

// Adds a problem for each label (`by_label`: label -> positions) and each
// name (`by_name`) given at more than one position, rejecting those positions.
void repeat_problems(const std::map<int64_t, std::vector<int64_t>>& by_label,
                     const std::map<std::string, std::vector<int64_t>>& by_name,
                     const std::vector<std::string>& names,
                     std::vector<std::string>* problems,
                     std::set<int64_t>* rejected) {
  for (const auto& [label, at] : by_label) {
    if (at.size() < 2) continue;
    const std::string whose =
        joined(at, ", ", [&names](int64_t i) { return backticked(names[i]); });
    rejected->insert(at.begin(), at.end());
    problems->push_back("label " + std::to_string(label) + " is given " +
                        std::to_string(at.size()) + " times (" + whose +
                        " at " + positions_text(at) + ")");
  }
  for (const auto& [name, at] : by_name) {
    if (at.size() < 2) continue;
    for (int64_t i : at) rejected->insert(i);
    problems->push_back(backticked(name) + " is mapped " +
                        std::to_string(at.size()) + " times (at " +
                        positions_text(at) + ")");
  }
}

// Checks the mapping `names[i] -> labels[i]` against `classes` (label
// `base + k` is classes[k]): no label twice, no class without a label, no
// label outside the classes; where the names are given (`named`), each is
// a class, once, and its label is that class's. Returns every problem, and
// the positions of the entries involved in `rejected`.
std::vector<std::string> mapping_problems(
    const std::vector<std::string>& classes,
    const std::vector<std::string>& names, bool named,
    const std::vector<int64_t>& labels, int64_t base,
    std::set<int64_t>* rejected) {
  const int64_t count = static_cast<int64_t>(classes.size());
  std::map<std::string, int64_t> class_index;
  for (int64_t k = 0; k < count; ++k) class_index[classes[k]] = k;
  std::vector<std::string> problems;
  std::map<int64_t, std::vector<int64_t>> by_label;
  std::map<std::string, std::vector<int64_t>> by_name;
  std::vector<bool> covered(classes.size(), false);
  const std::string range =
      "[" + std::to_string(base) + ", " + std::to_string(base + count) + ")";
  for (int64_t i = 0; i < static_cast<int64_t>(labels.size()); ++i) {
    const int64_t label = labels[i];
    const std::string& name = names[i];
    by_label[label].push_back(i);
    by_name[name].push_back(i);
    const auto known = class_index.find(name);
    if (known == class_index.end()) {
      problems.push_back("label " + std::to_string(label) + " at position " +
                         std::to_string(i) + " names " + backticked(name) +
                         ", which is not one of the classes");
      rejected->insert(i);
      continue;
    }
    if (label < base || label >= base + count) {
      problems.push_back("label " + std::to_string(label) + " of " +
                         backticked(name) + " at position " +
                         std::to_string(i) + " is outside " + range +
                         ": no class has it");
      rejected->insert(i);
      continue;
    }
    const int64_t index = label - base;
    covered[index] = true;
    if (named && index != known->second) {
      problems.push_back("label " + std::to_string(label) + " at position " +
                         std::to_string(i) + " maps " + backticked(name) +
                         " to class " + std::to_string(index) + " " +
                         backticked(classes[index]) + ", not to " +
                         backticked(name) + "'s index " +
                         std::to_string(known->second));
      rejected->insert(i);
    }
  }
  repeat_problems(by_label, by_name, names, &problems, rejected);
  for (int64_t k = 0; k < count; ++k) {
    if (covered[k]) continue;
    problems.push_back("class " + std::to_string(k) + " " +
                       backticked(classes[k]) + " has no label (expected " +
                       std::to_string(base + k) + ")");
  }
  return problems;
}

// Inputs: `labels`, a 1-D integer tensor, one label per mapping entry.
// Args: `classes` (the class names, in the order of the model's outputs),
// `names` (each entry's name; default `classes` in order), `base` (the
// first label: 0, or 1 for a 1-based numbering). The output is the labels
// shifted to class indices (labels - base), int64, only once the mapping is
// a bijection onto the classes; else label_mapping naming every problem.
std::vector<at::Tensor> class_mapping(const OpCall& call) {
  const at::Tensor& input = call.input(0);
  const std::vector<std::string> classes =
      string_list(call, "classes").value_or(std::vector<std::string>{});
  if (!call.has_arg("classes")) {
    throw InvalidCaseError(std::string(kClassMappingOp) +
                           ": argument `classes` is required (the class "
                           "names, in the order of the model's outputs)");
  }
  CASEBOOK_CHECK_INPUT(!classes.empty(), call.arg_where("classes"),
                       "argument `classes`: expected at least one name");
  std::set<std::string> seen;
  for (const std::string& name : classes) {
    CASEBOOK_CHECK_INPUT(seen.insert(name).second, call.arg_where("classes"),
                         "argument `classes`: " + backticked(name) +
                             " is listed twice; a class list names each "
                             "class once");
  }
  const int64_t base = call.arg_int("base", 0);
  if (input.dim() != 1 || !at::isIntegralType(input.scalar_type(), false)) {
    throw OpError(Family::kContract,
                  std::string(kClassMappingOp) +
                      ": `labels` must be a 1-D integer tensor, got a " +
                      std::to_string(input.dim()) + "-d " +
                      c10::toString(input.scalar_type()) + " tensor");
  }
  const at::Tensor host = input.to(at::kCPU).to(at::kLong).contiguous();
  const std::vector<int64_t> labels(host.data_ptr<int64_t>(),
                                    host.data_ptr<int64_t>() + host.numel());
  const std::vector<std::string> names =
      string_list(call, "names").value_or(classes);
  if (names.size() != labels.size()) {
    throw OpError(Family::kContract,
                  std::string(kClassMappingOp) + ": " +
                      std::to_string(labels.size()) + " labels for " +
                      std::to_string(names.size()) + " names" +
                      (call.has_arg("names") ? "" : " (`classes`)") +
                      ": one label per name");
  }
  std::set<int64_t> rejected;
  const std::vector<std::string> problems = mapping_problems(
      classes, names, call.has_arg("names"), labels, base, &rejected);
  call.report_count(static_cast<int64_t>(labels.size()),
                    std::vector<int64_t>(rejected.begin(), rejected.end()));
  if (!problems.empty()) {
    std::string text;
    for (const std::string& problem : problems) {
      text += (text.empty() ? "" : "; ") + problem;
    }
    throw OpError(Family::kLabelMapping,
                  "the label mapping is not a bijection onto the " +
                      std::to_string(classes.size()) + " classes: " + text,
                  std::vector<int64_t>(rejected.begin(), rejected.end()));
  }
  return {host - base};
}

}  // namespace

void register_class_mapping_op(OpRegistry& registry) {
  OpDef def =
      make_op(CASEBOOK_OP_SITE, validate_class_mapping_declaration(),
              {"labels"}, {}, {"classes", "names", "base"}, class_mapping);
  def.placement = OpDef::Placement::kHost;
  registry.add(std::move(def));
}

}  // namespace casebook
