// OpCall's typed argument access. A case that gives an argument of the wrong
// kind is the case's fault: InvalidCaseError naming the argument and where
// it was written.

#include "casebook/number_text.h"
#include "casebook/ops.h"

namespace casebook {
namespace {

std::string describe(const ArgValue& value) {
  switch (value.kind) {
    case ArgValue::Kind::kNull:
      return "null";
    case ArgValue::Kind::kBool:
      return std::string("the boolean ") +
             (value.bool_value ? "true" : "false");
    case ArgValue::Kind::kInt:
      return "the integer " + std::to_string(value.int_value);
    case ArgValue::Kind::kFloat:  // as written: 1.0 is no integer
      return "the number " + yaml_float(value.float_value);
    case ArgValue::Kind::kString:
      return "the string `" + value.string_value + "`";
    case ArgValue::Kind::kList:
      return "a list of " + std::to_string(value.list.size());
    case ArgValue::Kind::kGenerator:
      return "the generator {seed: " + std::to_string(value.int_value) + "}";
  }
  return "an unknown value";
}

[[noreturn]] void wrong_kind(const std::string& name, const ArgValue& value,
                             const std::string& expected) {
  throw InvalidCaseError(at_place(value.where, "argument `" + name +
                                                   "`: expected " + expected +
                                                   ", got " + describe(value)));
}

}  // namespace

const at::Tensor& OpCall::input(size_t index) const {
  if (index >= inputs.size()) {
    throw InvalidCaseError("the op needs input #" + std::to_string(index + 1) +
                           ", the case gives " + std::to_string(inputs.size()) +
                           " inputs");
  }
  return inputs[index];
}

OpCall OpCall::with_inputs(const std::vector<at::Tensor>& placed) const {
  return OpCall{placed, args, backend,    device,
                count,  step, after_step, float64_args};
}

bool OpCall::has_arg(const std::string& name) const {
  const auto found = args.find(name);
  return found != args.end() && found->second.kind != ArgValue::Kind::kNull;
}

const SourceLocation& OpCall::arg_where(const std::string& name) const {
  static const SourceLocation kNowhere;
  const auto found = args.find(name);
  return found == args.end() ? kNowhere : found->second.where;
}

int64_t OpCall::arg_int(const std::string& name, int64_t fallback) const {
  if (!has_arg(name)) return fallback;
  const ArgValue& value = args.at(name);
  if (value.kind != ArgValue::Kind::kInt) wrong_kind(name, value, "an integer");
  return value.int_value;
}

double OpCall::arg_double(const std::string& name, double fallback) const {
  if (!has_arg(name)) return fallback;
  const ArgValue& value = args.at(name);
  if (value.kind == ArgValue::Kind::kInt) {
    return static_cast<double>(value.int_value);
  }
  if (value.kind != ArgValue::Kind::kFloat) wrong_kind(name, value, "a number");
  return value.float_value;
}

bool OpCall::arg_bool(const std::string& name, bool fallback) const {
  if (!has_arg(name)) return fallback;
  const ArgValue& value = args.at(name);
  if (value.kind != ArgValue::Kind::kBool) {
    wrong_kind(name, value, "true or false");
  }
  return value.bool_value;
}

std::string OpCall::arg_string(const std::string& name,
                               const std::string& fallback) const {
  if (!has_arg(name)) return fallback;
  const ArgValue& value = args.at(name);
  if (value.kind != ArgValue::Kind::kString) {
    wrong_kind(name, value, "a string");
  }
  return value.string_value;
}

// A single integer is a list of one: `dim: 1` and `dim: [1]` mean the same.
std::vector<int64_t> OpCall::arg_int_list(const std::string& name,
                                          std::vector<int64_t> fallback) const {
  if (!has_arg(name)) return fallback;
  const ArgValue& value = args.at(name);
  if (value.kind == ArgValue::Kind::kInt) return {value.int_value};
  if (value.kind != ArgValue::Kind::kList) {
    wrong_kind(name, value, "an integer or a list of integers");
  }
  std::vector<int64_t> ints;
  for (const ArgValue& item : value.list) {
    if (item.kind != ArgValue::Kind::kInt) {
      wrong_kind(name, item, "a list of integers");
    }
    ints.push_back(item.int_value);
  }
  return ints;
}

std::optional<int64_t> OpCall::arg_optional_int(const std::string& name) const {
  if (!has_arg(name)) return std::nullopt;
  return arg_int(name, 0);
}

void OpCall::report_count(int64_t processed,
                          std::vector<int64_t> rejected) const {
  if (count == nullptr) return;
  count->reported = true;
  count->processed = processed;
  count->rejected = std::move(rejected);
}

}  // namespace casebook

namespace casebook {

std::map<std::string, ArgValue> promote_dtype_args(
    std::map<std::string, ArgValue> args) {
  for (auto& [name, value] : args) {
    if (value.kind != ArgValue::Kind::kString) continue;
    const auto dtype = parse_dtype(value.string_value);
    if (dtype && is_floating(*dtype)) value.string_value = "float64";
  }
  return args;
}

}  // namespace casebook
