// `casebook check`: every case file loaded and checked against its op, as a
// run would, and nothing run: for editors, pre-commit hooks and CI. It says
// everything a run would refuse before the op is called: the loader's and
// the op's problems (argument names and values), each fixture read and
// checked as the run reads it (sha256, dtype, shape), and each backend's
// expectation that cannot be known (a neighbour whose outcome cannot be
// derived, a GPU backend without `expect` where the CPU must fail).
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "casebook/ops.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "runner/session.h"
#include "tensors/materialise.h"

namespace casebook {
namespace {

// A fixture read as a run reads it (tensors/materialise.h): its sha256, its
// dtype and its shape against the case's; an input with a `layout` made as a
// run makes it (the layout fits its shape, values that share storage agree).
// Empty when it reads.
std::string tensor_problem(const TensorSpec& spec) {
  const bool laid_out = spec.layout.kind != Layout::Kind::kDefault;
  if (spec.source != TensorSpec::Source::kFile && !laid_out) return "";
  try {
    if (laid_out) {
      materialise(spec);
    } else {
      read_only_values(spec);
    }
    return "";
  } catch (const std::exception& error) {
    return error.what();
  }
}

void check_tensors(const Case& kase, std::vector<std::string>* problems) {
  std::vector<const TensorSpec*> specs;
  for (const TensorSpec& spec : kase.inputs) {
    if (spec.same_as.empty()) specs.push_back(&spec);  // an alias: its target
  }
  for (const OutputExpectation& output : kase.outputs) {
    if (output.values) specs.push_back(&*output.values);
  }
  for (const auto& [backend, entries] : kase.expect_entries) {
    for (const Expectation& entry : entries) {
      for (const OutputExpectation& output : entry.outputs) {
        if (output.values) specs.push_back(&*output.values);
      }
    }
  }
  for (const TensorSpec* spec : specs) {
    std::string problem = tensor_problem(*spec);
    if (!problem.empty()) problems->push_back(std::move(problem));
  }
}

// A backend whose run would be an ERROR before its op is called: no entry of
// its own holds an outcome (Expectation::missing), and the case needs one.
// An entry written with `when` conditions on a device's facts is not asked:
// those are known only where the device is.
void check_expectations(const PlannedCase& planned, const Plan& plan,
                        std::vector<std::string>* problems) {
  const Case& kase = planned.value();
  for (Backend backend : kase.backends) {
    const auto entries = kase.expect_entries.find(backend);
    if (entries != kase.expect_entries.end()) {
      bool written = false;
      for (const Expectation& entry : entries->second) {
        written = written || entry.missing.empty();
      }
      if (written) continue;
    }
    const std::optional<Expectation> expectation =
        expectation_for(kase, backend, plan.host_facts);
    if (expectation && !expectation->missing.empty()) {
      problems->push_back(format_location(expectation->where) + ": " +
                          expectation->missing);
    }
  }
}

// Every problem of one planned case, as `check` prints them.
std::vector<std::string> problems_of(const PlannedCase& planned,
                                     const Plan& plan) {
  std::vector<std::string> problems;
  for (const CaseError& error : planned.loaded.errors) {
    problems.push_back(error.to_string());
  }
  for (const std::string& error : planned.plan_errors) {
    problems.push_back(error);
  }
  if (!planned.loaded.value) return problems;
  // A neighbour reads its base's fixtures: checked once, with the base.
  if (!planned.neighbor) check_tensors(planned.value(), &problems);
  check_expectations(planned, plan, &problems);
  return problems;
}

}  // namespace

int check_command(const CommonArguments& arguments) {
  RunOptions options;
  std::vector<std::filesystem::path> paths;
  if (!to_run_options(arguments, &options, &paths)) return kExitUsage;
  const Plan plan = load_plan(paths, options);
  int invalid = 0;
  size_t files = 0;
  for (const PlannedCase& planned : plan.cases) {
    if (!planned.neighbor) ++files;  // a neighbour is one more case of it
    const std::vector<std::string> problems = problems_of(planned, plan);
    if (problems.empty()) continue;
    ++invalid;
    // Every problem of the file, not only the first.
    for (const std::string& problem : problems) std::cout << problem << "\n";
  }
  std::cout << files << " case files checked, " << invalid << " invalid\n";
  return invalid == 0 ? 0 : 1;
}

Command add_check(CLI::App& app) {
  auto arguments = std::make_shared<CommonArguments>();
  CLI::App* check = app.add_subcommand(
      "check",
      "load and check the case files (keys, values, fixtures, the op and its "
      "arguments) without running them; every problem is printed; exit 1 "
      "when any file is invalid");
  check->add_option("paths", arguments->paths,
                    "case files and folders (default: cases/)");
  return {check, [arguments] { return check_command(*arguments); }};
}

}  // namespace casebook
