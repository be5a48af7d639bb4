// A tensor's values as a case's tensor (tensors/values_text.h).
#include "tensors/values_text.h"

#include <ATen/ATen.h>

#include <algorithm>

#include "casebook/internal_error.h"
#include "tensors/materialise.h"

namespace casebook {

TensorSpec values_spec(const std::string& name, const at::Tensor& tensor,
                       int64_t limit) {
  const std::optional<DType> dtype = to_dtype(tensor.scalar_type());
  CASEBOOK_ASSERT(dtype, std::string("values_spec of an unsupported dtype ") +
                             c10::toString(tensor.scalar_type()));
  TensorSpec spec;
  spec.name = name;
  spec.dtype = *dtype;
  spec.shape.assign(tensor.sizes().begin(), tensor.sizes().end());
  spec.shape_given = true;
  spec.source = TensorSpec::Source::kValues;
  at::Tensor flat = tensor.reshape({-1});
  if (limit >= 0) flat = flat.narrow(0, 0, std::min(limit, flat.numel()));
  flat = flat.cpu().contiguous();
  if (at::isComplexType(flat.scalar_type())) {
    const at::Tensor parts =
        at::view_as_real(flat.to(at::kComplexDouble)).contiguous();
    spec.float_values.assign(parts.data_ptr<double>(),
                             parts.data_ptr<double>() + parts.numel());
  } else if (at::isFloatingType(flat.scalar_type())) {
    const at::Tensor values = flat.to(at::kDouble).contiguous();
    spec.float_values.assign(values.data_ptr<double>(),
                             values.data_ptr<double>() + values.numel());
  } else {
    const at::Tensor values = flat.to(at::kLong).contiguous();
    spec.int_values.assign(values.data_ptr<int64_t>(),
                           values.data_ptr<int64_t>() + values.numel());
  }
  return spec;
}

}  // namespace casebook
