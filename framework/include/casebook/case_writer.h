// Writing a case back as a case file (format version 1): what `casebook
// neighbors --write` turns a generated neighbour into, and the case a
// report carries. Every shipped case written, loaded and written again is
// the same text and the same case (tests/core/case_text_round_trip_test.cpp).
#pragma once

#include <string>

#include "casebook/case.h"

namespace casebook {

// The YAML text of `kase`, every key the loader reads back to the same case
// (its `id` left to the file's path; `neighbors` not written). An
// expectation that says it cannot be derived (Expectation::missing) has no
// text: the caller refuses such a case first.
std::string case_to_yaml(const Case& kase);

// The `origin:` section of `origin` ("" when it has no entry), as
// case_to_yaml and a captured case write it: top-level keys in the order
// first seen, a dotted key under its head (`versions.torch` under
// `versions:`) wherever it stands in the list; an integer plain, any other
// value double-quoted.
std::string origin_to_yaml(const Origin& origin);

}  // namespace casebook
