#include "compare/value_text.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "casebook/case.h"
#include "casebook/shape_text.h"
#include "tensors/materialise.h"

namespace casebook {

std::string reported_number(double value, int digits) {
  if (std::isnan(value)) return "nan";
  std::ostringstream out;
  out.precision(digits);
  out << value;
  return out.str();
}

std::string reported_element(const at::Tensor& flat, int64_t index,
                             int digits) {
  if (!flat.is_complex()) {
    return reported_number(flat[index].item<double>(), digits);
  }
  const auto value = flat[index].item<c10::complex<double>>();
  const std::string im = reported_number(value.imag(), digits);
  const bool negative = im[0] == '-';
  return reported_number(value.real(), digits) + (negative ? "" : "+") + im +
         "j";
}

std::string reported_dtype(const at::Tensor& tensor) {
  if (auto dtype = to_dtype(tensor.scalar_type())) {
    return std::string(dtype_name(*dtype));
  }
  return std::string(c10::toString(tensor.scalar_type()));
}

std::string reported_outputs(const std::vector<at::Tensor>& outputs,
                             int64_t shown) {
  if (outputs.empty()) return "none";
  constexpr int kDigits = 6;
  std::string text;
  for (const at::Tensor& output : outputs) {
    if (!text.empty()) text += "; ";
    text += reported_dtype(output) + " " + shape_text(output.sizes().vec());
    if (!output.defined() || output.numel() == 0) continue;
    const at::Tensor flat = output.reshape({-1});
    const int64_t count = std::min(flat.numel(), shown);
    for (int64_t i = 0; i < count; ++i) {
      text += (i == 0 ? ": " : ", ") + reported_element(flat, i, kDigits);
    }
    if (flat.numel() > count) text += ", ...";
  }
  return text;
}

}  // namespace casebook
