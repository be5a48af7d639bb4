// How a case's input names meet an operator's schema: by name, or by
// position as format version 1 says ("inputs: a map, in the op's argument
// order"). Files written before the dispatcher path named their tensors for
// what they are (`x`, `logits`, `idx`); they keep their meaning.
#pragma once

#include <ATen/core/function_schema.h>

#include <optional>
#include <string>
#include <vector>

namespace casebook::aten {

// The schema argument each case input stands for, in the case's order.
//
// An input whose name is an argument of `schema` (`input` also names `self`;
// `tensors[0]` an element of the Tensor[] `tensors`) is that argument. Every
// other input is read by its position in `inputs`: the schema's positional
// (not keyword-only) Tensor and Tensor? arguments, in order, as Python's
// positional arguments fill them. The two readings may mix only where they
// agree, every named input standing at its own argument's position;
// otherwise the mix is ambiguous and nullopt is returned with `why` naming
// both readings (`culprit`: the input at fault). nullopt too for an input
// that has neither a name of the schema nor a tensor argument at its
// position. Names of the schema are returned unchanged (`input` stays
// `input`), positional inputs get the argument's own name.
std::optional<std::vector<std::string>> read_input_names(
    const c10::FunctionSchema& schema,
    const std::vector<std::string>& input_names, std::string* why,
    std::string* culprit);

}  // namespace casebook::aten
