// What the case model needs to know of an op, declared by the ops' owner and
// handed to the model as a table: the model (LibTorch-free, casebook_core)
// knows no op by name or prefix and includes no kernel header
// (docs/architecture.md, "The rooms").
//
// How the model gets the table: one table per process, installed once by
// whoever owns the ops, before the first case is loaded. The ops registry
// (framework/src/ops/registry.cpp) installs the traits of the ops casebook
// ships; LibTorch-free programs (tests/core, fuzz/) install the same shipped
// declarations themselves. Not an argument threaded through the loader:
// load_case_file and the neighbour functions are public and called from the
// runner, the commands and the tests, and every one of those calls would
// carry the same table.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace casebook {

// What the neighbour rules know of an op: the class-index input, the dims a
// batch and a kernel's blocks run along, the blocks a kernel declares.
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

struct OpTraits {
  // The op reports the entries it processed and the positions it rejected,
  // so a case may expect `processed` and `positions`.
  bool reports_counts = false;
  // Gradients flow through it (LibTorch's autograd): a case may say `grad`.
  bool gradients = false;
  // LibTorch computes the same outputs: a case may say `reference: torch`.
  bool torch_reference = false;
  // Empty: the neighbour rules know nothing of the op (a rule's parameters
  // must then be declared in the case).
  std::optional<NeighborOpTraits> neighbors;
};

// How the model's messages name the ops that have a trait, in the owner's
// words (the model names no op itself). Load errors quote them verbatim.
struct OpTraitsWording {
  std::string op_names;              // what an `op:` may be
  std::string with_torch_reference;  // "a kernels.* op"
  std::string with_gradients;        // "torch.* and aten:: ops"
  std::string with_counts;           // "a validate.* or kernels.* op"
  std::string with_blocks;           // "the kernels.* ops"
};

class OpTraitsTable {
 public:
  // Every name that starts with `prefix` and is longer is an op, with
  // `traits` unless it has an entry of its own. Families are tried in the
  // order they were added.
  void add_family(const std::string& prefix, const OpTraits& traits);
  // `name`'s own traits (whole: not merged with its family's). Throws
  // std::logic_error when `name` was added before.
  void add(const std::string& name, const OpTraits& traits);
  // The op's own entry, else its family's; null when `op` names no op.
  const OpTraits* find(const std::string& op) const;

  OpTraitsWording wording;

 private:
  std::vector<std::pair<std::string, OpTraits>> families_;
  std::map<std::string, OpTraits> ops_;
};

// Replaces the process's table. Install before loading cases: a reference
// from installed_op_traits() does not survive the next install.
void install_op_traits(OpTraitsTable table);
// The installed table. Throws std::logic_error when none was installed (a
// program that loads cases without an ops owner).
const OpTraitsTable& installed_op_traits();

}  // namespace casebook
