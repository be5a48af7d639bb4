// Writing a case back as a case file (format version 1): what `casebook
// neighbors --write` turns a generated neighbour into, and the case a
// report carries. Every shipped case written, loaded and written again is
// the same text and the same case (tests/core/case_text_round_trip_test.cpp).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "casebook/case.h"

namespace casebook {

// The YAML text of `kase`, every key the loader reads back to the same case
// (its `id` where the file gave one, else left to the path; its `neighbors`
// written: a caller that writes one run of a case clears them first). An
// expectation that says it cannot be derived (Expectation::missing) has no
// text: the caller refuses such a case first.
std::string case_to_yaml(const Case& kase);

// The sections of a case as case_to_yaml writes them, for a command that
// adds one to a person's file (comments and all) rather than writing the
// file: `backends:` ("" for the built-in ones, the default), `expect:` ("" for
// none; what `casebook accept` appends).
std::string backends_to_yaml(const std::vector<Backend>& backends);
std::string expect_to_yaml(
    const std::map<Backend, std::vector<Expectation>>& entries);

// The `outputs:` section of `outputs` ("" when there are none), as
// case_to_yaml writes it: what `casebook show --write-expected` appends.
std::string outputs_to_yaml(const std::vector<OutputExpectation>& outputs);

// The `origin:` section of `origin` ("" when it has no entry), as
// case_to_yaml and a captured case write it: top-level keys in the order
// first seen, a dotted key under its head (`versions.torch` under
// `versions:`) wherever it stands in the list; an integer plain, any other
// value double-quoted.
std::string origin_to_yaml(const Origin& origin);

}  // namespace casebook
