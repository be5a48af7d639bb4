#include "compare/value_text.h"

#include <ATen/ATen.h>

#include <cmath>
#include <sstream>

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

}  // namespace casebook
