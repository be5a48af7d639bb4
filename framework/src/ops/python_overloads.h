// `torch.<name>` as Python's torch.<name> calls it: for the functions whose
// Python code calls one overload of the operator, not the first one whose
// schema would accept the case. torch.stft pads the signal by n_fft / 2
// (center=True) before it calls ATen, which is aten::stft.center; the
// default overload aten::stft has no `center` and gives fewer frames.
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>

#include <string>
#include <vector>

namespace casebook::aten {

// Reorders `overloads` of `torch.<name>` (`case_op`) so that the overload
// Python's function calls is tried first; the others keep their order
// (a case that names an argument only they take still finds them). Ops
// outside the table, and `aten::` names, are left as they are.
void prefer_python_overload(const std::string& case_op,
                            std::vector<c10::OperatorHandle>* overloads);

}  // namespace casebook::aten
