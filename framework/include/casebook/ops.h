// The op registry: what a case's `op:` names, and how it runs on a backend.
//
// Ops register explicitly (casebook's own through register_all(),
// casebook/op_catalog.h); registering one name twice is an error that names
// both places (CUTLASS initialize_all, Catch2).
#pragma once

#include <ATen/core/Tensor.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "casebook/backend.h"
#include "casebook/case.h"
#include "casebook/family.h"
#include "casebook/invalid_case_error.h"
#include "casebook/op_traits.h"

namespace casebook {

// (framework/src/kernel_ops)

// An error an op raises on purpose, with its family; validate.* ops add the
// rejected positions. Anything else an op throws is classified by its message.
class OpError : public std::runtime_error {
 public:
  OpError(Family family, const std::string& message,
          std::vector<int64_t> positions = {})
      : std::runtime_error(message),
        family_(family),
        positions_(std::move(positions)) {}
  Family family() const { return family_; }
  const std::vector<int64_t>& positions() const { return positions_; }

 private:
  Family family_;
  std::vector<int64_t> positions_;
};

// What an op that counts its entries reports about one call: how many
// entries it took into its result, and the positions it rejected. The
// count is the op's own (a kernel's divisor, a check's loop), never
// recounted beside it, so an op that skips entries shows it (`processed`).
struct EntryCount {
  bool reported = false;
  int64_t processed = 0;
  std::vector<int64_t> rejected;
};

// One call of an op. Inputs are placed as the op's OpDef::placement asks,
// in the op's order: resolve_op binds a case's inputs by name (else by
// position) and hands a registered op its inputs reordered where the case
// wrote them in another order (`target` before `input`).
struct OpCall {
  const std::vector<at::Tensor>& inputs;
  const std::map<std::string, ArgValue>& args;
  Backend backend;
  c10::Device device;  // where the inputs are (kCPU for kHost)
  // Where an op that counts its entries reports them (null: nobody asks).
  EntryCount* count = nullptr;
  // A case of `steps`: where the steps op writes the step it is running
  // (0-based), so that an error can be placed at its step (null: nobody
  // asks).
  int* step = nullptr;
  // Called after each step of a case of `steps` (null: never): the
  // synchronised rerun's, so that a GPU's late error surfaces at the step
  // that launched its work. Throws that error.
  const std::function<void()>* after_step = nullptr;
  // The cpu64 reference: floating `dtype` arguments become float64
  // (promote_dtype_args), in each step's args too.
  bool float64_args = false;

  const at::Tensor& input(size_t index) const;
  bool has_input(size_t index) const { return index < inputs.size(); }
  // Typed argument access; a wrong kind throws InvalidCaseError naming the
  // argument and where it was written.
  bool has_arg(const std::string& name) const;
  // Where the argument was written; no file when it was not (a message
  // about it then names no place: at_place, casebook/invalid_case_error.h).
  const SourceLocation& arg_where(const std::string& name) const;
  int64_t arg_int(const std::string& name, int64_t fallback) const;
  double arg_double(const std::string& name, double fallback) const;
  bool arg_bool(const std::string& name, bool fallback) const;
  std::string arg_string(const std::string& name,
                         const std::string& fallback) const;
  std::vector<int64_t> arg_int_list(const std::string& name,
                                    std::vector<int64_t> fallback) const;
  std::optional<int64_t> arg_optional_int(const std::string& name) const;
  // The same call with other inputs (which must outlive it): how a bound op
  // hands its function the case's inputs in the op's order.
  OpCall with_inputs(const std::vector<at::Tensor>& placed) const;
  // Records the count (before a rejection is thrown, too); nothing when
  // `count` is null.
  void report_count(int64_t processed,
                    std::vector<int64_t> rejected = {}) const;
};

// `args` with every floating `dtype` string ("float32") made "float64": what
// the cpu64 reference calls an op with.
std::map<std::string, ArgValue> promote_dtype_args(
    std::map<std::string, ArgValue> args);

using OpFunction = std::function<std::vector<at::Tensor>(const OpCall&)>;

// An op's outputs with their names: a schema's return names, `name[i]` for
// the elements of a list return, empty where only the index is known.
struct NamedOutputs {
  std::vector<at::Tensor> tensors;
  std::vector<std::string> names;  // one per tensor
};
using NamedOpFunction = std::function<NamedOutputs(const OpCall&)>;

// An op's one definition: its declaration (name and traits, LibTorch-free:
// casebook/op_traits.h) and what runs it.
struct OpDef : OpDeclaration {
  OpDef() = default;
  explicit OpDef(OpDeclaration declaration)
      : OpDeclaration(std::move(declaration)) {}

  enum class Placement {
    kBackendDevice,  // inputs moved to the backend's LibTorch device
    kHost,           // inputs stay on the CPU (validate.*, kernels.* glue)
  };
  std::vector<std::string> inputs;           // required, in argument order
  std::vector<std::string> optional_inputs;  // may follow the required ones
  std::vector<std::string> args;             // every argument name it accepts
  // The value an argument has where a case does not give it, where the op
  // says (a dispatcher op: its schema's defaults, aten::default_arg;
  // casebook's own: those they declare): `casebook reduce` drops an
  // argument equal to it. An argument missing here has no known default.
  std::map<std::string, ArgValue> arg_defaults;
  // The arguments that take one of a closed set of words, with the words
  // (`reduction`: mean, sum, none): another word is the case's error before
  // anything runs (check_case_against_op), never a run's.
  std::map<std::string, std::vector<std::string>> arg_words;
  // Ops bound to one case: the argument each of the case's inputs binds
  // to, in the case's order (`x` of a version-1 file is `self`), and for a
  // dispatcher op the overload chosen. Empty for a registered op as
  // registered (its calls get their inputs in its own order).
  std::vector<std::string> input_arguments;
  std::string schema;
  Placement placement = Placement::kBackendDevice;
  // kHost ops that reach a GPU need the backend's kernel plugin.
  bool needs_kernel_plugin = false;
  // A seeded random op (ATen's schema tag nondeterministic_seeded; a case of
  // steps with one): a GPU's generator draws other numbers than the CPU's,
  // so a mismatch of its values on a GPU or against cpu64 says so first
  // (diagnosis/random_op_advice.h); comparing them is the case's claim.
  bool random = false;
  OpFunction run;
  // Ops that know their outputs' names (dispatcher ops): the same call as
  // `run`, with the names. Empty for others.
  NamedOpFunction run_named;
  // LibTorch's way to compute the same outputs on the CPU, the reference of
  // cases that say `reference: torch` (registering it sets
  // traits.torch_reference). Empty for most ops.
  OpFunction torch_reference;
  const char* file = "";  // where it was registered, for duplicate errors
  int line = 0;
};

class OpRegistry {
 public:
  // `unregistered`: the traits of the op names no registration declares
  // (the dispatcher's families and ATen ops of a known shape: what
  // default_registry() starts from, catalog/shipped_op_declarations.h)
  // and the wording the model's messages use.
  explicit OpRegistry(OpTraitsTable unregistered = {});
  // Throws std::logic_error naming both registrations on a duplicate name,
  // and naming the op when its traits say it has a torch_reference it lacks
  // (one it has sets the trait). Its traits join traits().
  void add(OpDef def);
  const OpDef* find(const std::string& name) const;
  // Up to three known names closest to `name` (edit distance), best first.
  std::vector<std::string> nearest(const std::string& name) const;
  std::vector<std::string> names() const;
  // The unregistered table with every registered op's own traits: what the
  // case model is given (casebook/op_traits.h).
  const OpTraitsTable& traits() const { return traits_; }

 private:
  std::map<std::string, OpDef> ops_;
  OpTraitsTable traits_;
};

// Registers LibTorch's ops that casebook binds itself (torch.*) and the input
// contracts (validate.*); the kernels.* ops are kernel_ops' (register_all,
// casebook/op_catalog.h, calls every room's).
void register_torch_ops(OpRegistry& registry);
void register_validate_ops(OpRegistry& registry);

// Checks a case against its op's signature (input count, argument names);
// returns the problems as "file:line:col: message" lines, empty when fine.
std::vector<std::string> check_case_against_op(const Case& kase,
                                               const OpRegistry& registry);

// The op a case runs: a registered op (torch.*, validate.*, kernels.*), else
// any ATen operator the running LibTorch has (`torch.<name>`,
// `aten::<name>[.<overload>]`), bound to the case's inputs and args by the
// operator's schema (framework/src/ops/aten_op.cpp). `def` is null when
// `problems` (as check_case_against_op gives them) is not empty; `generated`
// owns `def` for a dispatcher op.
struct ResolvedOp {
  const OpDef* def = nullptr;
  std::shared_ptr<const OpDef> generated;
  std::vector<std::string> problems;
};
ResolvedOp resolve_op(const Case& kase, const OpRegistry& registry);

}  // namespace casebook

#define CASEBOOK_OP_SITE __FILE__, __LINE__
