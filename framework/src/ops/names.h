// Name suggestions for misspelt op and argument names.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace casebook {

// Suggestions come from nearest_names() (casebook/loader.h): one rule for
// keys, ops and arguments.

struct Case;
struct OpDef;
struct ResolvedOp;
// resolve_op for a registered op (check.cpp): its input count, its inputs
// bound by name or position (ops/input_reading.h, the rule of every op),
// its argument names. A case whose inputs stand in another order than the
// op's gets a copy of the op that reorders them (`generated`). Whether the
// op reports what the case expects (`processed`, `positions`) is its
// traits', asked when the case is loaded.
ResolvedOp resolve_registered_op(const Case& kase, const OpDef& def);

}  // namespace casebook
