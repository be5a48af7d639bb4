// The declarations (name and traits, casebook/op_traits.h) of the ops this
// room registers, and what the case model may know of the ATen operators its
// dispatcher path runs. LibTorch-free (compiled into casebook_core), so that a
// program without LibTorch reads the same traits as the registry
// (catalog/shipped_op_declarations.h); the registrations (torch_ops.cpp,
// validate_ops.cpp, class_mapping.cpp) build each OpDef from its declaration.
#pragma once

#include <vector>

#include "casebook/op_traits.h"

namespace casebook {

// Any ATen operator, by its Python name or its schema name: LibTorch's
// autograd differentiates it.
OpTraits dispatcher_op_traits();

// The neighbour rules' view of an op shape, shared by LibTorch's op and
// casebook's kernel of that shape (which adds its blocks):
// a class-index loss (cross_entropy, nll_loss): class indices in `target`,
// the classes on the logits' dim 1;
NeighborOpTraits class_loss_neighbors();
// an embedding: indices into the weight's rows;
NeighborOpTraits embedding_neighbors();
// a sum over the input's first dim (the sum of nothing is 0).
NeighborOpTraits sum_neighbors();

// The families `torch.` and `aten::` (any ATen operator, ops/aten_op.cpp)
// and the ATen operators of a known shape that no registration declares
// (`aten::nll_loss`, `torch.nll_loss_nd`, ...).
void add_dispatcher_op_traits(OpTraitsTable& table);

// The ops register_torch_ops registers (ops/torch_ops.cpp).
OpDeclaration torch_cross_entropy_declaration();
OpDeclaration torch_nll_loss_declaration();
OpDeclaration torch_embedding_declaration();
OpDeclaration torch_sum_declaration();
// The ops register_validate_ops registers: the input contracts count the
// entries they check and the positions they reject. Their names, which their
// messages use too:
inline constexpr char kClassTargetsOp[] = "validate.class_targets";
inline constexpr char kClassMappingOp[] = "validate.class_mapping";
OpDeclaration validate_class_targets_declaration();
OpDeclaration validate_class_mapping_declaration();

// Every declaration above, in registration order.
std::vector<OpDeclaration> torch_and_validate_op_declarations();

}  // namespace casebook
