// `grad`: the backward run of a case (issue 10, part 3), in the child right
// after the forward run, on the same backend. Gradients become outputs named
// `grad.<input>`, compared like any other output; an error in backward is
// classified like an error in forward (a device assert is a device assert).
#pragma once

#include <ATen/core/Tensor.h>

#include <vector>

#include "casebook/case.h"
#include "casebook/ops.h"

namespace casebook {

// Marks the inputs named in `grad.wrt` as leaves that require grad. Call
// before the op runs. `inputs` are in the case's input order.
void require_gradients(const Case& kase, std::vector<at::Tensor>* inputs);

// Runs backward from `outputs` (the forward run's, fed `grad_outputs` or
// ones) and appends one output `grad.<input>` per `grad.wrt` (zeros where
// the input does not reach any output).
void append_gradients(const Case& kase, const std::vector<at::Tensor>& inputs,
                      c10::Device device, NamedOutputs* outputs);

// `grad: {check: finite_differences}`: the analytic gradient of the op in
// float64 on the CPU against central differences (eps 1e-6; rtol 1e-3, atol
// 1e-5, torch.autograd.gradcheck's defaults). Throws OpError (mismatch) at
// the first element that disagrees, InvalidCaseError for a case too large
// (more than 2000 elements to perturb: each costs two runs of the op).
void check_finite_differences(const Case& kase, const OpDef& op,
                              const std::vector<at::Tensor>& inputs);

}  // namespace casebook
