#pragma once
// How a failure writes a number and a tensor's element, for every check of
// compare/: the differences and values of compare.cpp, the properties and
// bounds of expected.cpp.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>

namespace casebook {

// `value` as a failure's text shows it, with `digits` significant digits (0.5,
// 1e-05, inf, -inf). A NaN is `nan` whatever its sign bit: the sign says
// nothing to the reader, and the same op gives -nan or nan by LibTorch version
// and by the CPU's vector unit.
std::string reported_number(double value, int digits);

// flat[index] of a 1-d tensor: 0.5, or 1.5+2j / 1.5-2j / nan+nanj when complex.
std::string reported_element(const at::Tensor& flat, int64_t index, int digits);

// A tensor's dtype as a case file names it (float32), else as LibTorch does.
std::string reported_dtype(const at::Tensor& tensor);

// What a run gave, where a failure says it (an error was expected): each
// output's dtype, shape and first `shown` values, "float32 [3]: 0.5, 1, nan"
// (", ..." when there are more), "; " between outputs; "none" for none.
std::string reported_outputs(const std::vector<at::Tensor>& outputs,
                             int64_t shown);

}  // namespace casebook
