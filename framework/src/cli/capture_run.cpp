#include "cli/capture_run.h"

#include <stdlib.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string_view>
#include <system_error>

#include "casebook/diagnosis.h"
#include "casebook/printable.h"
#include "cli/commands.h"
#include "process/run_to_end.h"
#include "process/scratch_folder.h"
#include "runner/json_results.h"

namespace casebook {
namespace fs = std::filesystem;
namespace {

// How long the `casebook run` of a captured case may take. The run keeps its
// own deadlines (the backend probe's 120 s, the case's timeout per run, 60 s
// unless the case says), far below this: it only stops a run that is stuck
// past them, so that a capture in a script cannot hang it.
constexpr double kCaptureRunTimeoutSeconds = 600;

}  // namespace

std::vector<JudgedRun> judged_runs(const RunSummary& results,
                                   const std::optional<std::string>& id) {
  std::vector<JudgedRun> runs;
  for (const CaseVerdict& verdict : results.verdicts) {
    if (id && verdict.case_id != *id) continue;
    runs.push_back(
        {verdict.backend, verdict.verdict, verdict.family, verdict.message});
  }
  return runs;
}

namespace {

// The base case's id: the first without `~` (a neighbour's is
// `<id>~<rule>[...]`).
std::string base_case_id(const RunSummary& results) {
  for (const CaseVerdict& verdict : results.verdicts) {
    if (verdict.case_id.find('~') == std::string::npos) return verdict.case_id;
  }
  return std::string();
}

// The run's results into `run`: the base case's runs, and any run's
// invalid_case (a neighbour's too), each once: the case's own fault. A run
// that wrote none (it did not start, or refused its arguments) leaves `run`
// without outcomes; a document casebook cannot read is said.
void read_results(const fs::path& file, CaseRun* run) {
  std::ifstream in(file);
  if (!in) return;
  std::ostringstream text;
  text << in.rdbuf();
  RunSummary results;
  try {
    results = read_results_json(text.str());
  } catch (const std::exception& error) {
    std::cerr << "casebook: the run's results are unreadable: "
              << printable_text(error.what()) << "\n";
    return;
  }
  run->outcomes = judged_runs(results, base_case_id(results));
  for (const JudgedRun& outcome : judged_runs(results, std::nullopt)) {
    if (outcome.family == Family::kInvalidCase &&
        std::find(run->invalid.begin(), run->invalid.end(), outcome.message) ==
            run->invalid.end()) {
      run->invalid.push_back(outcome.message);
    }
  }
}

}  // namespace

CaseRun run_case(const fs::path& case_file, const std::string& backends,
                 const fs::path& keep_results) {
  CaseRun run;
  // The results of the run (runner/json_results.h): the file kept, cleared
  // first so that a stale one is never read; else one in a folder removed
  // when this returns.
  std::unique_ptr<ScratchFolder> folder;
  fs::path results = keep_results;
  if (results.empty()) {
    try {
      folder = std::make_unique<ScratchFolder>("capture");
    } catch (const std::runtime_error& error) {
      std::cerr << "casebook: " << printable_text(error.what()) << "\n";
      return run;
    }
    results = fs::path(folder->path()) / "capture.json";
  } else {
    std::error_code stale;
    fs::remove(results, stale);
  }
  std::vector<std::string> arguments = {
      "casebook", "run",    "--backend",      backends,          "--evidence",
      "",         "--json", results.string(), case_file.string()};
  std::cout.flush();
  // Killed with this process, however it dies (its own children follow it).
  try {
    const ChildEnd end = run_program_to_end("/proc/self/exe", arguments,
                                            ProgramOutput::kInherited,
                                            kCaptureRunTimeoutSeconds);
    if (end.timed_out) {
      std::cerr << "casebook: casebook run gave no result in "
                << static_cast<int>(kCaptureRunTimeoutSeconds)
                << " s: killed it\n";
    }
    run.status =
        WIFEXITED(end.wait_status) ? WEXITSTATUS(end.wait_status) : kExitUsage;
    read_results(results, &run);
  } catch (const std::system_error&) {
    std::cerr << "casebook: cannot start casebook run\n";
  }
  return run;
}

}  // namespace casebook
