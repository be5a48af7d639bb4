// The argument checks of softmax that the CPU reference and the GPU launcher
// share, so that both reject the same arguments with the same message; the
// launcher adds its own (workspace, grid limits) after these.
#pragma once

#include "common/arg_checks.h"
#include "softmax/softmax.h"

namespace casebook::kernels {

inline CasebookKernelStatus check_softmax_args(
    const CasebookSoftmaxArgs& args) {
  const bool any = args.rows > 0 && args.cols > 0;
  return first_error({
      check_floating("softmax", "input", args.type),
      check_non_negative("softmax", "rows", args.rows),
      check_non_negative("softmax", "cols", args.cols),
      check_non_negative("softmax", "row stride", args.input_stride[0]),
      check_non_negative("softmax", "column stride", args.input_stride[1]),
      check_pointer("softmax", "input", args.input, any),
      check_pointer("softmax", "output", args.output, any),
  });
}

}  // namespace casebook::kernels
