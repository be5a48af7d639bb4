#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>
#include <system_error>

#include "casebook/diagnosis.h"
#include "casebook/ops.h"
#include "casebook/printable.h"
#include "casebook/suggestions.h"
#include "child/fork_safe_aten.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/ctest_records.h"
#include "cli/filter_check.h"
#include "cli/last_failed.h"
#include "cli/run_listeners.h"
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
      std::cerr << "casebook: " << what << ": expected a list of "
                << backend_names() << "; got `" << printable_line(name) << "`"
                << did_you_mean(suggest_backends(name)) << "\n";
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

namespace {

// The paths a run names (cases/ when none), each there or refused by name.
bool to_run_paths(const CommonArguments& arguments,
                  std::vector<fs::path>* paths) {
  paths->clear();
  for (const std::string& path : arguments.paths) paths->emplace_back(path);
  if (paths->empty()) {
    std::error_code error;
    if (!fs::is_directory("cases", error)) {
      std::cerr << "casebook: no cases/ folder here; name the case files or "
                   "folders to run\n";
      return false;
    }
    paths->emplace_back("cases");
  }
  for (const fs::path& path : *paths) {
    // One that cannot be looked at (a folder above it unreadable) goes on
    // to the walk, which refuses it by name (find_case_files).
    std::error_code error;
    if (!fs::exists(path, error) && !error) {
      std::cerr << "casebook: " << printable_line(path.string())
                << ": no such file or folder\n";
      return false;
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
              << printable_line(arguments.isolation) << "`\n";
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
              << printable_line(arguments.shard) << "`\n";
    return false;
  }
  options->filters = arguments.filters;
  options->excludes = arguments.excludes;
  options->case_id = arguments.case_id;
  options->evidence_root = arguments.evidence;
  options->allow_links_outside = arguments.allow_links_outside;
  if (!to_run_paths(arguments, paths)) return false;
  // The runner compares outputs in one thread: an OpenMP pool started in the
  // runner would hang children forked after it.
  keep_aten_single_threaded();
  return true;
}

int exit_status_of(const RunSummary& summary, bool allow_skipped,
                   const char* command) {
  const int status = summary.exit_code();
  const bool nothing_tested = std::all_of(
      summary.verdicts.begin(), summary.verdicts.end(),
      [](const CaseVerdict& v) { return v.verdict == Verdict::kSkip; });
  if (status != 0 || !nothing_tested || allow_skipped) return status;
  std::cout.flush();
  std::cerr << command << ": nothing was tested: "
            << (summary.verdicts.empty()
                    ? std::string("no run was selected (no case runs on "
                                  "the backends asked for, or none is on "
                                  "this shard)")
                    : "every one of the " +
                          std::to_string(summary.verdicts.size()) +
                          " selected runs was skipped")
            << "; exit " << kExitNothingRan << " (--allow-skipped to exit 0)\n";
  return kExitNothingRan;
}

namespace {

// --last-failed: the recorded failures among the runs `selected` takes, as
// a selection; all of `selected` where none is (pytest's rule), said.
Selection last_failed_selection(const Plan& plan, Selection selected,
                                const fs::path& record) {
  auto failed = std::make_shared<std::set<RecordedRun>>();
  for (const RecordedRun& run : read_last_failed(record)) {
    for (const PlannedCase& planned : plan.cases) {
      if (planned.loaded.id == run.first && selected(planned, run.second)) {
        failed->insert(run);
      }
    }
  }
  if (failed->empty()) {
    std::cout << "casebook run: --last-failed: no run among those selected "
                 "failed when last run ("
              << printable_line(record.string())
              << "): running every selected run\n";
    return selected;
  }
  std::cout << "casebook run: --last-failed: " << failed->size()
            << " runs that failed when last run (" << record.string() << ")\n";
  return [failed](const PlannedCase& planned, Backend backend) {
    return failed->count({planned.loaded.id, backend}) > 0;
  };
}

// The runs the options select; with --last-failed, those of them that
// failed when last run.
Selection run_selection(const Plan& plan, const RunOptions& options,
                        bool last_failed, const fs::path& record) {
  Selection selected = [&options](const PlannedCase& planned, Backend backend) {
    return selected_by(options, planned, backend);
  };
  return last_failed ? last_failed_selection(plan, selected, record) : selected;
}

size_t count_selected(const Plan& plan, const Selection& selected) {
  size_t runs = 0;
  for (const PlannedCase& planned : plan.cases) {
    for (Backend backend : planned.reported) {
      runs += selected(planned, backend) ? 1 : 0;
    }
  }
  return runs;
}

// Each file that could not be written (a full disk, a planted link) is said
// last, under the table it did not hold, and makes the exit status 2
// (README).
void say_not_written(const std::vector<std::string>& not_written) {
  for (const std::string& what : not_written) {
    std::cerr << "casebook: not written: " << printable_text(what)
              << (what.rfind("standard", 0) == 0
                      ? ""
                      : "; the table above holds every result")
              << "\n";
  }
}

// --ctest-records keeps records by path under one folder: one is named.
bool ctest_records_usable(const RunOutput& output,
                          const std::vector<fs::path>& paths) {
  std::error_code error;
  if (output.ctest_records.empty() ||
      (paths.size() == 1 && fs::is_directory(paths.front(), error))) {
    return true;
  }
  std::cerr << "casebook run: --ctest-records: name one folder of cases\n";
  return false;
}

// --ctest-records: each file's result for its own ctest test, which says
// its verdicts; this run (the batch test) fails only when they were not kept.
int keep_ctest_records(const Plan& plan, const RunSummary& summary,
                       const fs::path& folder, const std::string& records) {
  CaseFiles files;
  for (const PlannedCase& planned : plan.cases) {
    files.emplace(planned.loaded.id, planned.loaded.file);
  }
  const std::string error =
      write_ctest_records(files, summary, folder, records);
  if (error.empty()) return 0;
  std::cerr << "casebook: not written: --ctest-records: "
            << printable_text(error) << "\n";
  return kExitNotWritten;
}

}  // namespace

int run_command(const CommonArguments& arguments, const RunOutput& output) {
  RunOptions options;
  std::vector<fs::path> paths;
  if (!to_run_options(arguments, &options, &paths) ||
      !ctest_records_usable(output, paths)) {
    return kExitUsage;
  }
  options.fail_fast = output.fail_fast;
  Plan plan = load_plan(paths, options);
  if (selection_is_empty(plan, options, "casebook run")) return kExitUsage;
  const fs::path record = last_failed_file(paths.front());
  const Selection selected =
      run_selection(plan, options, output.last_failed, record);
  const bool colour = colour_wanted(STDOUT_FILENO);
  RunListeners listeners =
      run_listeners({output, count_selected(plan, selected),
                     isatty(STDOUT_FILENO) == 1, colour, record});
  Execution execution;
  try {
    execution = execute_plan(plan, options, selected, listeners);
  } catch (const std::runtime_error& error) {
    // The JUnit file cannot be made: a configuration error.
    std::cerr << "casebook: " << printable_text(error.what()) << "\n";
    return kExitUsage;
  }
  const std::vector<std::string> not_written = listeners.write_errors();
  say_not_written(not_written);
  if (!not_written.empty()) return kExitNotWritten;
  if (output.ctest_records.empty()) {
    return exit_status_of(execution.summary, arguments.allow_skipped,
                          "casebook run");
  }
  return keep_ctest_records(plan, execution.summary, paths.front(),
                            output.ctest_records);
}

Command add_run(CLI::App& app) {
  auto arguments = std::make_shared<CommonArguments>();
  auto output = std::make_shared<RunOutput>();
  CLI::App* run = app.add_subcommand(
      "run",
      "run the cases; print each failure as it lands (a status line instead "
      "on a terminal), then how many case files were found, the environment "
      "(an absent backend's reason "
      "there, once, and how many runs it skipped), a table with a row per "
      "case and a column per backend that ran (not a line per case and "
      "backend: --verbose adds those), a block per failure with its rerun "
      "command, and the counts");
  add_common_options(run, arguments.get());
  add_evidence_option(run, arguments.get());
  run->add_option("--junit", output->junit,
                  "also write a JUnit XML file, as results arrive");
  run->add_option("--json", output->json,
                  "also write the results as JSON once the run has ended "
                  "(schema/results.schema.json): what programs read");
  run->add_option("--summary", output->summary,
                  "also write a Markdown summary (the cases x backends "
                  "table, each failure with its rerun command), e.g. "
                  "$GITHUB_STEP_SUMMARY");
  run->add_flag("!--brief", output->details,
                "failures without their details and advice");
  run->add_flag("--verbose,-v", output->verbose,
                "a line per case and backend as it lands, absent backends' "
                "skips included");
  run->add_flag("--quiet,-q", output->quiet,
                "no progress and no table: only failures and the counts");
  run->add_flag("--last-failed,--lf", output->last_failed,
                "only the runs that failed when last run (recorded in "
                ".casebook_cache/ of the cases' repository, as pytest's "
                ".pytest_cache, or $CASEBOOK_CACHE_DIR); every selected run "
                "when none failed");
  run->add_flag("--table", output->table,
                "a row per case however many (past " +
                    std::to_string(kFullTableRows) +
                    " cases only those that did not pass everywhere are "
                    "listed, the rest counted)");
  run->add_option("--durations", output->durations,
                  "N: list the N slowest runs after the table (pytest's "
                  "--durations)")
      ->check(CLI::NonNegativeNumber);
  run->add_option("--ctest-records", output->ctest_records,
                  "DIR: keep each case file's result under DIR for its own "
                  "ctest test (casebook_add_cases); exit 0 once they are "
                  "kept, whatever the verdicts");
  run->add_flag("-x,--fail-fast", output->fail_fast,
                "stop at the first run that does not pass: the runs not "
                "finished are NOT RUN");
  return {run,
          [arguments, output] { return run_command(*arguments, *output); }};
}

}  // namespace casebook
