// Name suggestions for misspelt op and argument names.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace casebook {

// Levenshtein distance (insertions, deletions, substitutions).
size_t edit_distance(const std::string& a, const std::string& b);

// Up to `count` candidates closest to `name`, best first (ties by name).
std::vector<std::string> closest_names(const std::string& name,
                                       std::vector<std::string> candidates,
                                       size_t count);

// "a, b, c"
std::string join_names(const std::vector<std::string>& names);

struct Case;
struct OpDef;
// check_case_against_op for a registered op: input count, argument names.
std::vector<std::string> check_registered_op(const Case& kase,
                                             const OpDef* def);

}  // namespace casebook
