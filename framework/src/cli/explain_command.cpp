// `casebook explain FAMILY`: what an error family means.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "casebook/diagnosis.h"
#include "casebook/printable.h"
#include "cli/command_line.h"
#include "cli/commands.h"

namespace casebook {

int explain_command(const std::string& name) {
  auto family = parse_family(name);
  if (!family) {
    std::cerr << "casebook explain: unknown family `" << printable_line(name)
              << "`; expected one of:";
    for (Family f : all_families()) std::cerr << " " << family_name(f);
    std::cerr << "\n";
    return kExitUsage;
  }
  std::cout << explain_family(*family);
  return 0;
}

Command add_explain(CLI::App& app) {
  auto family = std::make_shared<std::string>();
  CLI::App* explain = app.add_subcommand(
      "explain",
      "what an error family means, what to check first and what "
      "not to conclude");
  explain->add_option("family", *family, "an error family, e.g. device_assert")
      ->required();
  return {explain, [family] { return explain_command(*family); }};
}

}  // namespace casebook
