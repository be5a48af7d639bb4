// `casebook explain FAMILY [--backend B]`: what an error family means.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <optional>

#include "casebook/diagnosis.h"
#include "casebook/printable.h"
#include "casebook/run_advice.h"
#include "cli/command_line.h"
#include "cli/commands.h"

namespace casebook {
namespace {

// `backend` empty: the reruns name each GPU backend's switches.
int explain_on(const std::string& name, const std::string& backend) {
  auto family = parse_family(name);
  if (!family) {
    std::cerr << "casebook explain: unknown family `" << printable_line(name)
              << "`; expected one of:";
    for (Family f : all_families()) std::cerr << " " << family_name(f);
    std::cerr << "\n";
    return kExitUsage;
  }
  std::optional<Backend> on;
  if (!backend.empty()) {
    on = parse_backend(backend);
    if (!on) {
      std::cerr << "casebook explain: --backend `" << printable_line(backend)
                << "`: expected " << backend_alternatives() << "\n";
      return kExitUsage;
    }
  }
  std::cout << explain_family_on(*family, on);
  return 0;
}

}  // namespace

int explain_command(const std::string& name) { return explain_on(name, ""); }

Command add_explain(CLI::App& app) {
  auto family = std::make_shared<std::string>();
  CLI::App* explain = app.add_subcommand(
      "explain",
      "what an error family means, what to check first and what "
      "not to conclude");
  explain->add_option("family", *family, "an error family, e.g. device_assert")
      ->required();
  auto backend = std::make_shared<std::string>();
  explain->add_option("--backend,-b", *backend,
                      "the backend the failure was seen on (" +
                          backend_alternatives() +
                          "): its own switches (HIP's on hip); default: "
                          "each GPU backend's");
  return {explain, [family, backend] { return explain_on(*family, *backend); }};
}

}  // namespace casebook
