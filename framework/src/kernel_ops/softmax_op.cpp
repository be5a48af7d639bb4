// kernels.softmax: softmax over the last dim of a 2-D input (kernels/softmax).
#include <ATen/ATen.h>

#include "kernel_ops/kernel_glue.h"
#include "kernel_ops/kernel_op_declarations.h"
#include "kernel_ops/kernel_ops.h"

namespace casebook::kernel_glue {
namespace {

const char kSoftmaxOp[] = CASEBOOK_KERNEL_OP_NAME(softmax);

// Only the last dim is supported: `dim` must be -1 or 1.
void check_dim(const OpCall& call) {
  const at::Tensor& input = call.input(0);
  require_dims(kSoftmaxOp, "input", input, 2);
  const int64_t dim = call.arg_int("dim", -1);
  if (dim != -1 && dim != 1) {
    throw OpError(Family::kContract,
                  at_place(call.arg_where("dim"),
                           kSoftmaxOp +
                               std::string(": only the last dim is supported "
                                           "(-1 or 1), got ") +
                               std::to_string(dim)));
  }
}

std::vector<at::Tensor> run_softmax(const OpCall& call,
                                    KernelCpu<CasebookSoftmaxArgs> cpu) {
  check_dim(call);
  const at::Tensor& input = call.input(0);
  CasebookSoftmaxArgs args{};
  args.type = floating_type(kSoftmaxOp, "input", input);
  args.rows = input.size(0);
  args.cols = input.size(1);
  args.input_stride[0] = input.stride(0);
  args.input_stride[1] = input.stride(1);
  const std::vector<int64_t> sizes = {args.rows, args.cols};
  auto launch = [&args, cpu](const LaunchPointers& at,
                             const CasebookKernelPluginV1* table) {
    args.input = at.inputs[0];
    args.output = at.output;
    if (table == nullptr) return cpu(args);
    CasebookKernelStatus status{};
    table->softmax(&args, &status);
    return status;
  };
  return {launch_kernel(call, kSoftmaxOp, {input}, sizes, input.scalar_type(),
                        0, launch)};
}

}  // namespace

OpDef make_softmax_op(KernelCpu<CasebookSoftmaxArgs> cpu) {
  OpDef def(declare_softmax_op());
  def.inputs = {"input"};
  def.args = {"dim"};
  def.placement = OpDef::Placement::kHost;
  def.needs_kernel_plugin = true;
  def.run = [cpu](const OpCall& call) { return run_softmax(call, cpu); };
  // In float32 for every input type, rounded once, as the kernel does.
  def.torch_reference = [](const OpCall& call) -> std::vector<at::Tensor> {
    check_dim(call);
    const at::Tensor& input = call.input(0);
    floating_type(kSoftmaxOp, "input", input);
    return {at::softmax(input.to(at::kFloat), -1).to(input.scalar_type())};
  };
  return def;
}

}  // namespace casebook::kernel_glue
