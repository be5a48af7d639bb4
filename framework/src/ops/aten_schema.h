// Any ATen operator through c10::Dispatcher: finding an operator's overloads,
// binding a case's inputs and `args` to a schema by argument name, and
// turning the case's YAML values into the IValues a boxed call takes.
//
// The schema is the only source of truth: names, types and defaults come
// from the running LibTorch (1.13 on the CPU machine, 2.x on GPU machines),
// never from a table of casebook's own. Looking a schema up touches no device.
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "casebook/case.h"

namespace casebook::aten {

// "1.13.0": the LibTorch this process runs.
std::string libtorch_version();

// "aten::softmax" for `torch.softmax`, `aten::softmax` and
// `aten::softmax.int`; the overload after the dot goes to `overload`
// (nullopt: none named). Empty for other op names.
std::string operator_name(const std::string& case_op,
                          std::optional<std::string>* overload);

// Every overload of `name` ("aten::softmax"): the default overload (empty
// overload name) first, then the others by overload name, out= variants
// last, as PyTorch's Python front end tries them.
std::vector<c10::OperatorHandle> overloads_of(const std::string& name);

// Every operator name with a schema ("aten::add"), sorted, each once.
const std::vector<std::string>& all_operator_names();

// An argument's type as a case author reads it: "int[]", "ScalarType?".
// LibTorch 2.x declares sizes SymInt ("SymInt[2] stride") where 1.13 and
// Python say int, and a case gives both as integers: SymInt is shown as int.
// This is the one place that tells the two versions' argument types apart.
std::string argument_type(const c10::Argument& argument);

// Reading an argument_type: "int?" is optional, its base type "int".
inline bool is_optional(const std::string& type) {
  return !type.empty() && type.back() == '?';
}
inline std::string base_type(const std::string& type) {
  return is_optional(type) ? type.substr(0, type.size() - 1) : type;
}
// The base types a case gives under `inputs`, not `args`.
inline bool is_tensor_type(const std::string& base) {
  return base == "Tensor" || base == "Tensor[]" || base == "Tensor?[]";
}

// An argument's schema default as a case's `args` value states it
// (`reduction` as Python spells it, an int[N] default of one value as the
// list it means); nullopt where it has none, or one a case cannot state (a
// ScalarType's enum number is no dtype name).
std::optional<ArgValue> default_arg(const c10::Argument& argument);

// "aten::softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor"
std::string schema_text(const c10::FunctionSchema& schema);

// Where one schema argument's value comes from in a call.
struct ArgumentSource {
  enum class Kind {
    kInput,      // a tensor input of the case: inputs[0]
    kInputList,  // Tensor[] / Tensor?[]: inputs named `arg[0]`, `arg[1]`...
    kArg,        // `args.<name>`, converted by the schema's type
    kDefault,    // the schema's default value
    kNone,       // an optional argument the case does not give
    kDevice,     // a Device the case does not give: the backend's device
  };
  Kind kind = Kind::kDefault;
  // kInput (one), kInputList (in order; kNoTensor: None, in a Tensor?[]).
  std::vector<size_t> inputs;
  static constexpr size_t kNoTensor = static_cast<size_t>(-1);
  std::string arg;  // kArg: the key in the case's `args`
};

// A case bound to one overload: how to build each argument of its schema.
struct Binding {
  c10::OperatorHandle op;
  std::vector<ArgumentSource> sources;  // one per schema argument
  // The schema argument each case input stands for, in the case's order
  // (read_input_names: by name, else by position).
  std::vector<std::string> input_arguments;
};

// Binds a case's input names and args to `op`'s schema, each input by its
// name where it is one of the schema's, else by its position among the
// tensor arguments (ops/input_reading.h). nullopt, with the
// reason in `why`, when the schema does not accept every input and argument
// by name and type, or misses a required one; `culprit` (may be null) then
// names the input or argument at fault (empty: a missing one).
std::optional<Binding> bind(const c10::OperatorHandle& op,
                            const std::vector<std::string>& input_names,
                            const std::map<std::string, ArgValue>& args,
                            std::string* why, std::string* culprit = nullptr);

// A case value as the IValue of a schema argument; nullopt with the expected
// form in `why` when it does not fit the argument's type (or the type is one
// casebook cannot build from YAML: `why` names it).
std::optional<c10::IValue> to_ivalue(const c10::Argument& argument,
                                     const ArgValue& value, std::string* why);

// Runs `binding` on `inputs` (the case's tensors, in the case's order) and
// `args`; the stack the operator returns, one IValue per schema return.
// Errors in a value are InvalidCaseError naming where it was written.
std::vector<c10::IValue> call(const Binding& binding,
                              const std::vector<at::Tensor>& inputs,
                              const std::map<std::string, ArgValue>& args,
                              c10::Device device);

}  // namespace casebook::aten
