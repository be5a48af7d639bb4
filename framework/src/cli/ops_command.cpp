// `casebook ops [GLOB]`: every operator a case can name, casebook's
// registered ones and the running LibTorch's, with their schemas.
#include <fnmatch.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
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
              << " matches `" << printable_line(glob) << "`\n";
    return 1;
  }
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

}  // namespace casebook
