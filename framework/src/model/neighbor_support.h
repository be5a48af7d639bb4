// Internal: what the neighbour rules share (framework/src/model/neighbor_*).
#pragma once

#include <string>
#include <vector>

#include "casebook/neighbors.h"

namespace casebook::model {

// What one rule made of a case: its neighbours, or why it does not apply.
struct RuleResult {
  std::vector<Neighbor> made;
  std::string error;  // non-empty: the rule does not apply, and why
};
RuleResult rule_error(std::string why);

// A copy of `base` named `<base id>~<rule>[<param>]`, its summary saying
// what changed; expectations still the base's, less their `processed`
// counts (a count is of the base case's inputs exactly).
Neighbor start_neighbor(const Case& base, const std::string& rule,
                        const std::string& param, const std::string& change);

TensorSpec* find_input(Case& kase, const std::string& name);
const TensorSpec* find_input(const Case& kase, const std::string& name);
std::string input_names(const Case& kase);

// The rules, one function each (neighbor_labels.cpp, neighbor_sizes.cpp,
// neighbor_variants.cpp).
RuleResult label_limits_rule(const Case& base, const NeighborRule& rule);
RuleResult last_batch_rule(const Case& base, const NeighborRule& rule);
RuleResult lengths_rule(const Case& base, const NeighborRule& rule);
RuleResult block_boundaries_rule(const Case& base, const NeighborRule& rule);
RuleResult layouts_rule(const Case& base, const NeighborRule& rule);
RuleResult dtypes_rule(const Case& base, const NeighborRule& rule);

// Expected outcomes (neighbor_expect.cpp).
// `backend`'s outcome cannot be derived: its expectation says why.
void cannot_derive(Neighbor& neighbor, Backend backend, const std::string& why);
// The inputs' shapes changed: the base's expectations hold where they do
// not depend on which elements the inputs hold (a match; outputs' values
// and shapes dropped); an expected error or xfail cannot be derived.
void expect_as_resized(Neighbor& neighbor, const Case& base);
// The floating dtype changed: the base's expectations, outputs without
// values, dtype or tolerance, and the new dtype's default tolerance; an
// xfail cannot be derived.
void expect_as_recast(Neighbor& neighbor, const Case& base);
// A backend whose base expects xfail (a known bug) cannot be derived: the
// bug may depend on `what` the rule changed ("its dtype", "its layout").
void expect_known_bugs_unknown(Neighbor& neighbor, const std::string& what);
// A match everywhere the base does not skip; no outputs (the values
// changed).
void expect_match(Neighbor& neighbor, const Case& base);
// "error index_out_of_range", "match", "xfail", "skip".
std::string describe_expectation(const Expectation& expectation);

}  // namespace casebook::model
