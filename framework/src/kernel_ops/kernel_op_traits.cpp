// What the case model knows of the kernels.* ops: the block sizes each
// kernel declares in its header (the one place they are set), the class
// input of its losses and embeddings. LibTorch-free (ops/shipped_op_traits.h).
#include <string>
#include <utility>
#include <vector>

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

// The op's shape (ops/shipped_op_traits.h) on the kernel's blocks.
OpTraits kernel_with(NeighborOpTraits rules, std::vector<int64_t> blocks,
                     std::vector<std::pair<std::string, int64_t>> block_dims) {
  OpTraits traits = kernel_op();
  rules.blocks = std::move(blocks);
  rules.block_dims = std::move(block_dims);
  traits.neighbors = std::move(rules);
  return traits;
}

OpTraits nll_loss() {
  return kernel_with(
      class_loss_neighbors(),
      grid(CASEBOOK_NLL_LOSS_BLOCK_THREADS, CASEBOOK_NLL_LOSS_MAX_BLOCKS),
      {{"input", 0}, {"target", 0}});
}

OpTraits embedding() {
  // One block a row.
  return kernel_with(embedding_neighbors(), {CASEBOOK_EMBEDDING_BLOCK_THREADS},
                     {{"weight", 1}});
}

OpTraits sum() {
  return kernel_with(sum_neighbors(),
                     grid(CASEBOOK_SUM_BLOCK_THREADS, CASEBOOK_SUM_MAX_BLOCKS),
                     {{"input", 0}});
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
