// ops/aten_schema.h's values: a case's YAML values as the IValues of a
// schema's arguments (to_ivalue), and the boxed call that takes them (call).
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Context.h>
#include <ATen/core/ivalue.h>
#include <c10/core/Layout.h>
#include <c10/core/MemoryFormat.h>

#include <map>

#include "casebook/invalid_case_error.h"
#include "casebook/joined.h"
#include "casebook/number_text.h"
#include "casebook/suggestions.h"
#include "ops/aten_schema.h"
#include "ops/names.h"

namespace casebook::aten {
namespace {

std::string describe(const ArgValue& value) {
  switch (value.kind) {
    case ArgValue::Kind::kNull:
      return "null";
    case ArgValue::Kind::kBool:
      return value.bool_value ? "true" : "false";
    case ArgValue::Kind::kInt:
      return std::to_string(value.int_value);
    case ArgValue::Kind::kFloat:  // as written: 1.0 is no integer
      return yaml_float(value.float_value);
    case ArgValue::Kind::kString:
      return "`" + value.string_value + "`";
    case ArgValue::Kind::kList: {
      return "[" + joined(value.list, ", ", describe) + "]";
    }
    case ArgValue::Kind::kGenerator:
      return "a generator {seed: " + std::to_string(value.int_value) + "}";
  }
  return "?";
}

bool is_int(const ArgValue& value) {
  return value.kind == ArgValue::Kind::kInt;
}
bool is_number(const ArgValue& value) {
  return value.kind == ArgValue::Kind::kInt ||
         value.kind == ArgValue::Kind::kFloat;
}
bool is_bool(const ArgValue& value) {
  return value.kind == ArgValue::Kind::kBool;
}
double number_of(const ArgValue& value) {
  return value.kind == ArgValue::Kind::kInt
             ? static_cast<double>(value.int_value)
             : value.float_value;
}

// `int[2] padding` takes `padding: 1` as [1, 1], as Python does.
std::optional<std::vector<ArgValue>> list_items(const c10::Argument& argument,
                                                const ArgValue& value,
                                                bool (*fits)(const ArgValue&)) {
  if (value.kind == ArgValue::Kind::kList) {
    for (const ArgValue& item : value.list) {
      if (!fits(item)) return std::nullopt;
    }
    return value.list;
  }
  if (argument.N() && fits(value)) {
    return std::vector<ArgValue>(static_cast<size_t>(*argument.N()), value);
  }
  return std::nullopt;
}

const std::map<std::string, c10::MemoryFormat>& memory_formats() {
  static const std::map<std::string, c10::MemoryFormat> formats{
      {"contiguous_format", c10::MemoryFormat::Contiguous},
      {"preserve_format", c10::MemoryFormat::Preserve},
      {"channels_last", c10::MemoryFormat::ChannelsLast},
      {"channels_last_3d", c10::MemoryFormat::ChannelsLast3d}};
  return formats;
}

std::string dtype_list() {
  std::vector<std::string> names;
  for (DType dtype : all_dtypes()) names.emplace_back(dtype_name(dtype));
  return joined(names);
}

c10::ScalarType scalar_type_of(DType dtype) {
  switch (dtype) {
    case DType::kBool:
      return c10::kBool;
    case DType::kUInt8:
      return c10::kByte;
    case DType::kInt8:
      return c10::kChar;
    case DType::kInt16:
      return c10::kShort;
    case DType::kInt32:
      return c10::kInt;
    case DType::kInt64:
      return c10::kLong;
    case DType::kFloat16:
      return c10::kHalf;
    case DType::kBFloat16:
      return c10::kBFloat16;
    case DType::kFloat32:
      return c10::kFloat;
    case DType::kFloat64:
      return c10::kDouble;
    case DType::kComplex64:
      return c10::kComplexFloat;
    case DType::kComplex128:
      return c10::kComplexDouble;
  }
  return c10::kFloat;
}

// `{seed: N}`: a generator of `device` (LibTorch's CPU or CUDA one) seeded
// with N, as torch.Generator(device).manual_seed(N) is.
at::Generator seeded_generator(int64_t seed, c10::Device device) {
  at::Generator generator =
      device.is_cpu() ? at::detail::createCPUGenerator()
                      : at::globalContext().defaultGenerator(device).clone();
  generator.set_current_seed(static_cast<uint64_t>(seed));
  return generator;
}

using Converted = std::optional<c10::IValue>;

// One value being converted to one argument's type; fail() says what the
// type takes instead.
struct Conversion {
  const c10::Argument& argument;
  const ArgValue& value;
  const std::string& type;  // argument_type(argument)
  std::string* why;

  Converted fail(const std::string& expected) const {
    *why = "expected " + expected + " (" + type + "), got " + describe(value);
    return std::nullopt;
  }
};

Converted to_generator(const Conversion& c) {
  // Made on the backend's device when called (call()); here: accepted.
  if (c.value.kind != ArgValue::Kind::kGenerator) {
    return c.fail("`{seed: N}`, a generator seeded with N");
  }
  return seeded_generator(c.value.int_value, c10::Device(c10::kCPU));
}

Converted to_int(const Conversion& c) {
  if (c.argument.name() == "reduction" &&
      c.value.kind == ArgValue::Kind::kString) {
    // Python's `reduction='mean'` is the schema's int (at::Reduction).
    static const std::map<std::string, int64_t> reductions{
        {"none", 0}, {"mean", 1}, {"sum", 2}};
    const auto found = reductions.find(c.value.string_value);
    if (found == reductions.end()) {
      return c.fail("mean, sum, none or an integer");
    }
    return c10::IValue(found->second);
  }
  if (!is_int(c.value)) return c.fail("an integer");
  return c10::IValue(c.value.int_value);
}

Converted to_float(const Conversion& c) {
  if (!is_number(c.value)) return c.fail("a number");
  return c10::IValue(number_of(c.value));
}

Converted to_bool(const Conversion& c) {
  if (!is_bool(c.value)) return c.fail("true or false");
  return c10::IValue(c.value.bool_value);
}

Converted to_str(const Conversion& c) {
  if (c.value.kind != ArgValue::Kind::kString) return c.fail("a string");
  return c10::IValue(c.value.string_value);
}

// A complex Scalar is written `[real, imaginary]`, as a complex tensor's
// values are (Python's 1j is [0, 1]).
bool is_complex_pair(const ArgValue& value) {
  return value.kind == ArgValue::Kind::kList && value.list.size() == 2 &&
         is_number(value.list[0]) && is_number(value.list[1]);
}

std::optional<c10::IValue> scalar_value(const ArgValue& value) {
  if (is_bool(value)) return c10::IValue(value.bool_value);
  if (is_int(value)) return c10::IValue(value.int_value);
  if (value.kind == ArgValue::Kind::kFloat) {
    return c10::IValue(value.float_value);
  }
  if (is_complex_pair(value)) {
    return c10::IValue(c10::complex<double>(number_of(value.list[0]),
                                            number_of(value.list[1])));
  }
  return std::nullopt;
}

Converted to_scalar(const Conversion& c) {
  if (auto scalar = scalar_value(c.value)) return scalar;
  return c.fail("a number, true/false, or [real, imaginary] for a complex");
}

// `Scalar[]` (gradient's `spacing`): a list of what `Scalar` takes.
Converted to_scalar_list(const Conversion& c) {
  if (c.value.kind != ArgValue::Kind::kList) {
    return c.fail("a list of numbers, true/false or [real, imaginary]");
  }
  c10::impl::GenericList scalars(c10::NumberType::get());
  for (const ArgValue& item : c.value.list) {
    auto scalar = scalar_value(item);
    if (!scalar) {
      return c.fail("a list of numbers, true/false or [real, imaginary]");
    }
    scalars.push_back(std::move(*scalar));
  }
  return c10::IValue(scalars);
}

Converted to_scalar_type(const Conversion& c) {
  const bool text = c.value.kind == ArgValue::Kind::kString;
  const std::optional<DType> dtype =
      text ? parse_dtype(c.value.string_value) : std::nullopt;
  if (dtype) return c10::IValue(scalar_type_of(*dtype));
  c.fail("a dtype: one of " + dtype_list());
  if (text) *c.why += did_you_mean(suggest_dtype(c.value.string_value));
  return std::nullopt;
}

Converted to_layout(const Conversion& c) {
  if (c.value.kind != ArgValue::Kind::kString ||
      c.value.string_value != "strided") {
    return c.fail("`strided`, the one layout a case's tensors have");
  }
  return c10::IValue(c10::kStrided);
}

Converted to_memory_format(const Conversion& c) {
  const auto& formats = memory_formats();
  const auto found = c.value.kind == ArgValue::Kind::kString
                         ? formats.find(c.value.string_value)
                         : formats.end();
  if (found == formats.end()) {
    return c.fail(
        "one of contiguous_format, preserve_format, channels_last, "
        "channels_last_3d");
  }
  return c10::IValue(found->second);
}

Converted to_int_list(const Conversion& c) {
  const auto items = list_items(c.argument, c.value, &is_int);
  if (!items) return c.fail("a list of integers");
  std::vector<int64_t> ints;
  for (const ArgValue& item : *items) ints.push_back(item.int_value);
  return c10::IValue(ints);
}

Converted to_float_list(const Conversion& c) {
  const auto items = list_items(c.argument, c.value, &is_number);
  if (!items) return c.fail("a list of numbers");
  std::vector<double> numbers;
  for (const ArgValue& item : *items) numbers.push_back(number_of(item));
  return c10::IValue(numbers);
}

Converted to_bool_list(const Conversion& c) {
  const auto items = list_items(c.argument, c.value, &is_bool);
  if (!items) return c.fail("a list of true/false");
  c10::List<bool> bools;
  for (const ArgValue& item : *items) bools.push_back(item.bool_value);
  return c10::IValue(bools);
}

Converted refuse_device(const Conversion& c) {
  *c.why = "the device is the backend's: a Device argument (" + c.type +
           ") cannot be given in `args`";
  return std::nullopt;
}

// The schema types a case gives in `args`, by base type (no `?`).
const std::map<std::string, Converted (*)(const Conversion&)>& converters() {
  static const std::map<std::string, Converted (*)(const Conversion&)> table{
      {"Generator", &to_generator},
      {"int", &to_int},
      {"float", &to_float},
      {"bool", &to_bool},
      {"str", &to_str},
      {"Scalar", &to_scalar},
      {"Scalar[]", &to_scalar_list},
      {"ScalarType", &to_scalar_type},
      {"Layout", &to_layout},
      {"MemoryFormat", &to_memory_format},
      {"int[]", &to_int_list},
      {"float[]", &to_float_list},
      {"bool[]", &to_bool_list},
      {"Device", &refuse_device},
  };
  return table;
}

}  // namespace

std::optional<c10::IValue> to_ivalue(const c10::Argument& argument,
                                     const ArgValue& value, std::string* why) {
  const std::string type = argument_type(argument);
  const std::string base = base_type(type);
  const Conversion conversion{argument, value, type, why};
  if (value.kind == ArgValue::Kind::kNull) {
    if (is_optional(type)) return c10::IValue();
    return conversion.fail("a value, not null");
  }
  if (value.kind == ArgValue::Kind::kGenerator && base != "Generator") {
    return conversion.fail("a value; `{seed: N}` is for a Generator argument");
  }
  const auto found = converters().find(base);
  if (found != converters().end()) return found->second(conversion);
  if (is_tensor_type(base)) {
    *why = "`" + argument.name() + "` is a tensor (" + type +
           "): give it under `inputs`";
    return std::nullopt;
  }
  *why = "casebook cannot build the schema type `" + type +
         "` from YAML (argument `" + argument.name() + "`)";
  return std::nullopt;
}

namespace {

// Tensor[] or Tensor?[] (kNoTensor: None) from the case's inputs.
c10::IValue tensor_list(const c10::Argument& argument,
                        const ArgumentSource& source,
                        const std::vector<at::Tensor>& inputs) {
  if (base_type(argument_type(argument)) == "Tensor?[]") {
    c10::List<c10::optional<at::Tensor>> list;
    for (size_t input : source.inputs) {
      if (input == ArgumentSource::kNoTensor) {
        list.push_back(c10::nullopt);
      } else {
        list.push_back(inputs.at(input));
      }
    }
    return c10::IValue(list);
  }
  std::vector<at::Tensor> list;
  for (size_t input : source.inputs) list.push_back(inputs.at(input));
  return c10::IValue(list);
}

// `args.<name>` as the argument's IValue, a generator on `device`.
c10::IValue arg_value(const c10::Argument& argument,
                      const ArgumentSource& source,
                      const std::map<std::string, ArgValue>& args,
                      c10::Device device) {
  const ArgValue& value = args.at(source.arg);
  if (value.kind == ArgValue::Kind::kGenerator &&
      base_type(argument_type(argument)) == "Generator") {
    // A generator of the backend's own device: a GPU's draws other
    // numbers than the CPU's from the same seed.
    return seeded_generator(value.int_value, device);
  }
  std::string why;
  std::optional<c10::IValue> converted = to_ivalue(argument, value, &why);
  CASEBOOK_CHECK_INPUT(converted, value.where,
                       "`args." + source.arg + "`: " + why);
  return std::move(*converted);
}

}  // namespace

std::vector<c10::IValue> call(const Binding& binding,
                              const std::vector<at::Tensor>& inputs,
                              const std::map<std::string, ArgValue>& args,
                              c10::Device device) {
  const c10::FunctionSchema& schema = binding.op.schema();
  std::vector<c10::IValue> stack;
  stack.reserve(binding.sources.size());
  for (size_t i = 0; i < binding.sources.size(); ++i) {
    const ArgumentSource& source = binding.sources[i];
    const c10::Argument& argument = schema.arguments()[i];
    switch (source.kind) {
      case ArgumentSource::Kind::kInput:
        stack.emplace_back(inputs.at(source.inputs[0]));
        break;
      case ArgumentSource::Kind::kInputList:
        stack.push_back(tensor_list(argument, source, inputs));
        break;
      case ArgumentSource::Kind::kArg:
        stack.push_back(arg_value(argument, source, args, device));
        break;
      case ArgumentSource::Kind::kDefault:
        stack.push_back(*argument.default_value());
        break;
      case ArgumentSource::Kind::kNone:
        stack.emplace_back();
        break;
      case ArgumentSource::Kind::kDevice:
        stack.emplace_back(device);
        break;
    }
  }
  binding.op.callBoxed(stack);
  return stack;
}

}  // namespace casebook::aten
