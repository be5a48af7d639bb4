// `casebook accept CASE`: a reproduced failure written into its case as the
// case's `expect`, so that a captured case becomes a regression case.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "casebook/loader.h"
#include "cli/capture_run.h"
#include "cli/command_line.h"
#include "cli/commands.h"

namespace casebook {

int accept_command(const std::string& argument, const std::string& backends) {
  std::filesystem::path file;
  if (!resolve_case_argument(argument, &file)) return kExitUsage;
  const LoadedCase loaded = load_case_file(file);
  if (!loaded.ok()) {
    for (const CaseError& error : loaded.errors) {
      std::cerr << error.to_string() << "\n";
    }
    return kExitUsage;
  }
  if (const std::string refused = acceptance_refusal(file); !refused.empty()) {
    std::cerr << "casebook accept: not accepted: " << refused << "\n";
    return 1;
  }
  const CaseRun run = run_case(file, backends);
  if (!run.invalid.empty() || run.status == kExitUsage) {
    std::cerr << "casebook accept: the case does not run; see above\n";
    return 1;
  }
  const Reproduction reproduction =
      judge_reproduction(loaded.value->origin, run);
  std::cout << reproduction.sentence << "\n";
  std::string why;
  if (!write_acceptance(file, *loaded.value, reproduction, &why)) {
    std::cerr << "casebook accept: not accepted: " << why << "\n";
    return 1;
  }
  return 0;
}

Command add_accept(CLI::App& app) {
  auto kase = std::make_shared<std::string>();
  auto backends = std::make_shared<std::string>("cpu,cuda,hip");
  CLI::App* accept = app.add_subcommand(
      "accept",
      "run a captured case and, when it fails as its origin.first_error "
      "says, write that failure into it as its expect");
  accept->add_option("case", *kase, "a case file, or a case id")->required();
  accept->add_option("--backend,-b", *backends, "backends to run")
      ->capture_default_str();
  return {accept,
          [kase, backends] { return accept_command(*kase, *backends); }};
}

}  // namespace casebook
