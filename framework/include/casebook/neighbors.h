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

// What a rule knows of an op: the class-index input, the dims a batch and
// a kernel's blocks run along, the blocks a kernel declares. Null for an op
// the rules know nothing of (parameters must then be declared).
struct NeighborOpTraits {
  std::string index_input;                // "target", "indices"; "" none
  std::vector<std::string> class_inputs;  // the input whose dim gives C
  int64_t class_dim = 1;      // of a class input of rank >= 2 (rank 1: dim 0)
  bool ignore_index = false;  // the op takes `ignore_index` (default -100)
  bool reduction = false;     // the op takes `reduction` (default mean)
  std::vector<std::pair<std::string, int64_t>> batch;  // the batch dims
  bool allows_empty = false;                           // a dim of size 0
  std::vector<int64_t> blocks;  // kernels: block sizes (threads, grid)
  std::vector<std::pair<std::string, int64_t>> block_dims;
};
const NeighborOpTraits* neighbor_op_traits(const std::string& op);

}  // namespace casebook
