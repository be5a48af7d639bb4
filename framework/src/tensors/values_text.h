// A tensor's values as casebook writes them into a case file (`values:`),
// the one writer of them: a captured input (capture/), an output
// `casebook show --write-expected` writes, and what `show` prints.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>

namespace casebook {

// Flow-style YAML lists nested by the tensor's sizes (a 0-d tensor is its
// one element), exact as the loader reads them back: bool as true/false,
// integers as int64 text (beyond 2^53 too), floating values as yaml_number
// (the shortest text of the same double, `-0.0` keeping its sign), complex
// ones as `[re, im]`. `limit` >= 0: at most that many elements, then `...`
// (for printing: such a text is no case file's).
std::string yaml_values(const at::Tensor& tensor, int64_t limit = -1);

}  // namespace casebook
