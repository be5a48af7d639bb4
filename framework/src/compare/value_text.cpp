#include "compare/value_text.h"

#include <ATen/ATen.h>

#include <cmath>
#include <sstream>

namespace casebook {

std::string number_text(double value, int digits) {
  if (std::isnan(value)) return "nan";
  std::ostringstream out;
  out.precision(digits);
  out << value;
  return out.str();
}

std::string element_text(const at::Tensor& flat, int64_t index, int digits) {
  if (!flat.is_complex()) {
    return number_text(flat[index].item<double>(), digits);
  }
  const auto value = flat[index].item<c10::complex<double>>();
  const std::string im = number_text(value.imag(), digits);
  const bool negative = im[0] == '-';
  return number_text(value.real(), digits) + (negative ? "" : "+") + im + "j";
}

}  // namespace casebook
