// A tensor's values as case-file text (tensors/values_text.h).
#include "tensors/values_text.h"

#include <ATen/ATen.h>

#include <sstream>
#include <vector>

#include "casebook/number_text.h"

namespace casebook {
namespace {

// The elements in C order, widened to what holds each exactly: bool, int64,
// float64, or float64 pairs for complex values.
struct WidenedValues {
  at::Tensor values;
  at::ScalarType type;
};

WidenedValues widened_values(const at::Tensor& tensor) {
  const at::ScalarType type = tensor.scalar_type();
  const at::Tensor flat = tensor.contiguous().reshape({-1});
  if (type == at::kBool) return {flat, type};
  if (at::isComplexType(type)) {
    return {at::view_as_real(flat.to(at::kComplexDouble)).contiguous(), type};
  }
  if (at::isIntegralType(type, /*includeBool=*/false)) {
    return {flat.to(at::kLong), type};
  }
  return {flat.to(at::kDouble), type};
}

std::string widened_value_text(const WidenedValues& flat, int64_t at) {
  if (flat.type == at::kBool) {
    return flat.values.data_ptr<bool>()[at] ? "true" : "false";
  }
  if (at::isComplexType(flat.type)) {
    const double* pair = flat.values.data_ptr<double>() + 2 * at;
    return "[" + yaml_number(pair[0]) + ", " + yaml_number(pair[1]) + "]";
  }
  if (flat.values.scalar_type() == at::kLong) {
    return std::to_string(flat.values.data_ptr<int64_t>()[at]);
  }
  return yaml_number(flat.values.data_ptr<double>()[at]);
}

void write_nested_values(std::ostream& out, const WidenedValues& flat,
                         at::IntArrayRef sizes, size_t dim, int64_t* at,
                         int64_t limit) {
  if (dim == sizes.size()) {
    out << (limit < 0 || *at < limit ? widened_value_text(flat, *at) : "...");
    ++*at;
    return;
  }
  out << "[";
  for (int64_t i = 0; i < sizes[dim]; ++i) {
    if (i > 0) out << ", ";
    if (limit >= 0 && *at >= limit) {
      out << "...";
      break;
    }
    write_nested_values(out, flat, sizes, dim + 1, at, limit);
  }
  out << "]";
}

}  // namespace

std::string yaml_values(const at::Tensor& tensor, int64_t limit) {
  const WidenedValues flat = widened_values(tensor);
  std::ostringstream out;
  int64_t at = 0;
  write_nested_values(out, flat, tensor.sizes(), 0, &at, limit);
  return out.str();
}

}  // namespace casebook
