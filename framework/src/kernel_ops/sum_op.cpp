// kernels.sum: the sum of a 1-D tensor as float32 (kernels/sum).
#include <ATen/ATen.h>

#include "kernel_ops/kernel_glue.h"
#include "kernel_ops/kernel_op_declarations.h"
#include "kernel_ops/kernel_ops.h"

namespace casebook::kernel_glue {
namespace {

const char kSumOp[] = CASEBOOK_KERNEL_OP_NAME(sum);

std::vector<at::Tensor> run_sum(const OpCall& call,
                                KernelCpu<CasebookSumArgs> cpu) {
  const at::Tensor& input = call.input(0);
  require_dims(kSumOp, "input", input, 1);
  CasebookSumArgs args{};
  args.input_type = floating_type(kSumOp, "input", input);
  args.length = input.size(0);
  args.stride = input.stride(0);
  auto launch = [&args, cpu](const LaunchPointers& at,
                             const CasebookKernelPluginV1* table) {
    args.input = at.inputs[0];
    args.output = static_cast<float*>(at.output);
    args.workspace = at.workspace;
    args.workspace_bytes = at.workspace_bytes;
    if (table == nullptr) return cpu(args);
    CasebookKernelStatus status{};
    table->sum(&args, &status);
    return status;
  };
  return {launch_kernel(call, kSumOp, {input}, {}, at::kFloat,
                        CASEBOOK_SUM_WORKSPACE_BYTES, launch)};
}

}  // namespace

OpDef make_sum_op(KernelCpu<CasebookSumArgs> cpu) {
  OpDef def(declare_sum_op());
  def.inputs = {"input"};
  def.placement = OpDef::Placement::kHost;
  def.needs_kernel_plugin = true;
  def.run = [cpu](const OpCall& call) { return run_sum(call, cpu); };
  def.torch_reference = [](const OpCall& call) -> std::vector<at::Tensor> {
    require_dims(kSumOp, "input", call.input(0), 1);
    floating_type(kSumOp, "input", call.input(0));
    return {at::sum(call.input(0), at::kFloat)};
  };
  return def;
}

}  // namespace casebook::kernel_glue
