// The traits of the ops casebook ships (casebook/op_traits.h), declared by
// the rooms that own the ops. LibTorch-free, so that programs without
// LibTorch (tests/core, fuzz/) install the same table as the registry does:
// they compile shipped_op_traits.cpp and kernel_ops/kernel_op_traits.cpp.
#pragma once

#include "casebook/op_traits.h"

namespace casebook {

// The op families (torch., aten::, kernels., validate., testing.), the ops
// the neighbour rules know, and how messages name them.
OpTraitsTable shipped_op_traits();

// The neighbour rules' view of an op shape, shared by LibTorch's op and
// casebook's kernel of that shape (which adds its blocks):
// a class-index loss (cross_entropy, nll_loss): class indices in `target`,
// the classes on the logits' dim 1;
NeighborOpTraits class_loss_neighbors();
// an embedding: indices into the weight's rows;
NeighborOpTraits embedding_neighbors();
// a sum over the input's first dim (the sum of nothing is 0).
NeighborOpTraits sum_neighbors();

// The kernels.* family and each kernel's traits, its block sizes from its
// header in kernels/ (framework/src/kernel_ops/kernel_op_traits.cpp).
void declare_kernel_op_traits(OpTraitsTable& table);

}  // namespace casebook
