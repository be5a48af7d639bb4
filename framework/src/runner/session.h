// A run from case files to verdicts: plan (load and check every case), then
// execute the selected (case, backend) pairs and judge each.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "casebook/runner.h"
#include "child/execute.h"
#include "runner/plan.h"
#include "runner/run_listener.h"

namespace casebook {

struct Plan {
  std::vector<PlannedCase> cases;
  std::vector<std::filesystem::path> missing_paths;
  // What `when` conditions read of the host (LibTorch, OS, CPU).
  EnvironmentFacts host_facts;
  // What they read of each ready GPU backend's device, once its probe has
  // answered (execute_plan); the cases are not changed by it: what a case
  // must do in this run is expectation_in_run (runner/planner.h).
  std::map<Backend, EnvironmentFacts> device_facts;
  // The GPU backends as a probe of this process already answered (a
  // reducer's candidates, run one after another); nullopt: execute_plan
  // probes them.
  std::optional<std::map<Backend, BackendStatus>> probed;
};

// Loads every case file under `paths` and checks it against its op. Every
// case gets the backends it reports verdicts on: the requested ones it runs
// on (a broken file: every requested backend); a host op (validate.*: no
// LibTorch device, no kernel plugin) one verdict, on cpu when cpu is asked
// for, else none.
Plan load_plan(const std::vector<std::filesystem::path>& paths,
               const RunOptions& options);

// A plan of cases made in memory, each `loaded.value` set (`casebook
// reduce`'s candidates): each planned as load_plan plans a file's case (its
// conditions resolved, its op resolved and checked, the backends it reports
// on), `loaded.file` naming the file its fixtures resolve from. Their
// `neighbors` are not expanded.
Plan plan_cases(std::vector<LoadedCase> cases, const RunOptions& options);

// Whether `pattern` (a glob; empty matches all) selects this case and backend:
// it is matched against "<id>", "<id>/<backend>" and the file path.
bool filter_matches(const std::string& pattern, const PlannedCase& planned,
                    Backend backend);

// Whether any of `patterns` matches (filter_matches); false for none.
bool any_pattern_matches(const std::vector<std::string>& patterns,
                         const PlannedCase& planned, Backend backend);

// What the options select: the shard, --id, the filters and the exclusions.
bool selected_by(const RunOptions& options, const PlannedCase& planned,
                 Backend backend);

using Selection = std::function<bool(const PlannedCase&, Backend)>;

struct Execution {
  RunSummary summary;
  std::map<Backend, BackendStatus> backends;  // the GPU backends probed
  int workers_started = 0;
  int confirm_reruns = 0;
};

// Runs the selected pairs, telling `listeners` (runner/run_listener.h) as
// the run goes and, once it has ended, the run's end.
Execution execute_plan(Plan& plan, const RunOptions& options,
                       const Selection& selected, RunListeners& listeners);

// Runs the selected pairs; `on_verdict` sees each verdict as it lands.
Execution execute_plan(
    Plan& plan, const RunOptions& options, const Selection& selected,
    const std::function<void(const CaseVerdict&)>& on_verdict);

// Asks a child process which GPU backends are usable (the runner itself
// never initialises CUDA or HIP).
std::map<Backend, BackendStatus> probe_backends(
    const std::vector<Backend>& backends);

}  // namespace casebook
