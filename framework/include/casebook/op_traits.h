// What the case model needs to know of an op, declared by the ops' owner and
// handed to the model as a table: the model (LibTorch-free, casebook_core)
// knows no op by name or prefix and includes no kernel header
// (docs/architecture.md, "The rooms").
//
// An op's traits are part of its one definition: its OpDeclaration (name and
// traits, LibTorch-free), which its OpDef (casebook/ops.h) extends with what
// runs it. Registering the OpDef puts its traits in the registry's table.
//
// How the model gets the table: one table per process, installed by whoever
// owns the ops before the first case is loaded. A program that runs ops
// installs its registry's table, read the first time the model asks, so an
// op a program registers (add_op_registration) is seen with its own traits
// (framework/src/catalog/default_registry.cpp); LibTorch-free programs
// (tests/core, fuzz/) install the shipped ops' declarations
// (catalog/shipped_op_declarations.h), the same declarations the registry's
// ops are built from. Not an argument threaded through the loader:
// load_case_file and the neighbour functions are public and called from the
// runner, the commands and the tests, and every one of those calls would
// carry the same table.
#pragma once

#include <cstdint>
#include <functional>
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

  friend bool operator==(const NeighborOpTraits& a, const NeighborOpTraits& b);
};

struct OpTraits {
  // The op reports the count of entries it processed (OpCall::report_count),
  // the positions it rejected (OpError): a case may expect `processed`,
  // `positions`, only of an op that reports it.
  bool reports_processed = false;
  bool reports_positions = false;
  // Gradients flow through it (LibTorch's autograd): a case may say `grad`.
  bool gradients = false;
  // LibTorch computes the same outputs (OpDef::torch_reference): a case may
  // say `reference: torch`.
  bool torch_reference = false;
  // Empty: the neighbour rules know nothing of the op (a rule's parameters
  // must then be declared in the case).
  std::optional<NeighborOpTraits> neighbors;

  bool reports_counts() const { return reports_processed || reports_positions; }
  friend bool operator==(const OpTraits& a, const OpTraits& b);
};

// The LibTorch-free half of an op's one definition: what it is called and
// what the case model may know of it. OpDef (casebook/ops.h) is a
// declaration with what runs it.
struct OpDeclaration {
  std::string name;  // "torch.cross_entropy", "kernels.sum"
  OpTraits traits;
};

// How the model's messages name the ops that have a trait, in the owner's
// words (the model names no op itself). Load errors quote them verbatim.
struct OpTraitsWording {
  std::string op_names;              // what an `op:` may be
  std::string with_torch_reference;  // "a kernels.* op"
  std::string with_gradients;        // "torch.* and aten:: ops"
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
  void add(const OpDeclaration& op) { add(op.name, op.traits); }
  // `name`'s own traits, in place of any it had: a registered op's, over the
  // entry its name may have had before it was registered.
  void set(const std::string& name, const OpTraits& traits);
  // The op's own entry, else its family's; null when `op` names no op.
  const OpTraits* find(const std::string& op) const;
  // The ops with an entry of their own that have `trait`, sorted: what the
  // model's messages name ("ops that do: ...").
  std::vector<std::string> names_where(bool OpTraits::* trait) const;

  OpTraitsWording wording;

 private:
  std::vector<std::pair<std::string, OpTraits>> families_;
  std::map<std::string, OpTraits> ops_;
};

// Replaces the process's table. Install before loading cases: a reference
// from installed_op_traits() does not survive the next install.
void install_op_traits(OpTraitsTable table);
// Replaces the process's table with the one `source` gives, called once,
// the first time installed_op_traits() is asked (a registry's table, built
// when the program's registrations are all in).
void install_op_traits_source(std::function<OpTraitsTable()> source);
// The installed table. Throws std::logic_error when none was installed (a
// program that loads cases without an ops owner).
const OpTraitsTable& installed_op_traits();

}  // namespace casebook
