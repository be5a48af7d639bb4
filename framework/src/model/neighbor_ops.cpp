// What the neighbour rules know of casebook's ops: the class-index input of
// the losses and embeddings, their batch dims, and the block sizes each
// kernel of kernels/ declares in its header (the one place they are set).
#include <map>

#include "casebook/neighbors.h"
#include "embedding/embedding.h"
#include "nll_loss/nll_loss.h"
#include "softmax/softmax.h"
#include "sum/sum.h"

namespace casebook {
namespace {

NeighborOpTraits class_loss() {
  NeighborOpTraits traits;
  traits.index_input = "target";
  traits.class_inputs = {"input", "self"};
  traits.class_dim = 1;
  traits.ignore_index = true;
  traits.reduction = true;
  traits.batch = {{"input", 0}, {"self", 0}, {"target", 0}};
  return traits;
}

NeighborOpTraits embedding() {
  NeighborOpTraits traits;
  traits.index_input = "indices";
  traits.class_inputs = {"weight"};
  traits.class_dim = 0;
  traits.batch = {{"indices", 0}};
  return traits;
}

// A grid-stride kernel: a block of `threads`, at most `blocks` of them.
std::vector<int64_t> grid(int64_t threads, int64_t blocks) {
  return {threads, threads * blocks};
}

std::map<std::string, NeighborOpTraits> make_table() {
  std::map<std::string, NeighborOpTraits> table;
  // `torch.<name>` of an ATen operator is that operator (ops/aten_op.cpp).
  for (const char* op :
       {"torch.cross_entropy", "torch.nll_loss", "torch.cross_entropy_loss",
        "torch.nll_loss_nd", "torch.nll_loss2d", "aten::cross_entropy_loss",
        "aten::nll_loss", "aten::nll_loss_nd", "aten::nll_loss2d",
        "kernels.nll_loss"}) {
    table[op] = class_loss();
  }
  NeighborOpTraits& nll = table["kernels.nll_loss"];
  nll.blocks =
      grid(CASEBOOK_NLL_LOSS_BLOCK_THREADS, CASEBOOK_NLL_LOSS_MAX_BLOCKS);
  nll.block_dims = {{"input", 0}, {"target", 0}};
  for (const char* op :
       {"torch.embedding", "aten::embedding", "kernels.embedding"}) {
    table[op] = embedding();
  }
  NeighborOpTraits& gather = table["kernels.embedding"];
  gather.blocks = {CASEBOOK_EMBEDDING_BLOCK_THREADS};  // one block a row
  gather.block_dims = {{"weight", 1}};
  for (const char* op : {"torch.sum", "aten::sum", "kernels.sum"}) {
    NeighborOpTraits& sum = table[op];
    sum.batch = {{"input", 0}, {"self", 0}};
    sum.allows_empty = true;  // the sum of nothing is 0
  }
  table["kernels.sum"].blocks =
      grid(CASEBOOK_SUM_BLOCK_THREADS, CASEBOOK_SUM_MAX_BLOCKS);
  table["kernels.sum"].block_dims = {{"input", 0}};
  NeighborOpTraits& softmax = table["kernels.softmax"];
  softmax.batch = {{"input", 0}};
  softmax.blocks = {CASEBOOK_SOFTMAX_BLOCK_THREADS};  // one block a row
  softmax.block_dims = {{"input", 1}};
  return table;
}

}  // namespace

const NeighborOpTraits* neighbor_op_traits(const std::string& op) {
  static const std::map<std::string, NeighborOpTraits> table = make_table();
  const auto found = table.find(op);
  return found == table.end() ? nullptr : &found->second;
}

}  // namespace casebook
