// The traits of the ops casebook ships, as the case model reads them
// (casebook/op_traits.h). LibTorch-free (compiled into casebook_core):
// programs without LibTorch (tests/core, fuzz/) install shipped_op_traits(),
// which lists the same declarations each registration builds its OpDef from,
// so they read what the casebook executable's registry gives.
#pragma once

#include "casebook/op_traits.h"

namespace casebook {

// What no registration declares: the op families (torch. and aten::, any
// ATen operator; validate., kernels. and testing., whose unknown names the
// registry answers with its nearest ones), the ATen operators of a known
// shape, and how the model's messages name the ops that have a trait. The
// table default_registry() starts from.
OpTraitsTable unregistered_op_traits();

// unregistered_op_traits() with every shipped op's declaration.
OpTraitsTable shipped_op_traits();

}  // namespace casebook
