// Writing a case back as a case file (format version 1): what `casebook
// neighbors --write` turns a generated neighbour into.
#pragma once

#include <string>

#include "casebook/case.h"

namespace casebook {

// The YAML text of `kase`, every key the loader reads back to the same case
// (its `id` left to the file's path; `neighbors` not written). An
// expectation that says it cannot be derived (Expectation::missing) has no
// text: the caller refuses such a case first.
std::string case_to_yaml(const Case& kase);

}  // namespace casebook
