// The first check of a random op's value mismatch (issue 36): whether a
// random op's values depend on the draw is the case's claim, not the
// loader's, so a run whose values differ where the generator differs says so.
#pragma once

#include <string>

namespace casebook {

// The first check of a value mismatch of a random op (its schema tagged
// nondeterministic_seeded) run with another generator than its truth's:
// `why` says which ("cuda's generator draws other numbers than the CPU's").
// The values may not depend on the draw (p = 0, eval mode, probabilities 0
// or 1, empty outputs); the text says how to state a case whose values do.
std::string random_op_first_check(const std::string& op,
                                  const std::string& why);

}  // namespace casebook
