// The CPU reference of nll_loss (see nll_loss.h).
#include "common/scalar_convert.h"
#include "nll_loss/nll_loss.h"
#include "nll_loss/nll_loss_args.h"

namespace casebook::kernels {
namespace {

template <typename Element>
CasebookKernelStatus nll_loss_rows(const CasebookNllLossArgs& args) {
  using Storage = typename Element::Storage;
  const auto* input = static_cast<const Storage*>(args.input);
  auto* output = static_cast<Storage*>(args.output);
  double total = 0.0;
  int64_t counted = 0;
  for (int64_t row = 0; row < args.batch; ++row) {
    const int64_t target =
        load_index(args.target, args.target_type, row * args.target_stride);
    double loss = 0.0;
    if (target != args.ignore_index) {
      if (target < 0 || target >= args.classes) {
        return index_out_of_range("target", row, target, 0, args.classes);
      }
      loss = -static_cast<double>(Element::load(
          input[row * args.input_stride[0] + target * args.input_stride[1]]));
      total += loss;
      ++counted;
    }
    if (args.reduction == CASEBOOK_REDUCTION_NONE) {
      output[row] = Element::store(static_cast<float>(loss));
    }
  }
  if (args.processed != nullptr) *args.processed = counted;
  if (args.reduction == CASEBOOK_REDUCTION_SUM) {
    output[0] = Element::store(static_cast<float>(total));
  } else if (args.reduction == CASEBOOK_REDUCTION_MEAN) {
    // 0 / 0 is NaN when every target is ignored, as in LibTorch.
    output[0] = Element::store(
        static_cast<float>(total / static_cast<double>(counted)));
  }
  return ok_status();
}

}  // namespace

CasebookKernelStatus nll_loss_cpu(const CasebookNllLossArgs& args) {
  const CasebookKernelStatus checked = check_nll_loss_args(args);
  if (checked.code != CASEBOOK_STATUS_OK) return checked;
  switch (args.input_type) {
    case CASEBOOK_FLOAT16:
      return nll_loss_rows<Float16Element>(args);
    case CASEBOOK_BFLOAT16:
      return nll_loss_rows<BFloat16Element>(args);
    default:
      return nll_loss_rows<Float32Element>(args);
  }
}

}  // namespace casebook::kernels
