// kernels.sum: the sum of a 1-D tensor as float32 (kernels/sum).
#include <ATen/ATen.h>

#include "kernel_ops/kernel_glue.h"
#include "kernel_ops/kernel_ops.h"

namespace casebook::kernel_glue {
namespace {

const char kOp[] = "kernels.sum";

std::vector<at::Tensor> run_sum(const OpCall& call, SumCpu cpu) {
  const at::Tensor& input = call.input(0);
  require_dims(kOp, "input", input, 1);
  CasebookSumArgs args{};
  args.input_type = floating_type(kOp, "input", input);
  args.length = input.size(0);
  args.stride = input.stride(0);
  if (call.backend == Backend::kCpu) {
    at::Tensor output = at::empty({}, at::TensorOptions().dtype(at::kFloat));
    args.input = input.data_ptr();
    args.output = output.data_ptr<float>();
    throw_on_error(kOp, cpu(args));
    return {output};
  }
  const KernelPlugin& plugin = require_plugin(call, kOp);
  DeviceTensor device_input(plugin, input);
  DeviceBuffer output(plugin, sizeof(float));
  DeviceBuffer workspace(plugin, CASEBOOK_SUM_WORKSPACE_BYTES);
  args.input = device_input.data();
  args.output = static_cast<float*>(output.get());
  args.workspace = workspace.get();
  args.workspace_bytes = workspace.bytes();
  CasebookKernelStatus status{};
  plugin.table->sum(&args, &status);
  throw_on_error(kOp, status);
  return {copy_to_host(plugin, output.get(), {}, at::kFloat)};
}

}  // namespace

OpDef make_sum_op(SumCpu cpu) {
  OpDef def;
  def.name = kOp;
  def.inputs = {"input"};
  def.placement = OpDef::Placement::kHost;
  def.needs_kernel_plugin = true;
  def.run = [cpu](const OpCall& call) { return run_sum(call, cpu); };
  def.torch_reference = [](const OpCall& call) -> std::vector<at::Tensor> {
    require_dims(kOp, "input", call.input(0), 1);
    floating_type(kOp, "input", call.input(0));
    return {at::sum(call.input(0), at::kFloat)};
  };
  return def;
}

}  // namespace casebook::kernel_glue
