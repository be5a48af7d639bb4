#include <ATen/Parallel.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <sstream>

#include "casebook/diagnosis.h"
#include "casebook/ops.h"
#include "cli/commands.h"
#include "cli/filter_check.h"
#include "casebook/suggestions.h"
#include "runner/junit.h"
#include "runner/output.h"
#include "runner/progress.h"
#include "runner/session.h"
#include "runner/verdict_table.h"

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
                << ": expected a list of cpu, cuda, hip; got `" << name << "`"
                << did_you_mean(suggest_backend(name)) << "\n";
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

bool parse_shard(const std::string& text, int* index, int* count) {
  const size_t slash = text.find('/');
  if (slash == std::string::npos) return false;
  try {
    size_t used = 0;
    const int i = std::stoi(text.substr(0, slash), &used);
    if (used != slash) return false;
    const std::string rest = text.substr(slash + 1);
    const int n = std::stoi(rest, &used);
    if (used != rest.size() || n < 1 || i < 0 || i >= n) return false;
    *index = i;
    *count = n;
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

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
  if (!arguments.shard.empty() &&
      !parse_shard(arguments.shard, &options->shard_index,
                   &options->shard_count)) {
    std::cerr << "casebook: --shard: expected I/N with 0 <= I < N (this "
                 "machine's share, e.g. 0/4); got `"
              << arguments.shard << "`\n";
    return false;
  }
  options->filter = arguments.filter;
  options->case_id = arguments.case_id;
  options->evidence_root = arguments.evidence;
  options->allow_links_outside = arguments.allow_links_outside;
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

int run_command(const CommonArguments& arguments, const RunOutput& output) {
  RunOptions options;
  std::vector<fs::path> paths;
  if (!to_run_options(arguments, &options, &paths)) return kExitUsage;
  Plan plan = load_plan(paths, options);
  if (filter_selects_nothing(plan, options, "casebook run")) return kExitUsage;
  Selection selected = [&options](const PlannedCase& planned, Backend backend) {
    return selected_by(options, planned, backend);
  };
  size_t total_runs = 0;
  for (const PlannedCase& planned : plan.cases) {
    for (Backend backend : planned.reported) {
      total_runs += selected(planned, backend) ? 1 : 0;
    }
  }
  const bool terminal = isatty(STDOUT_FILENO) == 1;
  const bool colour = colour_wanted(STDOUT_FILENO);
  Progress progress(std::cout, terminal, colour, total_runs);
  std::unique_ptr<JunitWriter> junit;
  RunObserver observer;
  observer.on_start = [&](const std::map<Backend, BackendStatus>& backends) {
    // JUnit is written as results arrive: a crash loses no finished result.
    if (!output.junit.empty()) {
      junit = std::make_unique<JunitWriter>(output.junit,
                                            run_environment(backends));
    }
  };
  observer.on_case_started = [&](const PlannedCase& planned) {
    if (!output.quiet) progress.case_started(planned.loaded.id);
  };
  observer.on_verdict = [&](const CaseVerdict& verdict) {
    if (junit) junit->add(verdict);
    if (output.verbose) {
      print_verdict_line(std::cout, verdict, false);
    } else if (!output.quiet) {
      progress.verdict_landed(verdict);
    }
  };
  Execution execution;
  try {
    execution = execute_plan(plan, options, selected, observer);
  } catch (const std::runtime_error& error) {
    // The JUnit or summary file cannot be written: a configuration error.
    std::cerr << "casebook: " << error.what() << "\n";
    return kExitUsage;
  }
  progress.finish();
  const Environment environment = run_environment(execution.backends);
  if (!output.quiet) print_environment(std::cout, environment);
  TableStyle style;
  style.colour = colour;
  style.details = output.details;
  style.every_run = output.verbose;
  style.quiet = output.quiet;
  print_verdict_table(std::cout, execution.summary, style);
  // A results file that could not be written (a full disk) is said last,
  // under the table it did not hold, and fails the run.
  std::string junit_error;
  if (junit) {
    junit->finish();
    junit_error = junit->write_error();
  } else if (!output.junit.empty()) {
    try {
      write_junit(output.junit, execution.summary, environment);
    } catch (const std::runtime_error& error) {
      junit_error = error.what();
    }
  }
  if (!junit_error.empty()) {
    std::cout.flush();
    std::cerr << "casebook: --junit: " << junit_error
              << "; the table above holds every result\n";
  }
  if (!output.summary.empty()) {
    try {
      write_markdown_summary(output.summary, execution.summary,
                             environment_line(environment));
    } catch (const std::runtime_error& error) {
      std::cerr << "casebook: " << error.what() << "\n";
      return kExitUsage;
    }
  }
  return junit_error.empty() ? execution.summary.exit_code() : kExitUsage;
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
