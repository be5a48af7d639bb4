// Name suggestions for misspelt op and argument names.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace casebook {

// Suggestions come from nearest_names() (casebook/loader.h): one rule for
// keys, ops and arguments.

// "a, b, c"
std::string join_names(const std::vector<std::string>& names);

struct Case;
struct OpDef;
// check_case_against_op for a registered op: input count, argument names.
std::vector<std::string> check_registered_op(const Case& kase,
                                             const OpDef* def);

}  // namespace casebook
