// `casebook new OP NAME`: a case to complete (casebook/case_form.h) from an
// operator's schema in the running LibTorch or a registered op's inputs and
// arguments, and `--from-json` (cli/new_from_json.cpp).
#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "casebook/case_form.h"
#include "casebook/loader.h"
#include "casebook/op_catalog.h"
#include "casebook/ops.h"
#include "casebook/printable.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "files/file_writer.h"
#include "model/yaml_text.h"
#include "ops/aten_schema.h"
#include "ops/python_overloads.h"

namespace casebook {
namespace {

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

// The form's entry of an argument with a schema default: the default as a
// case states it, else a placeholder that says what the schema's is.
CaseForm::Entry default_entry(const c10::Argument& argument) {
  CaseForm::Entry entry;
  entry.name = argument.name();
  entry.note = shown_type(argument);
  const c10::IValue& value = *argument.default_value();
  entry.value = aten::default_arg(argument);
  if (entry.value) return entry;
  if (aten::argument_type(argument).rfind("ScalarType", 0) == 0) {
    entry.note += ": a dtype";
  } else {
    std::ostringstream shown;
    shown << value;
    entry.note += ", the schema's default: " + shown.str();
  }
  return entry;
}

// A tensor input of the form: int64 for the names that hold indices, else
// float32.
CaseForm::Entry tensor_entry(const std::string& name, const std::string& type,
                             CaseForm::Entry::Kind kind) {
  CaseForm::Entry entry;
  entry.name = name;
  entry.kind = kind;
  const bool indices = name == "index" || name == "indices" ||
                       name == "target" || name == "offsets" ||
                       name == "labels";
  entry.dtype = indices ? DType::kInt64 : DType::kFloat32;
  entry.note =
      kind == CaseForm::Entry::Kind::kExample ? type + ", optional" : type;
  return entry;
}

// A registered op has no schema: its inputs by position, its arguments by
// name, without types or defaults (the op applies its own).
std::string registered_skeleton(const OpDef& def) {
  CaseForm form;
  form.op = def.name;
  form.about.push_back(def.name + ": " + registered_kind(def.name));
  form.args_note = "any of these, by name (the op's defaults otherwise)";
  for (const std::string& arg : def.args) {
    CaseForm::Entry entry;
    entry.name = arg;
    entry.kind = CaseForm::Entry::Kind::kExample;
    form.args.push_back(entry);
  }
  form.inputs_note = "in the op's argument order";
  for (const std::string& input : def.inputs) {
    form.inputs.push_back(
        tensor_entry(input, "Tensor", CaseForm::Entry::Kind::kValue));
  }
  for (const std::string& input : def.optional_inputs) {
    form.inputs.push_back(
        tensor_entry(input, "Tensor", CaseForm::Entry::Kind::kExample));
  }
  return case_form_to_yaml(form);
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

// The form's entry for one argument of the schema: a Tensor (or a list of
// them) under `inputs`, anything else under `args`, with its default, null
// or a placeholder.
void add_argument_entry(const c10::Argument& argument, CaseForm* form) {
  using Kind = CaseForm::Entry::Kind;
  const std::string type = aten::argument_type(argument);
  const std::string base =
      optional_type(type) ? type.substr(0, type.size() - 1) : type;
  const std::string input_name =
      argument.name() == "self" ? "input" : argument.name();
  if (base == "Tensor") {
    const bool needed = !optional_type(type) && !argument.default_value();
    form->inputs.push_back(
        tensor_entry(input_name, type, needed ? Kind::kValue : Kind::kExample));
    return;
  }
  if (base == "Tensor[]" || base == "Tensor?[]") {
    form->inputs.push_back(
        tensor_entry(argument.name() + "[0]", type, Kind::kValue));
    CaseForm::Entry more;
    more.name = argument.name() + "[1]";
    more.kind = Kind::kNote;
    more.note = "... one input per element";
    form->inputs.push_back(more);
    return;
  }
  CaseForm::Entry entry;
  entry.name = argument.name();
  if (base == "Device" || base == "Generator" || base == "Layout" ||
      argument.name() == "pin_memory") {
    entry.kind = Kind::kNote;
    entry.note = "the backend's own (not read from the case)";
  } else if (argument.default_value()) {
    entry = default_entry(argument);
  } else if (optional_type(type)) {
    entry.value = ArgValue{};  // null
    entry.note = type;
  } else {
    entry.note = shown_type(argument) + ", required";
  }
  form->args.push_back(entry);
}

}  // namespace

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
  CaseForm form;
  form.about.push_back(aten::schema_text(schema));
  if (handles.size() > 1) {
    form.about.push_back("other overloads, chosen by the arguments given:");
    for (size_t i = 1; i < handles.size(); ++i) {
      form.about.push_back("  " + aten::schema_text(handles[i].schema()));
    }
  }
  form.op = overload ? op : "torch." + name.substr(6);
  for (const c10::Argument& argument : schema.arguments()) {
    add_argument_entry(argument, &form);
  }
  form.after.push_back("grad: {wrt: [input], check: finite_differences}");
  return case_form_to_yaml(form);
}

int new_command(const std::string& op, const std::string& name) {
  std::string error;
  const std::string skeleton = case_skeleton(op, &error);
  if (skeleton.empty()) {
    std::cerr << "casebook new: " << error << "\n";
    return kExitUsage;
  }
  // A name (no .yaml) is a case under cases/ and stays inside it: no `..`,
  // no absolute path; a path ending in .yaml is where the person asked for
  // the file. Neither may hold a control character (a newline would forge
  // a line of the table).
  std::filesystem::path file = name;
  const bool path_given =
      file.extension() == ".yaml" || file.extension() == ".yml";
  std::string problem = name_problem(name, true);
  if (path_given && printable_line(name) == name) problem.clear();
  if (!problem.empty()) {
    std::cerr << "casebook new: " << printable_line(name) << ": " << problem
              << " (expected a name under cases/, such as "
                 "`cross_entropy/label_4`, or a path ending in .yaml)\n";
    return kExitUsage;
  }
  if (!path_given) file = std::filesystem::path("cases") / (name + ".yaml");
  const std::optional<std::string> modeline = schema_modeline(file);
  try {
    write_file(file, (modeline ? *modeline + "\n" : std::string()) + skeleton,
               OnExisting::kRefuse);
  } catch (const WriteError& error) {
    std::cerr << "casebook new: " << printable_line(error.what())
              << "; not written\n";
    return kExitUsage;
  }
  std::cout << "wrote " << file.string()
            << ": replace each TODO, then `casebook run " << file.string()
            << "`\n";
  return 0;
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
