// `casebook ops [GLOB]`: every operator a case can name, casebook's
// registered ones and the running LibTorch's, with their schemas.
#include <fnmatch.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "casebook/joined.h"
#include "casebook/op_catalog.h"
#include "casebook/ops.h"
#include "casebook/printable.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "ops/aten_schema.h"

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

}  // namespace

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

namespace {

using Json = nlohmann::ordered_json;

// One registered op's record: its inputs and its non-tensor arguments.
Json registered_record(const std::string& name, const OpDef& def) {
  return {{"name", name},
          {"kind", registered_kind(name)},
          {"inputs", def.inputs},
          {"optional_inputs", def.optional_inputs},
          {"args", def.args}};
}

// One ATen operator's record: each overload's schema and its arguments
// with their types, as c10 states them.
Json aten_record(const std::string& name) {
  Json overloads = Json::array();
  for (const c10::OperatorHandle& handle : aten::overloads_of(name)) {
    Json arguments = Json::array();
    for (const c10::Argument& argument : handle.schema().arguments()) {
      arguments.push_back(
          {{"name", argument.name()}, {"type", argument.type()->str()}});
    }
    overloads.push_back({{"schema", aten::schema_text(handle.schema())},
                         {"arguments", std::move(arguments)}});
  }
  return {{"name", name}, {"overloads", std::move(overloads)}};
}

}  // namespace

int ops_command(const std::string& glob, bool as_json) {
  size_t shown = 0;
  Json records = Json::array();
  // Every registered op (torch.*, kernels.*, validate.*, a downstream
  // program's), then every operator of the running LibTorch.
  for (const std::string& name : default_registry().names()) {
    if (!matches(glob, name)) continue;
    const OpDef* def = default_registry().find(name);
    ++shown;
    if (as_json) {
      records.push_back(registered_record(name, *def));
      continue;
    }
    std::string inputs = joined(def->inputs);
    for (const std::string& input : def->optional_inputs) {
      inputs += "[, " + input + "]";
    }
    const std::string args = joined(def->args);
    std::cout << name << "(" << inputs << (args.empty() ? "" : "; ") << args
              << ")  " << registered_kind(name) << "\n";
  }
  for (const std::string& name : aten::all_operator_names()) {
    if (!matches(glob, name)) continue;
    ++shown;
    if (as_json) {
      records.push_back(aten_record(name));
      continue;
    }
    for (const c10::OperatorHandle& handle : aten::overloads_of(name)) {
      std::cout << aten::schema_text(handle.schema()) << "\n";
    }
  }
  if (as_json) {
    // An empty list is an answer: a program asks, it is not told off.
    const Json document = {{"casebook_ops", 1},
                           {"libtorch", aten::libtorch_version()},
                           {"ops", std::move(records)}};
    std::cout << document.dump(1) << "\n";
    return 0;
  }
  if (shown == 0) {
    std::cerr << "no operator of LibTorch " << aten::libtorch_version()
              << " matches `" << printable_line(glob) << "`\n";
    return 1;
  }
  return 0;
}

Command add_ops(CLI::App& app) {
  auto glob = std::make_shared<std::string>();
  auto as_json = std::make_shared<bool>(false);
  CLI::App* ops = app.add_subcommand(
      "ops",
      "list the operators a case can name, with their schemas: casebook's "
      "own ops (torch.*, kernels.*, validate.* and a program's registered "
      "ones), then every operator of the running LibTorch, each overload; "
      "without GLOB every one of them (thousands of lines)");
  ops->add_option("glob", *glob,
                  "a glob or a word on the name (softmax, torch.soft*, "
                  "aten::*_)");
  ops->add_flag("--json", *as_json,
                "the same as one JSON document (casebook_ops: 1): each "
                "registered op's inputs and arguments, each ATen "
                "overload's schema and typed arguments; exit 0 when none "
                "matches");
  return {ops, [glob, as_json] { return ops_command(*glob, *as_json); }};
}

}  // namespace casebook
