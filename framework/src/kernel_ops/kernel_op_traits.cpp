// What the case model knows of the kernels.* ops: the block sizes each
// kernel declares in its header (the one place they are set), the class
// input of its losses and embeddings. LibTorch-free (ops/shipped_op_traits.h).
#include "casebook/op_traits.h"
#include "embedding/embedding.h"
#include "nll_loss/nll_loss.h"
#include "ops/shipped_op_traits.h"
#include "softmax/softmax.h"
#include "sum/sum.h"

namespace casebook {
namespace {

// Every kernel counts what it processed or the first position it rejected
// (OpDef::reports_processed, reports_positions), and each has a LibTorch
// twin (OpDef::torch_reference).
OpTraits kernel_op() {
  OpTraits traits;
  traits.reports_counts = true;
  traits.torch_reference = true;
  return traits;
}

// A grid-stride kernel: a block of `threads`, at most `blocks` of them.
std::vector<int64_t> grid(int64_t threads, int64_t blocks) {
  return {threads, threads * blocks};
}

OpTraits nll_loss() {
  OpTraits traits = kernel_op();
  NeighborOpTraits& rules = traits.neighbors.emplace();
  rules.index_input = "target";
  rules.class_inputs = {"input", "self"};
  rules.class_dim = 1;
  rules.ignore_index = true;
  rules.reduction = true;
  rules.batch = {{"input", 0}, {"self", 0}, {"target", 0}};
  rules.blocks =
      grid(CASEBOOK_NLL_LOSS_BLOCK_THREADS, CASEBOOK_NLL_LOSS_MAX_BLOCKS);
  rules.block_dims = {{"input", 0}, {"target", 0}};
  return traits;
}

OpTraits embedding() {
  OpTraits traits = kernel_op();
  NeighborOpTraits& rules = traits.neighbors.emplace();
  rules.index_input = "indices";
  rules.class_inputs = {"weight"};
  rules.class_dim = 0;
  rules.batch = {{"indices", 0}};
  rules.blocks = {CASEBOOK_EMBEDDING_BLOCK_THREADS};  // one block a row
  rules.block_dims = {{"weight", 1}};
  return traits;
}

OpTraits sum() {
  OpTraits traits = kernel_op();
  NeighborOpTraits& rules = traits.neighbors.emplace();
  rules.batch = {{"input", 0}, {"self", 0}};
  rules.allows_empty = true;  // the sum of nothing is 0
  rules.blocks = grid(CASEBOOK_SUM_BLOCK_THREADS, CASEBOOK_SUM_MAX_BLOCKS);
  rules.block_dims = {{"input", 0}};
  return traits;
}

OpTraits softmax() {
  OpTraits traits = kernel_op();
  NeighborOpTraits& rules = traits.neighbors.emplace();
  rules.batch = {{"input", 0}};
  rules.blocks = {CASEBOOK_SOFTMAX_BLOCK_THREADS};  // one block a row
  rules.block_dims = {{"input", 1}};
  return traits;
}

}  // namespace

void declare_kernel_op_traits(OpTraitsTable& table) {
  table.add_family("kernels.", kernel_op());
  table.add("kernels.nll_loss", nll_loss());
  table.add("kernels.embedding", embedding());
  table.add("kernels.sum", sum());
  table.add("kernels.softmax", softmax());
}

}  // namespace casebook
