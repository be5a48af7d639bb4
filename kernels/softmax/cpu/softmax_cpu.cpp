// The CPU reference of softmax (see softmax.h).
#include <cmath>

#include "common/scalar_convert.h"
#include "softmax/softmax.h"
#include "softmax/softmax_args.h"

namespace casebook::kernels {
namespace {

template <typename Element>
void softmax_rows(const CasebookSoftmaxArgs& args) {
  using Storage = typename Element::Storage;
  const auto* input = static_cast<const Storage*>(args.input);
  auto* output = static_cast<Storage*>(args.output);
  for (int64_t row = 0; row < args.rows; ++row) {
    const Storage* in_row = input + row * args.input_stride[0];
    auto at = [&](int64_t col) -> double {
      return Element::load(in_row[col * args.input_stride[1]]);
    };
    double row_max = -INFINITY;
    for (int64_t col = 0; col < args.cols; ++col) {
      const double value = at(col);
      if (std::isnan(value) || value > row_max) row_max = value;
    }
    double total = 0.0;
    for (int64_t col = 0; col < args.cols; ++col)
      total += std::exp(at(col) - row_max);
    for (int64_t col = 0; col < args.cols; ++col) {
      output[row * args.cols + col] = Element::store(
          static_cast<float>(std::exp(at(col) - row_max) / total));
    }
  }
}

}  // namespace

CasebookKernelStatus softmax_cpu(const CasebookSoftmaxArgs& args) {
  const CasebookKernelStatus checked = check_softmax_args(args);
  if (checked.code != CASEBOOK_STATUS_OK) return checked;
  switch (args.type) {
    case CASEBOOK_FLOAT16:
      softmax_rows<Float16Element>(args);
      break;
    case CASEBOOK_BFLOAT16:
      softmax_rows<BFloat16Element>(args);
      break;
    default:
      softmax_rows<Float32Element>(args);
      break;
  }
  return ok_status();
}

}  // namespace casebook::kernels
