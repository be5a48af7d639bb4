#include "ops/aten_schema.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Context.h>
#include <ATen/core/ivalue.h>
#include <c10/core/Layout.h>
#include <c10/core/MemoryFormat.h>
#include <torch/version.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "casebook/loader.h"
#include "casebook/ops.h"
#include "casebook/suggestions.h"
#include "ops/input_reading.h"
#include "ops/names.h"

namespace casebook::aten {
namespace {

bool is_optional(const std::string& type) {
  return !type.empty() && type.back() == '?';
}

std::string base_type(const std::string& type) {
  return is_optional(type) ? type.substr(0, type.size() - 1) : type;
}

bool is_tensor_type(const std::string& base) {
  return base == "Tensor" || base == "Tensor[]" || base == "Tensor?[]";
}

std::string describe(const ArgValue& value) {
  switch (value.kind) {
    case ArgValue::Kind::kNull:
      return "null";
    case ArgValue::Kind::kBool:
      return value.bool_value ? "true" : "false";
    case ArgValue::Kind::kInt:
      return std::to_string(value.int_value);
    case ArgValue::Kind::kFloat: {
      std::ostringstream out;
      out << value.float_value;
      return out.str();
    }
    case ArgValue::Kind::kString:
      return "`" + value.string_value + "`";
    case ArgValue::Kind::kList: {
      std::string text = "[";
      for (size_t i = 0; i < value.list.size(); ++i) {
        text += (i ? ", " : "") + describe(value.list[i]);
      }
      return text + "]";
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
  return join_names(names);
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

// The name a case may give a schema argument: its own, and `input` for
// `self`, as Python's torch.<name>(input, ...) spells it.
bool names_argument(const std::string& given, const c10::Argument& argument) {
  return given == argument.name() ||
         (argument.name() == "self" && given == "input");
}

// `weights[3]` -> ("weights", 3); nullopt for a plain name.
std::optional<std::pair<std::string, size_t>> list_element(
    const std::string& name) {
  const size_t open = name.find('[');
  if (open == std::string::npos || open == 0 || name.back() != ']') {
    return std::nullopt;
  }
  const std::string digits = name.substr(open + 1, name.size() - open - 2);
  if (digits.empty() || digits.size() > 6 ||
      digits.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  return std::make_pair(name.substr(0, open), std::stoul(digits));
}

std::vector<std::string> all_argument_names(const c10::FunctionSchema& schema) {
  std::vector<std::string> names;
  for (const c10::Argument& argument : schema.arguments()) {
    names.push_back(argument.name());
  }
  return names;
}

std::string unknown_name(const std::string& given, const std::string& what,
                         const c10::FunctionSchema& schema) {
  std::string message = "no argument named `" + given + "` (" + what + ")";
  const std::string nearest = nearest_name(given, all_argument_names(schema));
  if (!nearest.empty()) message += "; did you mean `" + nearest + "`?";
  return message;
}

}  // namespace

std::string libtorch_version() { return TORCH_VERSION; }

std::string argument_type(const c10::Argument& argument) {
  // real_type() keeps ScalarType and Layout apart from int.
  std::string type = argument.real_type()->str();
  for (size_t at = type.find("SymInt"); at != std::string::npos;
       at = type.find("SymInt", at)) {
    type.replace(at, 6, "int");
  }
  return type;
}

std::string operator_name(const std::string& case_op,
                          std::optional<std::string>* overload) {
  *overload = std::nullopt;
  std::string rest;
  if (case_op.rfind("torch.", 0) == 0) {
    rest = case_op.substr(6);
    if (rest.find('.') != std::string::npos) return "";  // torch.nn.x
  } else if (case_op.rfind("aten::", 0) == 0) {
    rest = case_op.substr(6);
    const size_t dot = rest.find('.');
    if (dot != std::string::npos) {
      *overload = rest.substr(dot + 1);
      rest = rest.substr(0, dot);
    }
  } else {
    return "";
  }
  if (rest.empty()) return "";
  return "aten::" + rest;
}

namespace {

// name -> overload names, built once: the dispatcher lists every operator.
const std::map<std::string, std::vector<std::string>>& overload_index() {
  static const std::map<std::string, std::vector<std::string>> index = [] {
    std::map<std::string, std::vector<std::string>> built;
    c10::Dispatcher& dispatcher = c10::Dispatcher::singleton();
    for (const c10::OperatorName& name : dispatcher.getAllOpNames()) {
      if (!dispatcher.findSchema(name)) continue;
      built[name.name].push_back(name.overload_name);
    }
    return built;
  }();
  return index;
}

bool has_out_argument(const c10::FunctionSchema& schema) {
  for (const c10::Argument& argument : schema.arguments()) {
    if (argument.is_out()) return true;
  }
  return false;
}

}  // namespace

std::vector<c10::OperatorHandle> overloads_of(const std::string& name) {
  std::vector<c10::OperatorHandle> handles;
  const auto& index = overload_index();
  const auto found = index.find(name);
  if (found == index.end()) return handles;
  c10::Dispatcher& dispatcher = c10::Dispatcher::singleton();
  for (const std::string& overload : found->second) {
    if (auto handle = dispatcher.findSchema({name, overload})) {
      handles.push_back(*handle);
    }
  }
  auto rank = [](const c10::OperatorHandle& handle) {
    const c10::FunctionSchema& schema = handle.schema();
    const int group = schema.overload_name().empty() ? 0
                      : has_out_argument(schema)     ? 2
                                                     : 1;
    return std::make_pair(group, schema.overload_name());
  };
  std::sort(handles.begin(), handles.end(),
            [&](const c10::OperatorHandle& a, const c10::OperatorHandle& b) {
              return rank(a) < rank(b);
            });
  return handles;
}

const std::vector<std::string>& all_operator_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> built;
    for (const auto& [name, overloads] : overload_index()) {
      built.push_back(name);
    }
    return built;
  }();
  return names;
}

std::string schema_text(const c10::FunctionSchema& schema) {
  std::ostringstream out;
  out << schema;
  return out.str();
}

// `{seed: N}`: a generator of `device` (LibTorch's CPU or CUDA one) seeded
// with N, as torch.Generator(device).manual_seed(N) is.
static at::Generator seeded_generator(int64_t seed, c10::Device device) {
  at::Generator generator =
      device.is_cpu() ? at::detail::createCPUGenerator()
                      : at::globalContext().defaultGenerator(device).clone();
  generator.set_current_seed(static_cast<uint64_t>(seed));
  return generator;
}

std::optional<c10::IValue> to_ivalue(const c10::Argument& argument,
                                     const ArgValue& value, std::string* why) {
  const std::string type = argument_type(argument);
  const std::string base = base_type(type);
  auto fail = [&](const std::string& expected) -> std::optional<c10::IValue> {
    *why = "expected " + expected + " (" + type + "), got " + describe(value);
    return std::nullopt;
  };
  if (value.kind == ArgValue::Kind::kNull) {
    if (is_optional(type)) return c10::IValue();
    return fail("a value, not null");
  }
  if (base == "Generator") {
    // Made on the backend's device when called (call()); here: accepted.
    if (value.kind != ArgValue::Kind::kGenerator) {
      return fail("`{seed: N}`, a generator seeded with N");
    }
    return seeded_generator(value.int_value, c10::Device(c10::kCPU));
  }
  if (value.kind == ArgValue::Kind::kGenerator) {
    return fail("a value; `{seed: N}` is for a Generator argument");
  }
  if (base == "int" && argument.name() == "reduction" &&
      value.kind == ArgValue::Kind::kString) {
    // Python's `reduction='mean'` is the schema's int (at::Reduction).
    static const std::map<std::string, int64_t> reductions{
        {"none", 0}, {"mean", 1}, {"sum", 2}};
    const auto found = reductions.find(value.string_value);
    if (found == reductions.end()) return fail("mean, sum, none or an integer");
    return c10::IValue(found->second);
  }
  if (base == "int") {
    if (!is_int(value)) return fail("an integer");
    return c10::IValue(value.int_value);
  }
  if (base == "float") {
    if (!is_number(value)) return fail("a number");
    return c10::IValue(number_of(value));
  }
  if (base == "bool") {
    if (value.kind != ArgValue::Kind::kBool) return fail("true or false");
    return c10::IValue(value.bool_value);
  }
  if (base == "str") {
    if (value.kind != ArgValue::Kind::kString) return fail("a string");
    return c10::IValue(value.string_value);
  }
  if (base == "Scalar") {
    if (value.kind == ArgValue::Kind::kBool)
      return c10::IValue(value.bool_value);
    if (is_int(value)) return c10::IValue(value.int_value);
    if (value.kind == ArgValue::Kind::kFloat) {
      return c10::IValue(value.float_value);
    }
    return fail("a number or true/false");
  }
  if (base == "ScalarType") {
    const std::optional<DType> dtype = value.kind == ArgValue::Kind::kString
                                           ? parse_dtype(value.string_value)
                                           : std::nullopt;
    if (!dtype) {
      fail("a dtype: one of " + dtype_list());
      if (value.kind == ArgValue::Kind::kString) {
        *why += did_you_mean(suggest_dtype(value.string_value));
      }
      return std::nullopt;
    }
    return c10::IValue(scalar_type_of(*dtype));
  }
  if (base == "Layout") {
    if (value.kind != ArgValue::Kind::kString ||
        value.string_value != "strided") {
      return fail("`strided`, the one layout a case's tensors have");
    }
    return c10::IValue(c10::kStrided);
  }
  if (base == "MemoryFormat") {
    const auto& formats = memory_formats();
    const auto found = value.kind == ArgValue::Kind::kString
                           ? formats.find(value.string_value)
                           : formats.end();
    if (found == formats.end()) {
      return fail(
          "one of contiguous_format, preserve_format, channels_last, "
          "channels_last_3d");
    }
    return c10::IValue(found->second);
  }
  if (base == "int[]") {
    const auto items = list_items(argument, value, &is_int);
    if (!items) return fail("a list of integers");
    std::vector<int64_t> ints;
    for (const ArgValue& item : *items) ints.push_back(item.int_value);
    return c10::IValue(ints);
  }
  if (base == "float[]") {
    const auto items = list_items(argument, value, &is_number);
    if (!items) return fail("a list of numbers");
    std::vector<double> numbers;
    for (const ArgValue& item : *items) numbers.push_back(number_of(item));
    return c10::IValue(numbers);
  }
  if (base == "bool[]") {
    const auto items = list_items(argument, value, [](const ArgValue& item) {
      return item.kind == ArgValue::Kind::kBool;
    });
    if (!items) return fail("a list of true/false");
    c10::List<bool> bools;
    for (const ArgValue& item : *items) bools.push_back(item.bool_value);
    return c10::IValue(bools);
  }
  if (base == "Device") {
    *why = "the device is the backend's: a Device argument (" + type +
           ") cannot be given in `args`";
    return std::nullopt;
  }
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

// bind() once every input carries a name of the schema (read_input_names).
std::optional<Binding> bind_by_name(const c10::OperatorHandle& op,
                                    const std::vector<std::string>& input_names,
                                    const std::map<std::string, ArgValue>& args,
                                    std::string* why, std::string* culprit) {
  const c10::FunctionSchema& schema = op.schema();
  Binding binding{op, {}, {}};
  std::vector<bool> input_used(input_names.size(), false);
  std::set<std::string> args_used;
  for (const c10::Argument& argument : schema.arguments()) {
    const std::string type = argument_type(argument);
    const std::string base = base_type(type);
    ArgumentSource source;
    const auto given = std::find_if(args.begin(), args.end(), [&](auto& pair) {
      return names_argument(pair.first, argument);
    });
    if (is_tensor_type(base)) {
      if (base == "Tensor") {
        for (size_t i = 0; i < input_names.size(); ++i) {
          if (!input_used[i] && names_argument(input_names[i], argument)) {
            source.kind = ArgumentSource::Kind::kInput;
            source.inputs = {i};
            input_used[i] = true;
            break;
          }
        }
      } else {
        std::map<size_t, size_t> elements;  // position -> input
        for (size_t i = 0; i < input_names.size(); ++i) {
          const auto element = list_element(input_names[i]);
          if (element && element->first == argument.name()) {
            elements[element->second] = i;
            input_used[i] = true;
          }
        }
        // A Tensor?[] (aten::index's `indices`) may leave a gap: None there
        // (`indices[1]` alone is x[:, idx]); a Tensor[] may not.
        const bool optional_elements = base == "Tensor?[]";
        size_t expected = 0;
        for (const auto& [position, input] : elements) {
          if (position != expected && !optional_elements) {
            *why = "`" + argument.name() + "` is a list of tensors (" + type +
                   "): its inputs must be named " + argument.name() + "[0], " +
                   argument.name() + "[1], ... without a gap";
            return std::nullopt;
          }
          for (; expected < position; ++expected) {
            source.inputs.push_back(ArgumentSource::kNoTensor);
          }
          source.inputs.push_back(input);
          ++expected;
        }
        if (!elements.empty()) source.kind = ArgumentSource::Kind::kInputList;
      }
      if (source.inputs.empty()) {
        if (given != args.end() &&
            given->second.kind == ArgValue::Kind::kNull && is_optional(type)) {
          source.kind = ArgumentSource::Kind::kNone;
          args_used.insert(given->first);
        } else if (given != args.end()) {
          *culprit = given->first;
          *why = "`" + given->first + "` is a tensor (" + type +
                 "): give it under `inputs`";
          return std::nullopt;
        } else if (argument.default_value()) {
          source.kind = ArgumentSource::Kind::kDefault;
        } else if (is_optional(type)) {
          source.kind = ArgumentSource::Kind::kNone;
        } else {
          *why = "the required input `" + argument.name() + "` (" + type +
                 ") is missing";
          return std::nullopt;
        }
      }
      binding.sources.push_back(source);
      continue;
    }
    for (size_t i = 0; i < input_names.size(); ++i) {
      if (!input_used[i] && names_argument(input_names[i], argument)) {
        *culprit = input_names[i];
        *why = "`" + input_names[i] + "` is a " + type +
               ", not a tensor: give it under `args`";
        return std::nullopt;
      }
    }
    if (given != args.end()) {
      std::string problem;
      if (!to_ivalue(argument, given->second, &problem)) {
        *culprit = given->first;
        *why = "`args." + given->first + "`: " + problem;
        return std::nullopt;
      }
      source.kind = ArgumentSource::Kind::kArg;
      source.arg = given->first;
      args_used.insert(given->first);
    } else if (base == "Device") {
      source.kind = ArgumentSource::Kind::kDevice;
    } else if (argument.default_value()) {
      source.kind = ArgumentSource::Kind::kDefault;
    } else if (is_optional(type)) {
      source.kind = ArgumentSource::Kind::kNone;
    } else {
      *why = "the required argument `" + argument.name() + "` (" + type +
             ") is missing from `args`";
      return std::nullopt;
    }
    binding.sources.push_back(source);
  }
  for (size_t i = 0; i < input_names.size(); ++i) {
    if (!input_used[i]) {
      *culprit = input_names[i];
      *why = unknown_name(input_names[i], "an input", schema);
      return std::nullopt;
    }
  }
  for (const auto& [name, value] : args) {
    if (args_used.count(name) == 0) {
      *culprit = name;
      *why = unknown_name(name, "in `args`", schema);
      return std::nullopt;
    }
  }
  return binding;
}

}  // namespace

std::optional<Binding> bind(const c10::OperatorHandle& op,
                            const std::vector<std::string>& input_names,
                            const std::map<std::string, ArgValue>& args,
                            std::string* why, std::string* culprit) {
  std::string ignored;
  if (culprit == nullptr) culprit = &ignored;
  culprit->clear();
  const std::optional<std::vector<std::string>> read =
      read_input_names(op.schema(), input_names, why, culprit);
  if (!read) return std::nullopt;
  std::optional<Binding> binding = bind_by_name(op, *read, args, why, culprit);
  // The culprit as the case wrote it, where it was read by position.
  for (size_t i = 0; i < read->size(); ++i) {
    if (!culprit->empty() && (*read)[i] == *culprit) {
      *culprit = input_names[i];
    }
  }
  if (binding) {
    binding->input_arguments.assign(input_names.size(), "");
    const auto& arguments = op.schema().arguments();
    for (size_t a = 0; a < binding->sources.size(); ++a) {
      const ArgumentSource& source = binding->sources[a];
      for (size_t k = 0; k < source.inputs.size(); ++k) {
        if (source.inputs[k] == ArgumentSource::kNoTensor) continue;
        binding->input_arguments.at(source.inputs[k]) =
            source.kind == ArgumentSource::Kind::kInputList
                ? arguments[a].name() + "[" + std::to_string(k) + "]"
                : arguments[a].name();
      }
    }
  }
  return binding;
}

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
        if (base_type(argument_type(argument)) == "Tensor?[]") {
          c10::List<c10::optional<at::Tensor>> list;
          for (size_t input : source.inputs) {
            if (input == ArgumentSource::kNoTensor) {
              list.push_back(c10::nullopt);
            } else {
              list.push_back(inputs.at(input));
            }
          }
          stack.emplace_back(list);
        } else {
          std::vector<at::Tensor> list;
          for (size_t input : source.inputs) list.push_back(inputs.at(input));
          stack.emplace_back(list);
        }
        break;
      case ArgumentSource::Kind::kArg: {
        const ArgValue& value = args.at(source.arg);
        if (value.kind == ArgValue::Kind::kGenerator &&
            base_type(argument_type(argument)) == "Generator") {
          // A generator of the backend's own device: a GPU's draws other
          // numbers than the CPU's from the same seed.
          stack.emplace_back(seeded_generator(value.int_value, device));
          break;
        }
        std::string why;
        std::optional<c10::IValue> converted = to_ivalue(argument, value, &why);
        if (!converted) {
          throw InvalidCaseError(format_location(value.where) + ": `args." +
                                 source.arg + "`: " + why);
        }
        stack.push_back(std::move(*converted));
        break;
      }
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
