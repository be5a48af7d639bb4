// The CPU reference of sum (see sum.h).
#include "common/scalar_convert.h"
#include "sum/sum.h"
#include "sum/sum_args.h"

namespace casebook::kernels {
namespace {

template <typename Element>
float sum_elements(const CasebookSumArgs& args) {
  const auto* input = static_cast<const typename Element::Storage*>(args.input);
  double total = 0.0;
  for (int64_t i = 0; i < args.length; ++i) {
    total += Element::load(input[i * args.stride]);
  }
  return static_cast<float>(total);
}

}  // namespace

CasebookKernelStatus sum_cpu(const CasebookSumArgs& args) {
  const CasebookKernelStatus checked = check_sum_args(args);
  if (checked.code != CASEBOOK_STATUS_OK) return checked;
  switch (args.input_type) {
    case CASEBOOK_FLOAT16:
      *args.output = sum_elements<Float16Element>(args);
      break;
    case CASEBOOK_BFLOAT16:
      *args.output = sum_elements<BFloat16Element>(args);
      break;
    default:
      *args.output = sum_elements<Float32Element>(args);
      break;
  }
  return ok_status();
}

}  // namespace casebook::kernels
