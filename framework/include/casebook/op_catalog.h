// Which ops a program has: casebook's own, registered by every room that
// owns some (ops/: torch.*, validate.*; kernel_ops/: kernels.*), and a
// program's own (add_op_registration), in one registry built once. The room
// above ops/ and kernel_ops/, so that neither calls the other
// (docs/architecture.md, "The rooms").
#pragma once

#include "casebook/ops.h"

namespace casebook {

// Registers every op casebook ships: torch.*, validate.*, kernels.*.
void register_all(OpRegistry& registry);

// The registry with everything registered, built once per process, the
// first time it is asked. Its traits (OpRegistry::traits) are the table the
// case model reads (casebook/op_traits.h): an op a program registers loads
// with the traits of its own definition.
const OpRegistry& default_registry();

// Adds the ops of a program built on casebook: `registration` runs when the
// op registry is first built, after casebook's own ops, so a name registered
// twice is the usual error naming both places. Throws std::logic_error once
// the registry is built (a registration then could not take effect).
void add_op_registration(void (*registration)(OpRegistry&));

}  // namespace casebook
