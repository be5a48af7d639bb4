#include <ATen/Parallel.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include "casebook/diagnosis.h"
#include "casebook/ops.h"
#include "cli/commands.h"
#include "runner/output.h"
#include "runner/session.h"

namespace casebook {
namespace fs = std::filesystem;

namespace {

// "cpu,cuda" into backends; false with a message naming `what` otherwise.
bool parse_backend_list(const std::string& text, const std::string& what,
                        std::vector<Backend>* backends) {
  std::stringstream list(text);
  std::string name;
  while (std::getline(list, name, ',')) {
    if (name.empty()) continue;
    auto backend = parse_backend(name);
    if (!backend) {
      std::cerr << "casebook: " << what
                << ": expected a list of cpu, cuda, hip; got `" << name
                << "`\n";
      return false;
    }
    if (std::find(backends->begin(), backends->end(), *backend) ==
        backends->end()) {
      backends->push_back(*backend);
    }
  }
  return true;
}

}  // namespace

bool to_run_options(const CommonArguments& arguments, RunOptions* options,
                    std::vector<fs::path>* paths) {
  options->backends.clear();
  if (!parse_backend_list(arguments.backends, "--backend",
                          &options->backends)) {
    return false;
  }
  // Required: those named by --require or $CASEBOOK_REQUIRE that this run
  // asks for (CASEBOOK_REQUIRE=cuda leaves a cpu-only run alone).
  std::vector<Backend> required;
  const char* from_environment = std::getenv("CASEBOOK_REQUIRE");
  if (!parse_backend_list(arguments.require, "--require", &required) ||
      !parse_backend_list(from_environment != nullptr ? from_environment : "",
                          "CASEBOOK_REQUIRE", &required)) {
    return false;
  }
  options->required.clear();
  for (Backend backend : required) {
    if (std::find(options->backends.begin(), options->backends.end(),
                  backend) != options->backends.end()) {
      options->required.push_back(backend);
    }
  }
  if (arguments.isolation == "strict") {
    options->isolation = Isolation::kStrict;
  } else if (arguments.isolation != "pooled") {
    std::cerr << "casebook: --isolation: expected pooled or strict; got `"
              << arguments.isolation << "`\n";
    return false;
  }
  if (arguments.jobs < 0) {
    std::cerr << "casebook: -j: expected a number of parallel runs >= 0\n";
    return false;
  }
  options->jobs = arguments.jobs;
  options->filter = arguments.filter;
  options->evidence_root = arguments.evidence;
  paths->clear();
  for (const std::string& path : arguments.paths) paths->emplace_back(path);
  if (paths->empty()) {
    if (!fs::is_directory("cases")) {
      std::cerr << "casebook: no cases/ folder here; name the case files or "
                   "folders to run\n";
      return false;
    }
    paths->emplace_back("cases");
  }
  for (const fs::path& path : *paths) {
    if (!fs::exists(path)) {
      std::cerr << "casebook: " << path.string()
                << ": no such file or folder\n";
      return false;
    }
  }
  // The runner compares outputs in one thread: an OpenMP pool started in the
  // runner would hang children forked after it.
  at::set_num_threads(1);
  return true;
}

int run_command(const CommonArguments& arguments, const std::string& junit,
                bool verbose) {
  RunOptions options;
  std::vector<fs::path> paths;
  if (!to_run_options(arguments, &options, &paths)) return kExitUsage;
  Plan plan = load_plan(paths, options);
  Selection selected = [&options](const PlannedCase& planned, Backend backend) {
    return filter_matches(options.filter, planned, backend);
  };
  Execution execution = execute_plan(
      plan, options, selected, [verbose](const CaseVerdict& verdict) {
        print_verdict_line(std::cout, verdict, verbose);
        std::cout.flush();
      });
  Environment environment = run_environment(execution.backends);
  std::cout << "\n";
  print_environment(std::cout, environment);
  print_summary(std::cout, execution.summary);
  if (!junit.empty()) write_junit(junit, execution.summary, environment);
  return execution.summary.exit_code();
}

int list_command(const CommonArguments& arguments) {
  RunOptions options;
  std::vector<fs::path> paths;
  if (!to_run_options(arguments, &options, &paths)) return kExitUsage;
  Plan plan = load_plan(paths, options);
  int broken = 0;
  for (const PlannedCase& planned : plan.cases) {
    std::vector<std::string> backends;
    for (Backend backend : planned.reported) {
      if (filter_matches(options.filter, planned, backend)) {
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

int explain_command(const std::string& name) {
  auto family = parse_family(name);
  if (!family) {
    std::cerr << "casebook explain: unknown family `" << name
              << "`; expected one of:";
    for (Family f : all_families()) std::cerr << " " << family_name(f);
    std::cerr << "\n";
    return kExitUsage;
  }
  std::cout << explain_family(*family);
  return 0;
}

}  // namespace casebook
