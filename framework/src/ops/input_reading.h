// How a case's input names meet an op's arguments: by name, or by position
// as format version 1 says ("inputs: a map, in the op's argument order").
// Files written before the dispatcher path named their tensors for what they
// are (`x`, `logits`, `idx`); they keep their meaning. One rule for every
// op: an operator's schema (aten_op.cpp) and casebook's registered ops
// (check.cpp) both read their inputs here, so that `target` written first
// means `target` on every path.
#pragma once

#include <ATen/core/function_schema.h>

#include <optional>
#include <string>
#include <vector>

namespace casebook::aten {

// What a case's inputs are read against.
struct InputSlots {
  std::string what;                     // "the schema", "`torch.nll_loss`"
  std::vector<std::string> names;       // every argument an input may name
  std::vector<std::string> positional;  // what inputs by position fill
};

// A schema's slots: every argument's name; positionally, Python's positional
// Tensor and Tensor? parameters in order (`out`, keyword-only, is not one).
InputSlots schema_slots(const c10::FunctionSchema& schema);

// The argument each case input stands for, in the case's order.
//
// An input whose name is one of `slots.names` (`input` also names `self`;
// `tensors[0]` an element of the Tensor[] `tensors`), or a name the table
// below gives it, is that argument (two inputs for one argument: refused).
// Every other input is read by its position in `inputs`: `slots.positional`, in
// order, as Python's positional arguments fill them. The two readings may
// mix only where they agree, every named input standing at its own
// argument's position; otherwise the mix is ambiguous and nullopt is
// returned with `why` naming both readings (`culprit`: the input at fault).
// nullopt too for an input that has neither a name of the op nor a tensor
// argument at its position. Where a refused input's name is near an
// argument's (`targt`), `why` ends with a did-you-mean. Names of the op are
// returned unchanged (`input` stays `input`), positional inputs get the
// argument's own name.
std::optional<std::vector<std::string>> read_input_names(
    const InputSlots& slots, const std::vector<std::string>& input_names,
    std::string* why, std::string* culprit);

// An input name of training code (Hugging Face's `labels`, `logits`) that
// the op does not have is bound by the table of docs/case-format.md ("Names
// training code uses"), on the ops it applies to, as the argument's own
// name would be; read_input_names returns the argument it stands for.

// The inputs read by position: their names neither the op's nor the table's.
std::vector<std::string> read_by_position(
    const InputSlots& slots, const std::vector<std::string>& input_names);

// What a refusal lists: "input, target, weight; for `input` also logits, ...".
std::string names_taken(const InputSlots& slots);

// The same, against a schema (schema_slots).
std::optional<std::vector<std::string>> read_input_names(
    const c10::FunctionSchema& schema,
    const std::vector<std::string>& input_names, std::string* why,
    std::string* culprit);

}  // namespace casebook::aten
