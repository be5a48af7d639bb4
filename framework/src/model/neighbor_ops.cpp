// What the neighbour rules know of an op: what its owner declared in the
// installed op traits table (casebook/op_traits.h).
#include "casebook/neighbors.h"
#include "casebook/op_traits.h"

namespace casebook {

const NeighborOpTraits* neighbor_op_traits(const std::string& op) {
  const OpTraits* traits = installed_op_traits().find(op);
  return traits != nullptr && traits->neighbors ? &*traits->neighbors : nullptr;
}

}  // namespace casebook
