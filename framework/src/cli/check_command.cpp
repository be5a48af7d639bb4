// `casebook check`: every case file loaded and checked against its op, as a
// run would, and nothing run: for editors, pre-commit hooks and CI.
#include <iostream>

#include "cli/commands.h"
#include "runner/session.h"

namespace casebook {

int check_command(const CommonArguments& arguments) {
  RunOptions options;
  std::vector<std::filesystem::path> paths;
  if (!to_run_options(arguments, &options, &paths)) return kExitUsage;
  const Plan plan = load_plan(paths, options);
  int invalid = 0;
  size_t files = 0;
  for (const PlannedCase& planned : plan.cases) {
    if (!planned.neighbor) ++files;  // a neighbour is one more case of it
    if (planned.runnable()) continue;
    ++invalid;
    // Every problem of the file, not only the first.
    for (const CaseError& error : planned.loaded.errors) {
      std::cout << error.to_string() << "\n";
    }
    for (const std::string& error : planned.plan_errors) {
      std::cout << error << "\n";
    }
  }
  std::cout << files << " case files checked, " << invalid << " invalid\n";
  return invalid == 0 ? 0 : 1;
}

}  // namespace casebook
