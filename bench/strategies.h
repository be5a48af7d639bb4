// The ways of running a set of cases that the benchmark compares. Each checks
// what it ran: a strategy whose cases did not all pass reports why, and the
// benchmark prints that instead of a figure.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "casebook/backend.h"
#include "casebook/ops.h"
#include "casebook/runner.h"
#include "synthetic_cases.h"

namespace casebook::bench {

struct Timing {
  int cases = 0;
  int passed = 0;  // verdicts (or comparisons) that came out PASS
  double wall_s = 0.0;
  int workers_started = 0;  // GPU workers (casebook runs only)
  int confirm_reruns = 0;
  std::string problem;                // empty when every case passed
  std::vector<CaseVerdict> verdicts;  // casebook runs only

  double ms_per_case() const { return cases ? 1000.0 * wall_s / cases : 0.0; }
};

// (a), (b): casebook's runner, load_plan + execute_plan (what run_cases does),
// with the counters of the execution.
// `fork_server` false: the runner forks each CPU child itself, as before the
// fork server (RunOptions::cpu_fork_server).
// `registry` null: the default one (RunOptions::registry).
Timing run_casebook(const CaseSet& set, Isolation isolation, int jobs,
                    const std::vector<Backend>& backends,
                    bool fork_server = true,
                    const OpRegistry* registry = nullptr);

// load_plan alone (read and check the case files, resolve each op), the
// median of `repeats` runs, in ms per case: what resolving an op through the
// dispatcher adds to a case before anything forks.
double plan_ms_per_case(const CaseSet& set, const OpRegistry* registry,
                        int repeats);

// (c): the floor. The same work in this process with no isolation: load each
// case, execute_request (inputs, op, output files on /dev/shm), map the
// outputs and compare them (with themselves: the comparison's cost, as a GPU
// run's would pay it). One case after another.
Timing run_in_process(const CaseSet& set);

// (d): one `casebook run <file> --backend cpu` process per case, `jobs` at a
// time, as ctest runs one test process per test.
Timing run_process_per_case(const std::filesystem::path& casebook,
                            const std::vector<std::filesystem::path>& files,
                            int jobs);

// The casebook executable beside this program's, or empty.
std::filesystem::path casebook_beside_me();

}  // namespace casebook::bench
