// `casebook ops [GLOB]` and `casebook new OP NAME`: finding an operator in
// the running LibTorch and starting a case from its schema.
#include <fnmatch.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "casebook/joined.h"
#include "casebook/loader.h"
#include "casebook/op_catalog.h"
#include "casebook/ops.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "model/yaml_text.h"
#include "ops/aten_schema.h"
#include "ops/python_overloads.h"

namespace casebook {
namespace {

bool matches(const std::string& glob, const std::string& name) {
  if (glob.empty()) return true;
  const std::string plain =
      name.rfind("aten::", 0) == 0 ? name.substr(6) : name;
  for (const std::string& subject : {name, plain, "torch." + plain}) {
    if (fnmatch(glob.c_str(), subject.c_str(), 0) == 0) return true;
  }
  return glob.find_first_of("*?[") == std::string::npos &&
         plain.find(glob) != std::string::npos;
}

// As the schema prints it: `int[2]`, not `int[]`.
std::string shown_type(const c10::Argument& argument) {
  std::string type = aten::argument_type(argument);
  const size_t list = type.find("[]");
  if (argument.N() && list != std::string::npos) {
    type.insert(list + 1, std::to_string(*argument.N()));
  }
  return type;
}

bool optional_type(const std::string& type) {
  return !type.empty() && type.back() == '?';
}

ArgValue arg_of(ArgValue::Kind kind) {
  ArgValue value;
  value.kind = kind;
  return value;
}

// A schema default as a case's `args` value; `reduction` as Python spells
// it. nullopt where a case cannot state it (a ScalarType's enum number is no
// dtype name; a kind of default no case argument has).
std::optional<ArgValue> default_arg(const c10::Argument& argument,
                                    const c10::IValue& value) {
  if (value.isNone()) return arg_of(ArgValue::Kind::kNull);
  if (value.isBool()) {
    ArgValue flag = arg_of(ArgValue::Kind::kBool);
    flag.bool_value = value.toBool();
    return flag;
  }
  const std::string type = aten::argument_type(argument);
  if (value.isInt()) {
    if (type.rfind("ScalarType", 0) == 0) return std::nullopt;
    const int64_t number = value.toInt();
    if (argument.name() == "reduction" && type == "int" && number >= 0 &&
        number <= 2) {
      ArgValue word = arg_of(ArgValue::Kind::kString);
      word.string_value = number == 0 ? "none" : number == 1 ? "mean" : "sum";
      return word;
    }
    ArgValue integer = arg_of(ArgValue::Kind::kInt);
    integer.int_value = number;
    // An int[N] default of one value (`stride=1`) is the list it means.
    if (!argument.N()) return integer;
    ArgValue list = arg_of(ArgValue::Kind::kList);
    list.list.assign(static_cast<size_t>(*argument.N()), integer);
    return list;
  }
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

// The skeleton's text of a schema default: written as a case writes an
// argument (model::yaml_arg), else a TODO that shows the schema's value.
std::string default_text(const c10::Argument& argument) {
  const c10::IValue& value = *argument.default_value();
  if (auto arg = default_arg(argument, value)) return model::yaml_arg(*arg);
  if (aten::argument_type(argument).rfind("ScalarType", 0) == 0) {
    return "TODO  # a dtype";
  }
  std::ostringstream shown;
  shown << value;
  return "TODO  # the schema's default: " + shown.str();
}

std::string tensor_line(const std::string& name, const std::string& type) {
  const bool floating_guess = name != "index" && name != "indices" &&
                              name != "target" && name != "offsets" &&
                              name != "labels";
  return "  " + name + ": {shape: [TODO], dtype: " +
         (floating_guess
              ? "float32, fill: {normal: {mean: 0, std: 1}}, seed: 0}"
              : "int64, values: [TODO]}") +
         "  # " + type;
}

// What a registered op is, by its prefix.
std::string registered_kind(const std::string& name) {
  if (name.rfind("torch.", 0) == 0) {
    return "casebook's own, with Python's arguments";
  }
  if (name.rfind("kernels.", 0) == 0) return "a kernel of kernels/";
  if (name.rfind("validate.", 0) == 0) {
    return "an input contract, checked on the host";
  }
  if (name.rfind("testing.", 0) == 0) return "a test program's own";
  return "registered by this program";
}

// A registered op has no schema: its inputs by position, its arguments by
// name, without types or defaults (the op applies its own).
std::string registered_skeleton(const OpDef& def) {
  std::ostringstream text;
  text << "casebook: 1\n"
       << "summary: TODO (one line, what the case guards)\n"
       << "# " << def.name << ": " << registered_kind(def.name) << "\n"
       << "op: " << def.name << "\n";
  if (!def.args.empty()) {
    text << "# args: any of these, by name (the op's defaults otherwise):\n"
         << "# args:\n";
    for (const std::string& arg : def.args) {
      text << "#   " << arg << ": TODO\n";
    }
  }
  text << "inputs:  # in the op's argument order\n";
  for (const std::string& input : def.inputs) {
    text << tensor_line(input, "Tensor") << "\n";
  }
  for (const std::string& input : def.optional_inputs) {
    text << "  # optional:\n  #" << tensor_line(input, "Tensor").substr(1)
         << "\n";
  }
  return text.str();
}

// The overloads of LibTorch's operator `op` names ("torch.nll_loss",
// "aten::add.Tensor": that overload alone); `*overload` is the one it names
// and `*name` its "aten::" name, empty when `op` names none.
std::vector<c10::OperatorHandle> operator_overloads(
    const std::string& op, std::optional<std::string>* overload,
    std::string* name) {
  *name = aten::operator_name(op, overload);
  std::vector<c10::OperatorHandle> handles;
  if (name->empty()) return handles;
  if (*overload) {
    if (auto handle =
            c10::Dispatcher::singleton().findSchema({*name, **overload})) {
      handles.push_back(*handle);
    }
  } else {
    handles = aten::overloads_of(*name);
    aten::prefer_python_overload(op, &handles);
  }
  return handles;
}

// Puts first the overload a case would usually mean: not a named-tensor
// (Dimname) one, not an out= variant; the first one when all are.
void put_usual_overload_first(std::vector<c10::OperatorHandle>* handles) {
  for (size_t i = 0; i < handles->size(); ++i) {
    const c10::FunctionSchema& schema = (*handles)[i].schema();
    bool out = false;
    for (const c10::Argument& argument : schema.arguments()) {
      out |= argument.is_out();
    }
    if (schema.overload_name().find("imname") == std::string::npos && !out) {
      std::swap((*handles)[0], (*handles)[i]);
      return;
    }
  }
}

// The skeleton's line for one argument of the schema: a Tensor (or a list of
// them) under `inputs`, anything else under `args`, with its default, null
// or TODO.
void add_argument_line(const c10::Argument& argument, std::ostream& args,
                       std::ostream& inputs) {
  const std::string type = aten::argument_type(argument);
  const std::string base =
      optional_type(type) ? type.substr(0, type.size() - 1) : type;
  const std::string input_name =
      argument.name() == "self" ? "input" : argument.name();
  if (base == "Tensor") {
    const bool needed = !optional_type(type) && !argument.default_value();
    inputs << (needed ? "" : "  # optional:\n  # ")
           << tensor_line(input_name, type).substr(needed ? 0 : 2) << "\n";
  } else if (base == "Tensor[]" || base == "Tensor?[]") {
    inputs << tensor_line(argument.name() + "[0]", type) << "\n"
           << "  # " << argument.name() << "[1]: ... one input per element\n";
  } else if (base == "Device" || base == "Generator" || base == "Layout" ||
             argument.name() == "pin_memory") {
    args << "  # " << argument.name()
         << ": the backend's own (not read from the case)\n";
  } else if (argument.default_value()) {
    args << "  " << argument.name() << ": " << default_text(argument) << "  # "
         << shown_type(argument) << "\n";
  } else if (optional_type(type)) {
    args << "  " << argument.name() << ": null  # " << type << "\n";
  } else {
    args << "  " << argument.name() << ": TODO  # " << shown_type(argument)
         << ", required\n";
  }
}

}  // namespace

int ops_command(const std::string& glob) {
  size_t shown = 0;
  // Every registered op (torch.*, kernels.*, validate.*, a downstream
  // program's), then every operator of the running LibTorch.
  for (const std::string& name : default_registry().names()) {
    if (!matches(glob, name)) continue;
    const OpDef* def = default_registry().find(name);
    std::string inputs = joined(def->inputs);
    for (const std::string& input : def->optional_inputs) {
      inputs += "[, " + input + "]";
    }
    const std::string args = joined(def->args);
    std::cout << name << "(" << inputs << (args.empty() ? "" : "; ") << args
              << ")  " << registered_kind(name) << "\n";
    ++shown;
  }
  for (const std::string& name : aten::all_operator_names()) {
    if (!matches(glob, name)) continue;
    for (const c10::OperatorHandle& handle : aten::overloads_of(name)) {
      std::cout << aten::schema_text(handle.schema()) << "\n";
    }
    ++shown;
  }
  if (shown == 0) {
    std::cerr << "no operator of LibTorch " << aten::libtorch_version()
              << " matches `" << glob << "`\n";
    return 1;
  }
  return 0;
}

std::string case_skeleton(const std::string& op, std::string* error) {
  if (const OpDef* def = default_registry().find(op)) {
    return registered_skeleton(*def);
  }
  std::optional<std::string> overload;
  std::string name;
  std::vector<c10::OperatorHandle> handles =
      operator_overloads(op, &overload, &name);
  if (handles.empty()) {
    *error = "LibTorch " + aten::libtorch_version() + " has no operator for `" +
             op +
             "` (write torch.<name> or aten::<name>[.<overload>]; "
             "`casebook ops GLOB` lists them)";
    return "";
  }
  put_usual_overload_first(&handles);
  const c10::FunctionSchema& schema = handles.front().schema();
  std::ostringstream text;
  text << "casebook: 1\n"
       << "summary: TODO (one line, what the case guards)\n"
       << "# " << aten::schema_text(schema) << "\n";
  if (handles.size() > 1) {
    text << "# other overloads, chosen by the arguments given:\n";
    for (size_t i = 1; i < handles.size(); ++i) {
      text << "#   " << aten::schema_text(handles[i].schema()) << "\n";
    }
  }
  text << "op: " << (overload ? op : "torch." + name.substr(6)) << "\n";
  std::ostringstream args;
  std::ostringstream inputs;
  for (const c10::Argument& argument : schema.arguments()) {
    add_argument_line(argument, args, inputs);
  }
  if (!args.str().empty()) text << "args:\n" << args.str();
  text << "inputs:\n" << inputs.str();
  text << "# grad: {wrt: [input], check: finite_differences}\n";
  return text.str();
}

int new_command(const std::string& op, const std::string& name) {
  std::string error;
  const std::string skeleton = case_skeleton(op, &error);
  if (skeleton.empty()) {
    std::cerr << "casebook new: " << error << "\n";
    return kExitUsage;
  }
  std::filesystem::path file = name;
  if (file.extension() != ".yaml" && file.extension() != ".yml") {
    file = std::filesystem::path("cases") / (name + ".yaml");
  }
  if (std::filesystem::exists(file)) {
    std::cerr << "casebook new: " << file.string()
              << " exists; not overwritten\n";
    return kExitUsage;
  }
  std::error_code ignored;
  if (file.has_parent_path()) {
    std::filesystem::create_directories(file.parent_path(), ignored);
  }
  std::ofstream out(file);
  if (auto modeline = schema_modeline(file)) out << *modeline << "\n";
  out << skeleton;
  if (!out) {
    std::cerr << "casebook new: cannot write " << file.string() << "\n";
    return kExitUsage;
  }
  std::cout << "wrote " << file.string()
            << ": replace each TODO, then `casebook run " << file.string()
            << "`\n";
  return 0;
}

Command add_ops(CLI::App& app) {
  auto glob = std::make_shared<std::string>();
  CLI::App* ops = app.add_subcommand(
      "ops",
      "list the operators a case can name, with their schemas: casebook's "
      "own ops (torch.*, kernels.*, validate.* and a program's registered "
      "ones), then every operator of the running LibTorch, each overload; "
      "without GLOB every one of them (thousands of lines)");
  ops->add_option("glob", *glob,
                  "a glob or a word on the name (softmax, torch.soft*, "
                  "aten::*_)");
  return {ops, [glob] { return ops_command(*glob); }};
}

Command add_new(CLI::App& app) {
  auto op = std::make_shared<std::string>();
  auto name = std::make_shared<std::string>();
  auto from_json = std::make_shared<std::vector<std::string>>();
  CLI::App* new_case = app.add_subcommand(
      "new",
      "write a case skeleton for any op `ops` lists (from its schema, or a "
      "registered op's inputs and arguments); with --from-json, write the "
      "cases a program describes in JSON");
  CLI::Option* op_option = new_case->add_option(
      "op", *op,
      "torch.<name>, aten::<name>[.<overload>], kernels.<name>, "
      "validate.<name>");
  CLI::Option* name_option = new_case->add_option(
      "name", *name,
      "the case id: writes cases/<name>.yaml (or a path ending in .yaml)");
  CLI::Option* json_option = new_case->add_option(
      "--from-json", *from_json,
      "cases written as JSON (the keys of a case file; .nan and .inf as "
      "YAML writes them): each X.json written as the case file X.yaml");
  json_option->excludes(op_option)->excludes(name_option);
  op_option->needs(name_option);
  name_option->needs(op_option);
  return {new_case, [op, name, from_json] {
            if (!from_json->empty()) return new_from_json_command(*from_json);
            if (op->empty()) {
              std::cerr << "casebook new: expected OP NAME, or --from-json "
                           "FILE...\n";
              return kExitUsage;
            }
            return new_command(*op, *name);
          }};
}

}  // namespace casebook
