// Neighbouring cases: from one case, the boundaries a fix must also pass
// (docs/case-format.md, "Neighbours"). Pure rule logic on the loaded case
// model, free of LibTorch: the loader (a rule that does not apply is an
// error at its `neighbors` line), `casebook neighbors` and the runner (each
// declared neighbour a run of its own) all ask these functions.
#pragma once

#include <string>
#include <vector>

#include "casebook/case.h"
#include "casebook/loader.h"
#include "casebook/op_traits.h"

namespace casebook {

// label_limits, last_batch, lengths, block_boundaries, layouts, dtypes.
const std::vector<std::string>& neighbor_rule_names();

// One generated case: named `<base id>~<rule>[<param>]`, with the expected
// outcome its rule implies already in `value.expect_entries`.
struct Neighbor {
  std::string rule;    // "label_limits"
  std::string param;   // "C-1"
  std::string id;      // "cross_entropy/label_out_of_range~label_limits[C-1]"
  std::string change;  // what differs from the base: "target[0] = 3"
  // Why the expected outcome on some backend cannot be derived (empty when
  // it can). Such a backend's expectation says so (Expectation::missing):
  // its run is an ERROR with this text, never a guess.
  std::string cannot_derive;
  Case value;  // a complete case; `neighbors` empty
};

struct NeighborExpansion {
  std::vector<Neighbor> neighbors;
  // A rule that does not apply to the case's op or inputs: at the rule's
  // line, `neighbors.<rule>`, saying why.
  std::vector<CaseError> errors;
};

// The neighbours the case's own `neighbors` key declares, in rule order.
NeighborExpansion declared_neighbors(const Case& base);

// Every rule tried on the case (`casebook neighbors`): with the parameters
// its `neighbors` key gives where it names the rule, else the defaults;
// `errors` holds why each other rule does not apply.
NeighborExpansion applicable_neighbors(const Case& base);

// The expected outcome of a case, one line: "match",
// "cpu: error index_out_of_range; cuda: error device_assert", "match;
// outputs 0: nan", "cpu: cannot derive (...)".
std::string describe_expected(const Case& kase);

// What the rules know of `op`: its neighbour traits in the installed op
// traits table (casebook/op_traits.h). Null for an op the rules know nothing
// of (parameters must then be declared).
const NeighborOpTraits* neighbor_op_traits(const std::string& op);

}  // namespace casebook
