// The argument checks of sum that the CPU reference and the GPU launcher
// share, so that both reject the same arguments with the same message; the
// launcher adds its own (workspace, grid limits) after these.
#pragma once

#include "common/arg_checks.h"
#include "sum/sum.h"

namespace casebook::kernels {

inline CasebookKernelStatus check_sum_args(const CasebookSumArgs& args) {
  return first_error({
      check_floating("sum", "input", args.input_type),
      check_non_negative("sum", "length", args.length),
      check_non_negative("sum", "stride", args.stride),
      check_pointer("sum", "input", args.input, args.length > 0),
      check_pointer("sum", "output", args.output, true),
  });
}

}  // namespace casebook::kernels
