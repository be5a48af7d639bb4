// Programs built on casebook: the `casebook` command line, with a project's
// own ops registered beside casebook's (casebook_add_cases(... OPS target) in
// the installed CMake package generates such a main).
#pragma once

#include "casebook/ops.h"

namespace casebook {

// Adds the ops of a program built on casebook: `registration` runs when the
// op registry is first built, after casebook's own ops, so a name registered
// twice is the usual error naming both places. Throws std::logic_error once
// the registry is built (a registration then could not take effect).
void add_op_registration(void (*registration)(OpRegistry&));

// The `casebook` command line (run, test, list, ...) with `registration`'s
// ops (may be null). Returns the exit status.
int main_with_ops(int argc, char** argv, void (*registration)(OpRegistry&));

}  // namespace casebook
