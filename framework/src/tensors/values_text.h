// A tensor's values as the case model holds them, so that the model's one
// writer of values (model::values_text) writes them into a case file: a
// captured input (capture/), an output `casebook show --write-expected`
// writes, and what `show` prints.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>

#include "casebook/case.h"

namespace casebook {

// `name` with the tensor's dtype, its shape (given) and its values in C
// order, exact as the loader keeps them: floating values (float16 and
// bfloat16 too) as doubles, complex ones as re and im in turn, integers and
// bool as int64. `limit` >= 0: only the first `limit` values (for printing
// with that limit). The dtype must be one casebook supports (to_dtype).
TensorSpec values_spec(const std::string& name, const at::Tensor& tensor,
                       int64_t limit = -1);

}  // namespace casebook
