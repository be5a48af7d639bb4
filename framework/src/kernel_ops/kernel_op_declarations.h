// The declarations (name and traits, casebook/op_traits.h) of the kernels.*
// ops, one per row of kernels/common/kernel_list.h: what each reports, its
// LibTorch twin, the block sizes its header sets. LibTorch-free (compiled
// into casebook_core); make_<name>_op (kernel_ops/<name>_op.cpp) builds the
// op from its declaration.
#pragma once

#include <vector>

#include "casebook/op_traits.h"
#include "common/kernel_list.h"

// The op of a kernel_list.h row: `kernels.<name>`.
#define CASEBOOK_KERNEL_OP_NAME(name) "kernels." #name

namespace casebook::kernel_glue {

#define CASEBOOK_KERNEL_OP_DECLARATION(name, Args) \
  OpDeclaration declare_##name##_op();
CASEBOOK_FOR_EACH_KERNEL(CASEBOOK_KERNEL_OP_DECLARATION)
#undef CASEBOOK_KERNEL_OP_DECLARATION

// Every kernel's declaration, in the list's order.
std::vector<OpDeclaration> kernel_op_declarations();

}  // namespace casebook::kernel_glue
