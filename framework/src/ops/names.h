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
class OpRegistry;
struct ResolvedOp;

// The case's inputs an op reads by their position: their names neither the
// op's nor ones the table of training names gives it (ops/input_reading.h).
// Version 1's reading of a file; a capture refuses them, its tensors coming
// in any order. `names_taken` lists what the op takes by name.
struct PositionalInputs {
  std::vector<std::string> names;
  std::string names_taken;
};

// resolve_op's reading, with the inputs it read by position (also where it
// refuses the case for what they hold, a swap); none for a case whose
// inputs the op does not take, or a case of `steps`.
PositionalInputs inputs_read_by_position(const Case& kase,
                                         const OpRegistry& registry);

// resolve_op for a registered op (check.cpp): its input count, its inputs
// bound by name or position (ops/input_reading.h, the rule of every op),
// its argument names. A case whose inputs stand in another order than the
// op's gets a copy of the op that reorders them (`generated`). Whether the
// op reports what the case expects (`processed`, `positions`) is its
// traits', asked when the case is loaded.
ResolvedOp resolve_registered_op(const Case& kase, const OpDef& def,
                                 PositionalInputs* positional);

}  // namespace casebook
