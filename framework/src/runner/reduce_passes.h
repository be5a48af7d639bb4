// The passes of `casebook reduce` (runner/reduce.h), each on the case kept
// so far (Reduction::best), each keeping only candidates that fail the same
// way and noting what it removed and what it kept, and why.
#pragma once

#include <vector>

#include "casebook/ops.h"
#include "runner/reduce_trial.h"

namespace casebook::reducing {

// Steps the failing step does not need are dropped; a step that reads an
// earlier step's output is tried with that step's input in its place; a
// failing step left alone becomes a one-op case (reduce_steps.cpp).
void reduce_steps(Reduction& r);

// `outputs`, `grad`, `repeat` and an expectation's `positions` and
// `processed`, each dropped where the failure holds without it
// (reduce_extras.cpp).
void reduce_extras(Reduction& r);

// Arguments equal to their defaults (OpDef::arg_defaults) dropped, all at
// once, else one by one (reduce_extras.cpp).
void reduce_args(Reduction& r, const OpRegistry& registry);

// Layouts dropped where the failure holds contiguous; the inputs whose
// strides must stay (their dims are then not resized) (reduce_values.cpp).
std::vector<bool> reduce_layouts(Reduction& r);

// Each group of dims resized together (those of more inputs first, then
// the larger): delta debugging over its indices, then bisection of the
// prefix left, a threshold said; a group left longer than one once more
// after a later group shrank (reduce_dims.cpp).
void reduce_dims(Reduction& r, const std::vector<bool>& fixed);

// Each input's values: all 0, else all 1, else the elements that matter
// kept exact and the others 0 (reduce_values.cpp).
void reduce_values(Reduction& r);

// Whether each float16, bfloat16 or float64 input must keep its dtype (its
// float32 run): said, the dtype kept either way (reduce_values.cpp).
void check_dtypes(Reduction& r);

}  // namespace casebook::reducing
