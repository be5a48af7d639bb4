#include "ops/aten_schema.h"

#include <torch/version.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "casebook/loader.h"
#include "ops/input_reading.h"

namespace casebook::aten {
namespace {

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

namespace {

ArgValue arg_of(ArgValue::Kind kind) {
  ArgValue value;
  value.kind = kind;
  return value;
}

// An integer default: `reduction` as Python spells it, an int[N] of one
// value as the list it means (`stride=1`); nullopt for a ScalarType's enum
// number (no dtype name).
std::optional<ArgValue> integer_default(const c10::Argument& argument,
                                        int64_t number) {
  const std::string type = argument_type(argument);
  if (type.rfind("ScalarType", 0) == 0) return std::nullopt;
  if (argument.name() == "reduction" && type == "int" && number >= 0 &&
      number <= 2) {
    ArgValue word = arg_of(ArgValue::Kind::kString);
    word.string_value = number == 0 ? "none" : number == 1 ? "mean" : "sum";
    return word;
  }
  ArgValue integer = arg_of(ArgValue::Kind::kInt);
  integer.int_value = number;
  if (!argument.N()) return integer;
  ArgValue list = arg_of(ArgValue::Kind::kList);
  list.list.assign(static_cast<size_t>(*argument.N()), integer);
  return list;
}

}  // namespace

std::optional<ArgValue> default_arg(const c10::Argument& argument) {
  if (!argument.default_value()) return std::nullopt;
  const c10::IValue& value = *argument.default_value();
  if (value.isNone()) return arg_of(ArgValue::Kind::kNull);
  if (value.isBool()) {
    ArgValue flag = arg_of(ArgValue::Kind::kBool);
    flag.bool_value = value.toBool();
    return flag;
  }
  if (value.isInt()) return integer_default(argument, value.toInt());
  if (value.isDouble()) {
    ArgValue real = arg_of(ArgValue::Kind::kFloat);
    real.float_value = value.toDouble();
    return real;
  }
  if (value.isString()) {
    ArgValue text = arg_of(ArgValue::Kind::kString);
    text.string_value = value.toStringRef();
    return text;
  }
  if (value.isIntList()) {
    ArgValue list = arg_of(ArgValue::Kind::kList);
    for (const int64_t item : value.toIntVector()) {
      ArgValue integer = arg_of(ArgValue::Kind::kInt);
      integer.int_value = item;
      list.list.push_back(integer);
    }
    return list;
  }
  return std::nullopt;
}

std::string schema_text(const c10::FunctionSchema& schema) {
  std::ostringstream out;
  out << schema;
  return out.str();
}

namespace {

// Binds a schema's arguments one at a time to the case's inputs and `args`
// by name, keeping which of them are taken. Where a method returns nullopt
// or false it has set `why`, and `culprit` where an input or arg is at fault.
class NameBinder {
 public:
  NameBinder(const c10::FunctionSchema& schema,
             const std::vector<std::string>& input_names,
             const std::map<std::string, ArgValue>& args, std::string* why,
             std::string* culprit)
      : schema_(schema),
        input_names_(input_names),
        args_(args),
        input_used_(input_names.size(), false),
        why_(why),
        culprit_(culprit) {}

  std::optional<ArgumentSource> bind(const c10::Argument& argument) {
    const std::string type = argument_type(argument);
    const auto given = std::find_if(
        args_.begin(), args_.end(),
        [&](auto& pair) { return names_argument(pair.first, argument); });
    const Given* arg = given == args_.end() ? nullptr : &*given;
    if (is_tensor_type(base_type(type))) {
      return bind_tensor(argument, type, arg);
    }
    return bind_value(argument, type, arg);
  }

  // False at the first input, then the first of `args`, no argument took.
  bool all_taken() {
    for (size_t i = 0; i < input_names_.size(); ++i) {
      if (!input_used_[i]) {
        *culprit_ = input_names_[i];
        *why_ = unknown_name(input_names_[i], "an input", schema_);
        return false;
      }
    }
    for (const auto& [name, value] : args_) {
      if (args_used_.count(name) == 0) {
        *culprit_ = name;
        *why_ = unknown_name(name, "in `args`", schema_);
        return false;
      }
    }
    return true;
  }

 private:
  using Given = std::pair<const std::string, ArgValue>;  // an entry of args

  // A tensor argument: from the inputs that name it, else `null` in `args`,
  // its default or None.
  std::optional<ArgumentSource> bind_tensor(const c10::Argument& argument,
                                            const std::string& type,
                                            const Given* given) {
    ArgumentSource source;
    if (base_type(type) == "Tensor") {
      take_input(argument, &source);
    } else if (!take_input_list(argument, type, &source)) {
      return std::nullopt;
    }
    if (!source.inputs.empty()) return source;
    // An empty list of tensors (`args: {tensors: []}`, Python's cat([])):
    // no input can name it.
    if (given && given->second.kind == ArgValue::Kind::kList &&
        given->second.list.empty() && base_type(type) != "Tensor") {
      source.kind = ArgumentSource::Kind::kInputList;
      args_used_.insert(given->first);
      return source;
    }
    if (given && given->second.kind == ArgValue::Kind::kNull &&
        is_optional(type)) {
      source.kind = ArgumentSource::Kind::kNone;
      args_used_.insert(given->first);
      return source;
    }
    if (given) {
      *culprit_ = given->first;
      *why_ = "`" + given->first + "` is a tensor (" + type +
              "): give it under `inputs`";
      return std::nullopt;
    }
    const auto whole =
        std::find(input_names_.begin(), input_names_.end(), argument.name());
    if (base_type(type) != "Tensor" && whole != input_names_.end()) {
      *culprit_ = *whole;
      *why_ = "`" + argument.name() + "` is a list of tensors (" + type +
              "): name its inputs " + argument.name() + "[0], " +
              argument.name() + "[1], ... (an empty list: `args: {" +
              argument.name() + ": []}`)";
      return std::nullopt;
    }
    return not_given(argument, type,
                     "the required input `" + argument.name() + "` (" + type +
                         ") is missing");
  }

  // A Tensor: the first input not yet taken that names it.
  void take_input(const c10::Argument& argument, ArgumentSource* source) {
    for (size_t i = 0; i < input_names_.size(); ++i) {
      if (!input_used_[i] && names_argument(input_names_[i], argument)) {
        source->kind = ArgumentSource::Kind::kInput;
        source->inputs = {i};
        input_used_[i] = true;
        return;
      }
    }
  }

  // A Tensor[] or Tensor?[]: the inputs named `<name>[k]`, in k's order.
  // False where a Tensor[]'s positions have a gap.
  bool take_input_list(const c10::Argument& argument, const std::string& type,
                       ArgumentSource* source) {
    std::map<size_t, size_t> elements;  // position -> input
    for (size_t i = 0; i < input_names_.size(); ++i) {
      const auto element = list_element(input_names_[i]);
      if (element && element->first == argument.name()) {
        elements[element->second] = i;
        input_used_[i] = true;
      }
    }
    // A Tensor?[] (aten::index's `indices`) may leave a gap: None there
    // (`indices[1]` alone is x[:, idx]); a Tensor[] may not.
    const bool optional_elements = base_type(type) == "Tensor?[]";
    size_t expected = 0;
    for (const auto& [position, input] : elements) {
      if (position != expected && !optional_elements) {
        *why_ = "`" + argument.name() + "` is a list of tensors (" + type +
                "): its inputs must be named " + argument.name() + "[0], " +
                argument.name() + "[1], ... without a gap";
        return false;
      }
      for (; expected < position; ++expected) {
        source->inputs.push_back(ArgumentSource::kNoTensor);
      }
      source->inputs.push_back(input);
      ++expected;
    }
    if (!elements.empty()) source->kind = ArgumentSource::Kind::kInputList;
    return true;
  }

  // Any other argument: from `args`, else the backend's Device, its default
  // or None. No input may name it.
  std::optional<ArgumentSource> bind_value(const c10::Argument& argument,
                                           const std::string& type,
                                           const Given* given) {
    for (size_t i = 0; i < input_names_.size(); ++i) {
      if (!input_used_[i] && names_argument(input_names_[i], argument)) {
        *culprit_ = input_names_[i];
        *why_ = "`" + input_names_[i] + "` is a " + type +
                ", not a tensor: give it under `args`";
        return std::nullopt;
      }
    }
    ArgumentSource source;
    if (given) {
      std::string problem;
      if (!to_ivalue(argument, given->second, &problem)) {
        *culprit_ = given->first;
        *why_ = "`args." + given->first + "`: " + problem;
        return std::nullopt;
      }
      source.kind = ArgumentSource::Kind::kArg;
      source.arg = given->first;
      args_used_.insert(given->first);
      return source;
    }
    if (base_type(type) == "Device") {
      source.kind = ArgumentSource::Kind::kDevice;
      return source;
    }
    return not_given(argument, type,
                     "the required argument `" + argument.name() + "` (" +
                         type + ") is missing from `args`");
  }

  // An argument the case does not give: its default, else None where it is
  // optional; nullopt with `missing` where it is neither.
  std::optional<ArgumentSource> not_given(const c10::Argument& argument,
                                          const std::string& type,
                                          const std::string& missing) {
    ArgumentSource source;
    if (argument.default_value()) {
      source.kind = ArgumentSource::Kind::kDefault;
      return source;
    }
    if (is_optional(type)) {
      source.kind = ArgumentSource::Kind::kNone;
      return source;
    }
    *why_ = missing;
    return std::nullopt;
  }

  const c10::FunctionSchema& schema_;
  const std::vector<std::string>& input_names_;
  const std::map<std::string, ArgValue>& args_;
  std::vector<bool> input_used_;
  std::set<std::string> args_used_;
  std::string* why_;
  std::string* culprit_;
};

// bind() once every input carries a name of the schema (read_input_names).
std::optional<Binding> bind_by_name(const c10::OperatorHandle& op,
                                    const std::vector<std::string>& input_names,
                                    const std::map<std::string, ArgValue>& args,
                                    std::string* why, std::string* culprit) {
  NameBinder binder(op.schema(), input_names, args, why, culprit);
  Binding binding{op, {}, {}};
  for (const c10::Argument& argument : op.schema().arguments()) {
    std::optional<ArgumentSource> source = binder.bind(argument);
    if (!source) return std::nullopt;
    binding.sources.push_back(std::move(*source));
  }
  if (!binder.all_taken()) return std::nullopt;
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

}  // namespace casebook::aten
