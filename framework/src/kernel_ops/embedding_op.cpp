// kernels.embedding: a gather of weight rows by index (kernels/embedding).
#include <ATen/ATen.h>

#include "kernel_ops/kernel_glue.h"
#include "kernel_ops/kernel_op_declarations.h"
#include "kernel_ops/kernel_ops.h"

namespace casebook::kernel_glue {
namespace {

const char kEmbeddingOp[] = CASEBOOK_KERNEL_OP_NAME(embedding);

// The output shape: the indices' shape followed by the embedding dim.
std::vector<int64_t> output_sizes(const at::Tensor& weight,
                                  const at::Tensor& indices) {
  std::vector<int64_t> sizes(indices.sizes().begin(), indices.sizes().end());
  sizes.push_back(weight.size(1));
  return sizes;
}

std::vector<at::Tensor> run_embedding(const OpCall& call,
                                      KernelCpu<CasebookEmbeddingArgs> cpu) {
  const at::Tensor& weight = call.input(0);
  require_dims(kEmbeddingOp, "weight", weight, 2);
  // The kernel takes a 1-D strided index vector: a view where the indices
  // allow one, else a contiguous copy.
  const at::Tensor indices = call.input(1).reshape({-1});
  CasebookEmbeddingArgs args{};
  args.weight_type = floating_type(kEmbeddingOp, "weight", weight);
  args.num_embeddings = weight.size(0);
  args.embedding_dim = weight.size(1);
  args.weight_stride[0] = weight.stride(0);
  args.weight_stride[1] = weight.stride(1);
  args.index_type = index_type(kEmbeddingOp, "indices", indices);
  args.num_indices = indices.size(0);
  args.index_stride = indices.stride(0);
  const std::vector<int64_t> sizes = output_sizes(weight, call.input(1));
  auto launch = [&args, cpu](const LaunchPointers& at,
                             const CasebookKernelPluginV1* table) {
    args.weight = at.inputs[0];
    args.indices = at.inputs[1];
    args.output = at.output;
    args.workspace = at.workspace;
    args.workspace_bytes = at.workspace_bytes;
    if (table == nullptr) return cpu(args);
    CasebookKernelStatus status{};
    table->embedding(&args, &status);
    return status;
  };
  return {launch_kernel(call, kEmbeddingOp, {weight, indices}, sizes,
                        weight.scalar_type(),
                        CASEBOOK_EMBEDDING_WORKSPACE_BYTES, launch)};
}

}  // namespace

OpDef make_embedding_op(KernelCpu<CasebookEmbeddingArgs> cpu) {
  OpDef def(declare_embedding_op());
  def.inputs = {"weight", "indices"};
  def.placement = OpDef::Placement::kHost;
  def.needs_kernel_plugin = true;
  def.run = [cpu](const OpCall& call) { return run_embedding(call, cpu); };
  def.torch_reference = [](const OpCall& call) -> std::vector<at::Tensor> {
    require_dims(kEmbeddingOp, "weight", call.input(0), 2);
    floating_type(kEmbeddingOp, "weight", call.input(0));
    index_type(kEmbeddingOp, "indices", call.input(1));
    return {at::embedding(call.input(0), call.input(1).to(at::kLong))};
  };
  return def;
}

}  // namespace casebook::kernel_glue
