// Neighbouring cases: the rules by name, and the two ways they are asked
// (the case's own `neighbors`, or every rule for `casebook neighbors`).
#include <cstdio>
#include <cstdlib>

#include "casebook/joined.h"
#include "model/neighbor_support.h"
#include "model/yaml_reader.h"
#include "model/yaml_text.h"

namespace casebook {
namespace model {
namespace {

using RuleFunction = RuleResult (*)(const Case&, const NeighborRule&);

struct RuleEntry {
  const char* name;
  RuleFunction apply;
};

const std::vector<RuleEntry>& rules() {
  static const std::vector<RuleEntry> table{
      {"label_limits", &label_limits_rule},
      {"last_batch", &last_batch_rule},
      {"lengths", &lengths_rule},
      {"block_boundaries", &block_boundaries_rule},
      {"layouts", &layouts_rule},
      {"dtypes", &dtypes_rule},
  };
  return table;
}

// A tensor's text but for its `same_as`: what a rule may change of it.
std::string text_of(TensorSpec spec) {
  spec.same_as.clear();
  return tensor_fields(spec);
}

// Makes the aliases of `made` (a neighbour of `base`) follow their targets:
// a target the rule changed takes its aliases along. Why not, where the rule
// changed an alias apart from its target (named in `along` or `inputs`, or
// the labels it rewrites); empty otherwise.
std::string follow_targets(const Case& base, Case& made) {
  for (size_t i = 0; i < made.inputs.size() && i < base.inputs.size(); ++i) {
    const std::optional<size_t> target = alias_target(made.inputs, i);
    if (!target) continue;
    const TensorSpec& alias = made.inputs[i];
    const std::string now = text_of(alias);
    if (now != text_of(base.inputs[i]) &&
        now != text_of(made.inputs[*target])) {
      return "input `" + alias.name + "` is input `" + alias.same_as +
             "` itself (`same_as`), and the rule would change it apart from "
             "`" +
             alias.same_as + "`: name `" + alias.same_as + "` (`" + alias.name +
             "` follows it)";
    }
  }
  follow_aliases(made.inputs);
  return "";
}

void apply(const Case& base, const NeighborRule& rule,
           NeighborExpansion* expansion) {
  for (const RuleEntry& entry : rules()) {
    if (rule.name != entry.name) continue;
    RuleResult result = entry.apply(base, rule);
    for (Neighbor& neighbor : result.made) {
      if (!result.error.empty()) break;
      result.error = follow_targets(base, neighbor.value);
    }
    if (!result.error.empty()) {
      expansion->errors.push_back(
          CaseError{rule.where, "neighbors." + rule.name,
                    "`" + rule.name + "` does not apply: " + result.error});
      return;
    }
    for (Neighbor& neighbor : result.made) {
      expansion->neighbors.push_back(std::move(neighbor));
    }
    return;
  }
  expansion->errors.push_back(CaseError{rule.where, "neighbors." + rule.name,
                                        "unknown rule `" + rule.name +
                                            "`; the rules are " +
                                            joined(neighbor_rule_names())});
}

}  // namespace

RuleResult rule_error(std::string why) {
  RuleResult result;
  result.error = std::move(why);
  return result;
}

Neighbor start_neighbor(const Case& base, const std::string& rule,
                        const std::string& param, const std::string& change) {
  Neighbor neighbor;
  neighbor.rule = rule;
  neighbor.param = param;
  neighbor.id = base.id + "~" + rule + "[" + param + "]";
  neighbor.change = change;
  neighbor.value = base;
  neighbor.value.id = neighbor.id;
  neighbor.value.neighbors.clear();
  for (auto& [backend, entries] : neighbor.value.expect_entries) {
    for (Expectation& entry : entries) entry.processed.reset();
  }
  neighbor.value.summary = base.summary + " (neighbour " + rule + "[" + param +
                           "]" + (change.empty() ? "" : ": " + change) + ")";
  return neighbor;
}

TensorSpec* find_input(Case& kase, const std::string& name) {
  for (TensorSpec& input : kase.inputs) {
    if (input.name == name) return &input;
  }
  return nullptr;
}

const TensorSpec* find_input(const Case& kase, const std::string& name) {
  for (const TensorSpec& input : kase.inputs) {
    if (input.name == name) return &input;
  }
  return nullptr;
}

std::string input_names(const Case& kase) {
  std::vector<std::string> names;
  names.reserve(kase.inputs.size());
  for (const TensorSpec& input : kase.inputs) names.push_back(input.name);
  return joined(names);
}

}  // namespace model

const std::vector<std::string>& neighbor_rule_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const model::RuleEntry& entry : model::rules()) {
      out.push_back(entry.name);
    }
    return out;
  }();
  return names;
}

NeighborExpansion declared_neighbors(const Case& base) {
  NeighborExpansion expansion;
  for (const NeighborRule& rule : base.neighbors) {
    model::apply(base, rule, &expansion);
  }
  return expansion;
}

NeighborExpansion applicable_neighbors(const Case& base) {
  NeighborExpansion expansion;
  for (const std::string& name : neighbor_rule_names()) {
    NeighborRule rule;
    rule.name = name;
    rule.where = base.op_where;
    for (const NeighborRule& declared : base.neighbors) {
      if (declared.name == name) rule = declared;
    }
    model::apply(base, rule, &expansion);
  }
  return expansion;
}

}  // namespace casebook
