// The argument checks of nll_loss that the CPU reference and the GPU launcher
// share, so that both reject the same arguments with the same message; the
// launcher adds its own (workspace, grid limits) after these.
#pragma once

#include "common/arg_checks.h"
#include "nll_loss/nll_loss.h"

namespace casebook::kernels {

inline CasebookKernelStatus check_nll_loss_args(
    const CasebookNllLossArgs& args) {
  const bool known_reduction = args.reduction == CASEBOOK_REDUCTION_NONE ||
                               args.reduction == CASEBOOK_REDUCTION_MEAN ||
                               args.reduction == CASEBOOK_REDUCTION_SUM;
  return first_error({
      check_floating("nll_loss", "input", args.input_type),
      check_index("nll_loss", "target", args.target_type),
      check_non_negative("nll_loss", "batch", args.batch),
      check_non_negative("nll_loss", "input row stride", args.input_stride[0]),
      check_non_negative("nll_loss", "input class stride",
                         args.input_stride[1]),
      check_non_negative("nll_loss", "target stride", args.target_stride),
      check_pointer("nll_loss", "input", args.input, args.batch > 0),
      check_pointer("nll_loss", "target", args.target, args.batch > 0),
      check_pointer(
          "nll_loss", "output", args.output,
          args.batch > 0 || args.reduction != CASEBOOK_REDUCTION_NONE),
      known_reduction ? ok_status()
                      : error_status(CASEBOOK_STATUS_INVALID_ARGUMENT,
                                     "nll_loss: unknown reduction %d",
                                     static_cast<int>(args.reduction)),
      args.classes >= 1
          ? ok_status()
          : error_status(CASEBOOK_STATUS_INVALID_ARGUMENT,
                         "nll_loss: classes must be >= 1, got %lld",
                         static_cast<long long>(args.classes)),
  });
}

}  // namespace casebook::kernels
