#include "ops/python_overloads.h"

#include <algorithm>
#include <map>

namespace casebook::aten {
namespace {

// torch.<name> -> the overload its Python function calls (torch/functional.py
// and torch/_tensor.py of PyTorch 1.13 to 2.x).
const std::map<std::string, std::string>& python_overloads() {
  static const std::map<std::string, std::string> table{
      // stft(input, n_fft, ..., center=True, pad_mode='reflect', ...)
      {"torch.stft", "center"},
  };
  return table;
}

}  // namespace

void prefer_python_overload(const std::string& case_op,
                            std::vector<c10::OperatorHandle>* overloads) {
  const auto found = python_overloads().find(case_op);
  if (found == python_overloads().end()) return;
  std::stable_partition(overloads->begin(), overloads->end(),
                        [&](const c10::OperatorHandle& handle) {
                          return handle.schema().overload_name() ==
                                 found->second;
                        });
}

}  // namespace casebook::aten
