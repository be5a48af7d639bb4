// A case as `casebook reduce` holds it while it shrinks it: the case, each
// input's values once read, and the dims resized together (runner/reduce.h).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "casebook/case.h"

namespace casebook::reducing {

// Dims of the inputs that are resized together (a batch: the logits' rows
// and the targets): (input index, dim) each, at most one dim of an input.
struct DimGroup {
  std::vector<std::pair<size_t, int64_t>> dims;
  int64_t original_size = 0;
  // For each index the dims keep now, its index in the original case.
  std::vector<int64_t> original;
};

struct ReduceState {
  Case kase;
  // Per input of `kase`: its logical values, read on first use (undefined
  // until then), contiguous.
  std::vector<at::Tensor> values;
  // Per input: its values are no longer the original tensor's.
  std::vector<bool> changed;
  std::vector<DimGroup> groups;
};

// The state of a case as loaded: nothing read yet.
ReduceState initial_state(const Case& kase);

// Input `input`'s logical values (read from its spec once).
const at::Tensor& input_values(ReduceState& state, size_t input);

// Replaces input `input`'s values: its spec becomes `values` (its name and
// layout kept; its dtype the tensor's).
void set_input_values(ReduceState& state, size_t input, at::Tensor values);

// Makes each alias (`same_as`) its target again, spec and values: the
// passes change targets only, and an alias follows (called on every
// candidate before it runs).
void follow_aliases(ReduceState& state);

// Removes the inputs `kept` says not to keep (the dim groups are made
// after).
void keep_inputs(ReduceState& state, const std::vector<bool>& kept);

// The dims resized together, those of more inputs first, then the
// larger: the op's batch dims (its
// neighbour traits) and, across different inputs, dims of the same size
// aligned from the left, then from the right; never two dims of one input in
// one group. `fixed`: inputs whose dims stay (a strided layout that must);
// an alias's are its target's.
std::vector<DimGroup> dim_groups(ReduceState& state,
                                 const std::vector<bool>& fixed);

// `state` with every dim of group `group` keeping only the indices at
// `positions` (into what it keeps now, ascending).
ReduceState with_positions(ReduceState state, size_t group,
                           const std::vector<int64_t>& positions);

// "input [512, 1000], target [512]": each input's shape (its values read).
std::string sizes_text(ReduceState& state);

// "`input` dim 0 and `target` dim 0": the dims of a group, for a person.
std::string dims_text(const Case& kase, const DimGroup& group);

}  // namespace casebook::reducing
