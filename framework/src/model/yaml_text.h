// Internal: the flow-style YAML text of values, arguments and tensors, as
// case_to_yaml (model/case_writer.cpp) writes them into a case file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "casebook/case.h"
#include "casebook/joined.h"
#include "casebook/quoted.h"

namespace casebook::model {

// A key as written: plain where it is a plain word or index ("0",
// "grad.input"), else quoted (a quoted "0" would be a name, not an index).
std::string yaml_key(const std::string& text);

// `[a, b, c]`: each item's text by `each`.
template <typename T, typename F>
std::string yaml_list(const std::vector<T>& items, F each) {
  return "[" + joined(items, ", ", each) + "]";
}

// `{a: 1, b: 2}`: each entry's `key: value` text by `each`; fields as
// written.
template <typename Items, typename F>
std::string yaml_map(const Items& items, F each) {
  return "{" + joined(items, ", ", each) + "}";
}
inline std::string yaml_map(const std::vector<std::string>& fields) {
  return "{" + joined(fields) + "}";
}

std::string yaml_ints(const std::vector<int64_t>& values);

// An `args` value as a case file writes it, the one text for it (case files,
// a report's arguments): a string plain where the loader reads that word
// back as the same string (`mean`, `float32`), else double-quoted (`"true"`,
// `"1"`, `"a b"`); a float as yaml_float (a float, never an integer).
std::string yaml_arg(const ArgValue& value);

// A tensor's `values` as every case file casebook writes has them (the one
// writer of them: case_to_yaml, a captured input, an output `show
// --write-expected` writes, what `show` prints): lists nested by its shape
// (a 0-d tensor's one element in a list; a tensor of no element `[]`, its
// shape written beside it by tensor_fields), each element exact as the loader
// reads it back: bool as true/false, integers as int64 text (beyond 2^53
// too), floating values as yaml_number (the shortest text of the same
// double, `-0.0` keeping its sign), complex ones as `[re, im]`. `limit` >=
// 0: at most that many elements, then `...` (printing: no case file's text;
// the spec needs to hold only those).
std::string values_text(const TensorSpec& spec, int64_t limit = -1);

// A tensor's keys, without the braces: `dtype: float32, shape: [2], ...`;
// an alias's `same_as: NAME` alone.
std::string tensor_fields(const TensorSpec& spec);

}  // namespace casebook::model
