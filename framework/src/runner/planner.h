// The pure part of a run: which GPU backends the probe must ask, what
// `--require` makes of its answers, which jobs each selected case needs, and
// the order verdicts are reported in. No process, no file, no device: each
// is a function of its arguments (tests/lib/planner_test.cpp), and
// execute_plan (runner/session.h) composes them with the probe, the scheduler
// and the judge.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "child/execute.h"
#include "runner/plan.h"
#include "runner/session.h"

namespace casebook {

// The GPU backends a selected, runnable case runs on (one whose expectation
// there is not `skip`, or whose skip may not hold once the device's facts are
// known), then the required ones, each once, in that order.
std::vector<Backend> backends_to_probe(const Plan& plan,
                                       const Selection& selected,
                                       const std::vector<Backend>& required);

// What the case must do on `backend` in this run: as loaded, or, where an
// entry reads a device fact and the probe gave the backend's, the first
// entry that holds with the host's facts and that device's (never another
// backend's). `planned` must hold a loaded case.
Expectation expectation_in_run(const Plan& plan, const PlannedCase& planned,
                               Backend backend);

// `--require` (and $CASEBOOK_REQUIRE): a required backend the probe found
// absent cannot run, and that is an error: it becomes broken, saying why.
// So does each absent part of a required backend (a CUDA LibTorch without
// the kernel plugin: the kernels.* cases are errors, the torch.* cases run).
void apply_required(const std::vector<Backend>& required,
                    std::map<Backend, BackendStatus>* statuses);

struct JobPlan {
  CaseTable table;            // the runnable cases with a job, and their ops
  std::vector<Job> jobs;      // what the scheduler runs
  std::vector<size_t> order;  // cases with a pair selected, in plan order
};

// What decides whether the case runs on `backend`: where the backend is
// ready, the part its op needs (part_readiness: absent is a skip, broken, as
// --require makes an absent part, an error); where it is absent or broken,
// the whole backend. Null for cpu, a backend not probed, or a case whose op
// is not known (a file that did not load or an unknown op: the judge says
// why). The planner and the judge both ask it.
std::optional<PartReadiness> readiness_for_case(
    const std::map<Backend, BackendStatus>& readiness,
    const PlannedCase& planned, Backend backend);

// What one selected (case, backend) is in this run before its run's report
// is read: the one answer to "what does this case expect here, in this run?"
// and "may it run here?". Built once for each pair (pair_in_run) and handed
// to the judge, which falls back on nothing.
struct PairInRun {
  // What the case must do on the backend in this run (expectation_in_run);
  // none for a file that did not load (the judge says why).
  std::optional<Expectation> expect;
  // What decides whether it ran (readiness_for_case); where that has no
  // answer, the whole backend's readiness, and for cpu ready.
  PartReadiness needed{Readiness::kReady, {}, {}, {}};
  // The whole backend is absent: its skips are counted apart.
  bool backend_absent = false;
};

// The pair in this run, from the probe's `readiness` and the plan's facts.
PairInRun pair_in_run(const Plan& plan,
                      const std::map<Backend, BackendStatus>& readiness,
                      const PlannedCase& planned, Backend backend);

// The pair as its file says, on a ready backend (no probe, no device
// facts): what a caller that judges a run of its own making hands the judge.
PairInRun pair_as_loaded(const PlannedCase& planned, Backend backend);

// The jobs of every selected pair. A GPU run where the part of its backend
// that the case's op needs is ready (readiness_for_case), its
// expectation in this run is not `skip` and nothing is missing from it; the CPU
// run where cpu is judged or is a GPU run's reference; a cpu64 or torch
// reference where anything runs, sharing one child with the CPU run
// (Job::then_job). Sets each planned case's table_index and jobs;
// changes nothing else. `readiness`: the probe's answers; a GPU backend it
// lacks is not ready.
JobPlan plan_jobs(Plan& plan, const std::map<Backend, BackendStatus>& readiness,
                  const Selection& selected);

// The case's job of `kind` on `backend`; null when none was planned.
const Job* find_job(const std::vector<Job>& jobs, const PlannedCase& planned,
                    Backend backend, JobKind kind);

// The job a case's runs are compared with: its cpu64 or torch reference, or
// its CPU run (the `cpu` reference); null when the case is not runnable.
const Job* reference_job(const std::vector<Job>& jobs,
                         const PlannedCase& planned);

// NOT RUN for every selected pair of a case in `order` whose jobs did not all
// finish (`jobs_left`, by case position: the run's state,
// runner/run_state.h); the run was interrupted by `signal`.
std::vector<CaseVerdict> not_run_verdicts(const Plan& plan,
                                          const std::vector<size_t>& order,
                                          const Selection& selected,
                                          const RunOptions& options,
                                          const std::vector<size_t>& jobs_left,
                                          int signal);

// Verdicts land as cases finish; they are reported in plan order (a case's
// neighbours share its file: the id tells them apart), then by backend.
void order_verdicts(const Plan& plan, std::vector<CaseVerdict>* verdicts);

}  // namespace casebook
