// The declarations of the kernels.* ops (kernel_ops/kernel_op_declarations.h):
// the block sizes each kernel declares in its header (the one place they are
// set), the class input of its losses and embeddings, what it reports.
#include "kernel_ops/kernel_op_declarations.h"

#include <string>
#include <utility>
#include <vector>

#include "ops/op_declarations.h"

namespace casebook::kernel_glue {
namespace {

// A kernel of the op shape `rules` (ops/op_declarations.h) on its blocks.
// Every kernel has a LibTorch twin (OpDef::torch_reference).
OpDeclaration kernel_op(const char* name, NeighborOpTraits rules,
                        std::vector<int64_t> blocks,
                        std::vector<std::pair<std::string, int64_t>> dims) {
  OpDeclaration op;
  op.name = name;
  op.traits.torch_reference = true;
  rules.blocks = std::move(blocks);
  rules.block_dims = std::move(dims);
  op.traits.neighbors = std::move(rules);
  return op;
}

// A grid-stride kernel: a block of `threads`, at most `blocks` of them.
std::vector<int64_t> grid(int64_t threads, int64_t blocks) {
  return {threads, threads * blocks};
}

}  // namespace

OpDeclaration declare_nll_loss_op() {
  OpDeclaration op = kernel_op(
      CASEBOOK_KERNEL_OP_NAME(nll_loss), class_loss_neighbors(),
      grid(CASEBOOK_NLL_LOSS_BLOCK_THREADS, CASEBOOK_NLL_LOSS_MAX_BLOCKS),
      {{"input", 0}, {"target", 0}});
  op.traits.reports_processed = true;  // the kernel's count of targets
  op.traits.reports_positions = true;  // the first bad target (the status)
  return op;
}

OpDeclaration declare_softmax_op() {
  NeighborOpTraits rules;
  rules.batch = {{"input", 0}};
  return kernel_op(CASEBOOK_KERNEL_OP_NAME(softmax), rules,
                   {CASEBOOK_SOFTMAX_BLOCK_THREADS},  // one block a row
                   {{"input", 1}});
}

OpDeclaration declare_sum_op() {
  return kernel_op(CASEBOOK_KERNEL_OP_NAME(sum), sum_neighbors(),
                   grid(CASEBOOK_SUM_BLOCK_THREADS, CASEBOOK_SUM_MAX_BLOCKS),
                   {{"input", 0}});
}

OpDeclaration declare_embedding_op() {
  OpDeclaration op =
      kernel_op(CASEBOOK_KERNEL_OP_NAME(embedding), embedding_neighbors(),
                {CASEBOOK_EMBEDDING_BLOCK_THREADS},  // a row
                {{"weight", 1}});
  op.traits.reports_positions = true;  // the first bad index (the status)
  return op;
}

std::vector<OpDeclaration> kernel_op_declarations() {
  return {
#define CASEBOOK_KERNEL_OP_DECLARED(name, Args) declare_##name##_op(),
      CASEBOOK_FOR_EACH_KERNEL(CASEBOOK_KERNEL_OP_DECLARED)
#undef CASEBOOK_KERNEL_OP_DECLARED
  };
}

}  // namespace casebook::kernel_glue
