// `casebook list`: the cases and the backends each would run on, without
// running them.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/filter_check.h"
#include "runner/session.h"

namespace casebook {
namespace fs = std::filesystem;

int list_command(const CommonArguments& arguments) {
  RunOptions options;
  std::vector<fs::path> paths;
  if (!to_run_options(arguments, &options, &paths)) return kExitUsage;
  Plan plan = load_plan(paths, options);
  if (selection_is_empty(plan, options, "casebook list")) return kExitUsage;
  int broken = 0;
  for (const PlannedCase& planned : plan.cases) {
    std::vector<std::string> backends;
    for (Backend backend : planned.reported) {
      if (selected_by(options, planned, backend)) {
        backends.emplace_back(backend_name(backend));
      }
    }
    if (backends.empty()) continue;
    std::cout << planned.loaded.id << "  ";
    for (size_t i = 0; i < backends.size(); ++i) {
      std::cout << (i ? "," : "") << backends[i];
    }
    if (!planned.runnable()) {
      ++broken;
      std::cout << "  ERROR: "
                << (planned.loaded.errors.empty()
                        ? planned.plan_errors.front()
                        : planned.loaded.errors.front().to_string());
    } else {
      std::cout << "  " << planned.value().summary;
    }
    std::cout << "\n";
  }
  return broken == 0 ? 0 : 1;
}

Command add_list(CLI::App& app) {
  auto arguments = std::make_shared<CommonArguments>();
  CLI::App* list = app.add_subcommand(
      "list",
      "list the cases and the backends each would run on, without "
      "running them");
  add_common_options(list, arguments.get());
  return {list, [arguments] { return list_command(*arguments); }};
}

}  // namespace casebook
