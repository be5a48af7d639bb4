#include "ops/op_helpers.h"

#include <ATen/core/Reduction.h>

#include <algorithm>
#include <sstream>

#include "casebook/limits.h"
#include "casebook/suggestions.h"
#include "tensors/materialise.h"

namespace casebook {

OpDef make_op(const char* file, int line, OpDeclaration declaration,
              std::vector<std::string> inputs,
              std::vector<std::string> optional_inputs,
              std::vector<std::string> args, OpFunction run) {
  OpDef def(std::move(declaration));
  def.inputs = std::move(inputs);
  def.optional_inputs = std::move(optional_inputs);
  def.args = std::move(args);
  // Every registered op's `reduction` is arg_reduction's.
  if (std::find(def.args.begin(), def.args.end(), "reduction") !=
      def.args.end()) {
    def.arg_words["reduction"] = reduction_words();
    ArgValue mean;
    mean.kind = ArgValue::Kind::kString;
    mean.string_value = "mean";  // arg_reduction's default
    def.arg_defaults["reduction"] = mean;
  }
  def.run = std::move(run);
  def.file = file;
  def.line = line;
  return def;
}

int64_t required_int(const OpCall& call, const std::string& op,
                     const std::string& name) {
  if (!call.has_arg(name)) {
    throw InvalidCaseError("`" + op + "` needs the argument `" + name +
                           "` (an integer)");
  }
  return call.arg_int(name, 0);
}

std::vector<int64_t> required_int_list(const OpCall& call,
                                       const std::string& op,
                                       const std::string& name) {
  if (!call.has_arg(name)) {
    throw InvalidCaseError("`" + op + "` needs the argument `" + name +
                           "` (a list of integers)");
  }
  return call.arg_int_list(name, {});
}

c10::optional<at::ScalarType> arg_scalar_type(const OpCall& call,
                                              const std::string& name) {
  if (!call.has_arg(name)) return c10::nullopt;
  const std::string text = call.arg_string(name, "");
  const std::optional<DType> dtype = parse_dtype(text);
  CASEBOOK_CHECK_INPUT(dtype, call.arg_where(name),
                       "argument `" + name +
                           "`: expected one of bool, uint8, int8, int16, "
                           "int32, int64, float16, bfloat16, float32, "
                           "float64, got `" +
                           text + "`" + did_you_mean(suggest_dtype(text)));
  return to_scalar_type(*dtype);
}

const std::vector<std::string>& reduction_words() {
  static const std::vector<std::string> words{"mean", "sum", "none"};
  return words;
}

int64_t arg_reduction(const OpCall& call) {
  const std::string reduction = call.arg_string("reduction", "mean");
  if (reduction == "mean") return at::Reduction::Mean;
  if (reduction == "sum") return at::Reduction::Sum;
  if (reduction == "none") return at::Reduction::None;
  throw InvalidCaseError(
      at_place(call.arg_where("reduction"),
               "argument `reduction`: expected mean, sum or none, got `" +
                   reduction + "`"));
}

void refuse_oversized_output(const at::Tensor& output, size_t index) {
  if (!output.defined()) return;
  const std::optional<DType> dtype = to_dtype(output.scalar_type());
  const auto problem = check_output_size(
      static_cast<uint64_t>(output.numel()),
      static_cast<size_t>(output.element_size()),
      dtype ? std::string(dtype_name(*dtype))
            : std::string(c10::toString(output.scalar_type())));
  if (problem) {
    throw InvalidCaseError("output " + std::to_string(index) + ": " + *problem);
  }
}

}  // namespace casebook
