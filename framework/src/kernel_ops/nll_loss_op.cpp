// kernels.nll_loss: nll_loss forward without weights (kernels/nll_loss).
#include <ATen/ATen.h>

#include "kernel_ops/kernel_glue.h"
#include "kernel_ops/kernel_op_declarations.h"
#include "kernel_ops/kernel_ops.h"

namespace casebook::kernel_glue {
namespace {

const char kNllLossOp[] = CASEBOOK_KERNEL_OP_NAME(nll_loss);

// `reduction` as LibTorch spells it: mean (the default), sum or none.
CasebookReduction parse_reduction(const OpCall& call) {
  const std::string text = call.arg_string("reduction", "mean");
  if (text == "mean") return CASEBOOK_REDUCTION_MEAN;
  if (text == "sum") return CASEBOOK_REDUCTION_SUM;
  if (text == "none") return CASEBOOK_REDUCTION_NONE;
  throw InvalidCaseError(at_place(
      call.arg_where("reduction"),
      kNllLossOp +
          std::string(": `reduction` must be mean, sum or none, got `") + text +
          "`"));
}

void check_shapes(const at::Tensor& input, const at::Tensor& target) {
  require_dims(kNllLossOp, "input", input, 2);
  require_dims(kNllLossOp, "target", target, 1);
  if (target.size(0) != input.size(0)) {
    throw OpError(Family::kContract,
                  std::string(kNllLossOp) + ": `target` has " +
                      std::to_string(target.size(0)) +
                      " elements, `input` has " +
                      std::to_string(input.size(0)) + " rows");
  }
}

std::vector<at::Tensor> run_nll_loss(const OpCall& call,
                                     KernelCpu<CasebookNllLossArgs> cpu) {
  const at::Tensor& input = call.input(0);
  const at::Tensor& target = call.input(1);
  check_shapes(input, target);
  CasebookNllLossArgs args{};
  args.input_type = floating_type(kNllLossOp, "input", input);
  args.batch = input.size(0);
  args.classes = input.size(1);
  args.input_stride[0] = input.stride(0);
  args.input_stride[1] = input.stride(1);
  args.target_type = index_type(kNllLossOp, "target", target);
  args.target_stride = target.stride(0);
  args.ignore_index = call.arg_int("ignore_index", -100);
  args.reduction = parse_reduction(call);
  std::vector<int64_t> sizes;
  if (args.reduction == CASEBOOK_REDUCTION_NONE) sizes = {args.batch};
  const at::ScalarType out_type = input.scalar_type();
  // The kernel's own count of targets taken into the loss; -1 until it
  // writes one (an implementation that does not count reports none).
  int64_t processed = -1;
  auto launch = [&args, &processed, cpu](const LaunchPointers& at,
                                         const CasebookKernelPluginV1* table) {
    args.processed = &processed;
    args.input = at.inputs[0];
    args.target = at.inputs[1];
    args.output = at.output;
    args.workspace = at.workspace;
    args.workspace_bytes = at.workspace_bytes;
    if (table == nullptr) return cpu(args);
    CasebookKernelStatus status{};
    table->nll_loss(&args, &status);
    return status;
  };
  at::Tensor loss =
      launch_kernel(call, kNllLossOp, {input, target}, sizes, out_type,
                    CASEBOOK_NLL_LOSS_WORKSPACE_BYTES, launch);
  if (processed >= 0) call.report_count(processed);
  return {loss};
}

}  // namespace

OpDef make_nll_loss_op(KernelCpu<CasebookNllLossArgs> cpu) {
  OpDef def(declare_nll_loss_op());
  def.inputs = {"input", "target"};
  def.args = {"reduction", "ignore_index"};
  def.placement = OpDef::Placement::kHost;
  def.needs_kernel_plugin = true;
  def.run = [cpu](const OpCall& call) { return run_nll_loss(call, cpu); };
  // at::nll_loss in float32 (LibTorch 1.13 has no float16 nll_loss on the
  // CPU), rounded once to the input type as the kernel does.
  def.torch_reference = [](const OpCall& call) -> std::vector<at::Tensor> {
    const at::Tensor& input = call.input(0);
    check_shapes(input, call.input(1));
    floating_type(kNllLossOp, "input", input);
    index_type(kNllLossOp, "target", call.input(1));
    const CasebookReduction reduction = parse_reduction(call);
    const int64_t aten_reduction =
        reduction == CASEBOOK_REDUCTION_NONE  ? at::Reduction::None
        : reduction == CASEBOOK_REDUCTION_SUM ? at::Reduction::Sum
                                              : at::Reduction::Mean;
    return {at::nll_loss(input.to(at::kFloat), call.input(1).to(at::kLong), {},
                         aten_reduction, call.arg_int("ignore_index", -100))
                .to(input.scalar_type())};
  };
  return def;
}

}  // namespace casebook::kernel_glue
