// Programs built on casebook: the `casebook` command line, with a project's
// own ops registered beside casebook's (casebook_add_cases(... OPS target) in
// the installed CMake package generates such a main).
#pragma once

#include "casebook/ops.h"

namespace casebook {

// The `casebook` command line (run, test, list, ...) with `registration`'s
// ops (may be null; added by add_op_registration, casebook/op_catalog.h).
// Returns the exit status.
int main_with_ops(int argc, char** argv, void (*registration)(OpRegistry&));

}  // namespace casebook
