#include "runner/session.h"

#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <torch/version.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <thread>

#include "casebook/diagnosis.h"
#include "casebook/neighbors.h"
#include "casebook/op_catalog.h"
#include "device/backend_runtime.h"
#include "process/fork_rules.h"
#include "process/interrupts.h"
#include "process/run_to_end.h"
#include "process/scratch_folder.h"
#include "process/subprocess.h"
#include "runner/evidence.h"
#include "runner/judge.h"
#include "runner/output.h"
#include "runner/planner.h"
#include "runner/rerun.h"
#include "runner/scheduler.h"

namespace casebook {
namespace fs = std::filesystem;

namespace {

const OpRegistry& registry_of(const RunOptions& options) {
  return options.registry != nullptr ? *options.registry : default_registry();
}

int default_jobs() {
  unsigned cores = std::thread::hardware_concurrency();
  return cores == 0 ? 1 : static_cast<int>(cores);
}

// The folder of the run's `paths` that `file` was found in (a file named
// itself: its folder). A case's id is its path under that folder, or under
// its nearest `cases/` folder, never under the current directory: `casebook
// run /abs/suite` from elsewhere gives `a/b/x`, not `x` for every file.
fs::path named_folder_of(const fs::path& file,
                         const std::vector<fs::path>& paths) {
  std::error_code error;
  const fs::path normal = fs::absolute(file, error).lexically_normal();
  for (const fs::path& path : paths) {
    const fs::path named = fs::absolute(path, error).lexically_normal();
    const fs::path folder =
        fs::is_directory(named, error) ? named : named.parent_path();
    const fs::path under = normal.lexically_relative(folder);
    if (!under.empty() && *under.begin() != "..") return folder;
  }
  return normal.parent_path();
}

bool runs_on_host_only(const OpDef& op) {
  return op.placement == OpDef::Placement::kHost && !op.needs_kernel_plugin;
}

// Plans one case: its conditions resolved with the plan's facts, its id
// checked against the ids planned before (`ids`), its op resolved and the
// backends it reports on chosen (load_plan, plan_cases).
void add_planned_case(Plan& plan, PlannedCase planned,
                      const RunOptions& options,
                      std::map<std::string, fs::path>& ids) {
  const OpRegistry& registry = registry_of(options);
  const fs::path& file = planned.loaded.file;
  if (planned.loaded.value) {
    resolve_conditions(*planned.loaded.value, plan.host_facts);
  }
  auto [first, fresh] = ids.emplace(planned.loaded.id, file);
  if (!fresh) {
    planned.plan_errors.push_back(file.string() + ": case id `" +
                                  planned.loaded.id + "` is also the id of " +
                                  first->second.string() +
                                  "; give one of them another `id`");
  }
  if (planned.loaded.ok()) {
    ResolvedOp resolved = resolve_op(planned.value(), registry);
    for (std::string& error : resolved.problems) {
      planned.plan_errors.push_back(std::move(error));
    }
    planned.op = resolved.def;
    planned.generated_op = std::move(resolved.generated);
    for (Backend backend : options.backends) {
      if (planned.value().runs_on(backend)) planned.reported.push_back(backend);
    }
    // A host op (validate.*) runs on the CPU whatever the backend: one
    // verdict, in the cpu lane; never a cuda or hip verdict for a run no
    // GPU took part in.
    if (planned.op != nullptr && runs_on_host_only(*planned.op)) {
      const bool cpu =
          std::find(planned.reported.begin(), planned.reported.end(),
                    Backend::kCpu) != planned.reported.end();
      planned.reported.clear();
      if (cpu) planned.reported.push_back(Backend::kCpu);
    }
  } else {
    planned.reported = options.backends;
  }
  // A case that cannot run is wrong wherever it would run: one ERROR (one
  // row, one JUnit entry, one gtest test), on the first backend asked.
  if (!planned.runnable() && planned.reported.size() > 1) {
    planned.reported.resize(1);
  }
  plan.cases.push_back(std::move(planned));
}

}  // namespace

Plan load_plan(const std::vector<fs::path>& paths, const RunOptions& options) {
  Plan plan;
  std::map<std::string, fs::path> ids;
  // `when` conditions read this run's environment (LibTorch, OS, CPU).
  plan.host_facts = condition_facts(TORCH_VERSION);
  std::vector<CaseError> refused;
  const std::vector<fs::path> files = find_case_files(
      paths, &plan.missing_paths, &refused, options.allow_links_outside);
  for (CaseError& error : refused) {
    PlannedCase planned;
    planned.loaded.file = error.where.file;
    planned.loaded.id = derive_case_id(
        error.where.file, named_folder_of(error.where.file, paths));
    planned.loaded.errors.push_back(std::move(error));
    add_planned_case(plan, std::move(planned), options, ids);
  }
  for (const fs::path& file : files) {
    PlannedCase planned;
    planned.loaded = load_case_file(file, named_folder_of(file, paths));
    std::vector<Neighbor> neighbors;
    if (planned.loaded.ok()) {
      neighbors = declared_neighbors(planned.value()).neighbors;
    }
    add_planned_case(plan, std::move(planned), options, ids);
    // Each neighbour it declares: a run of its own, from the same file
    // (casebook/neighbors.h).
    for (Neighbor& neighbor : neighbors) {
      PlannedCase generated;
      generated.neighbor = true;
      generated.loaded.file = file;
      generated.loaded.id = neighbor.id;
      generated.loaded.value = std::move(neighbor.value);
      add_planned_case(plan, std::move(generated), options, ids);
    }
  }
  return plan;
}

Plan plan_cases(std::vector<LoadedCase> cases, const RunOptions& options) {
  Plan plan;
  std::map<std::string, fs::path> ids;
  plan.host_facts = condition_facts(TORCH_VERSION);
  for (LoadedCase& loaded : cases) {
    PlannedCase planned;
    planned.loaded = std::move(loaded);
    add_planned_case(plan, std::move(planned), options, ids);
  }
  return plan;
}

bool filter_matches(const std::string& pattern, const PlannedCase& planned,
                    Backend backend) {
  if (pattern.empty()) return true;
  const std::string& id = planned.loaded.id;
  const std::string with_backend =
      id + "/" + std::string(backend_name(backend));
  const std::string file = planned.loaded.file.string();
  for (const std::string& subject : {id, with_backend, file}) {
    if (fnmatch(pattern.c_str(), subject.c_str(), 0) == 0) return true;
  }
  // A plain word matches as a substring, like gtest's and ctest's -R.
  return pattern.find_first_of("*?[") == std::string::npos &&
         id.find(pattern) != std::string::npos;
}

bool in_shard(const std::string& case_id, int index, int count) {
  if (count <= 1) return true;
  uint64_t hash = 14695981039346656037ull;  // FNV-1a, 64 bits
  for (unsigned char c : case_id) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return static_cast<int>(hash % static_cast<uint64_t>(count)) == index;
}

bool any_pattern_matches(const std::vector<std::string>& patterns,
                         const PlannedCase& planned, Backend backend) {
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const std::string& pattern) {
                       return filter_matches(pattern, planned, backend);
                     });
}

bool selected_by(const RunOptions& options, const PlannedCase& planned,
                 Backend backend) {
  return in_shard(planned.loaded.id, options.shard_index,
                  options.shard_count) &&
         (options.case_id.empty() || options.case_id == planned.loaded.id) &&
         (options.filters.empty() ||
          any_pattern_matches(options.filters, planned, backend)) &&
         !any_pattern_matches(options.excludes, planned, backend);
}

std::map<Backend, BackendStatus> probe_backends(
    const std::vector<Backend>& backends) {
  std::map<Backend, BackendStatus> result;
  if (backends.empty()) return result;
  // The probe only counts devices (about 0.3 s with a CUDA context); a driver
  // that hangs must not hang the run, so it gets a deadline.
  constexpr double kProbeTimeoutSeconds = 120;
  ChildEnd probe = run_child_to_end(
      [&backends](int output_fd) {
        std::string lines;
        for (Backend backend : backends) {
          lines += std::string(backend_name(backend)) + " " +
                   readiness_to_json(open_backend_runtime(backend).readiness) +
                   "\n";
        }
        return write_all(output_fd, lines) ? 0 : 1;
      },
      kProbeTimeoutSeconds);
  std::string& text = probe.output;
  std::map<std::string, std::string> answers;
  for (std::string line; take_line(&text, &line);) {
    const size_t space = line.find(' ');
    if (space != std::string::npos) {
      answers[line.substr(0, space)] = line.substr(space + 1);
    }
  }
  // A probe that died, hung or said nothing is broken, never absent: it must
  // not turn a GPU lane into a row of skips.
  const std::string failure =
      probe.timed_out
          ? "the backend probe gave no answer in 120 s"
          : "the backend probe " + describe_wait_status(probe.wait_status) +
                " before answering";
  for (Backend backend : backends) {
    auto answer = answers.find(std::string(backend_name(backend)));
    if (answer == answers.end()) {
      result[backend] = probe_failure(failure);
      continue;
    }
    try {
      result[backend] = readiness_from_json(answer->second);
    } catch (const std::exception& error) {
      result[backend] =
          probe_failure("the backend probe's answer is unreadable: " +
                        std::string(error.what()));
    }
  }
  return result;
}

Execution execute_plan(
    Plan& plan, const RunOptions& options, const Selection& selected,
    const std::function<void(const CaseVerdict&)>& on_verdict) {
  RunListeners listeners;
  listeners.append(verdict_callback(on_verdict));
  return execute_plan(plan, options, selected, listeners);
}

namespace {

// The devices' facts are known once the probe has answered: the plan keeps
// them, and conditions on them decide (expectation_in_run).
void record_device_facts(Plan& plan,
                         const std::map<Backend, BackendStatus>& statuses) {
  for (const auto& [backend, status] : statuses) {
    if (status.ready() && !status.facts.empty()) {
      plan.device_facts[backend] = status.facts;
    }
  }
  if (!plan.device_facts.empty() && plan.host_facts.empty()) {
    plan.host_facts = condition_facts(TORCH_VERSION);  // not made by load_plan
  }
}

SchedulerOptions scheduler_options_for(const RunOptions& options,
                                       const std::string& run_root) {
  SchedulerOptions scheduler;
  scheduler.cpu_slots = options.jobs > 0 ? options.jobs : default_jobs();
  scheduler.isolation = options.isolation;
  scheduler.run_root = run_root;
  scheduler.child_environment = options.child_environment;
  scheduler.fork_server = options.cpu_fork_server;
  scheduler.case_window = 2 * static_cast<size_t>(scheduler.cpu_slots) + 8;
  return scheduler;
}

// The verdict of one selected (case, backend), as the printers will show
// it: the judge's, with the readiness that decides the pair and the
// expectation in this run, after the judgement's listeners.
CaseVerdict judge_pair(const Plan& plan, const JobPlan& jobs,
                       const RunState& state,
                       const std::map<Backend, BackendStatus>& backends,
                       const PlannedCase& planned, Backend backend,
                       const RunOptions& options,
                       const std::vector<JudgementListener>& listeners) {
  const JudgeInputs inputs{
      planned,
      backend,
      state.result_of(jobs.jobs,
                      find_job(jobs.jobs, planned, backend, JobKind::kRun)),
      state.result_of(jobs.jobs, reference_job(jobs.jobs, planned)),
      pair_in_run(plan, backends, planned, backend),
      options};
  Judgement judged = judgement_of(inputs);
  for (const JudgementListener& listener : listeners) {
    listener(planned, judged);
  }
  return fit_to_show(std::move(judged.verdict));
}

// Runs the jobs: a case that cannot run (it did not load) is judged at once,
// a runnable one as its jobs finish. Whether every job ran (not interrupted
// or stopped); the scheduler's counters into `execution`.
bool run_jobs(Scheduler& scheduler, const Plan& plan, const JobPlan& jobs,
              const std::function<void(size_t)>& judge_case,
              Execution* execution) {
  for (size_t position : jobs.order) {
    if (plan.cases[position].jobs.empty()) judge_case(position);
  }
  const bool finished = scheduler.run(judge_case);
  execution->workers_started = scheduler.counters().workers_started;
  execution->confirm_reruns = scheduler.counters().confirm_reruns;
  return finished;
}

// Each judgement's listeners, before its verdict is fit to show: the
// evidence writer where there is a root (the judge writes no file).
std::vector<JudgementListener> judgement_listeners_for(
    const RunOptions& options) {
  std::vector<JudgementListener> listeners;
  if (!options.evidence_root.empty()) {
    listeners.push_back(evidence_listener(options.evidence_root));
  }
  return listeners;
}

// Interrupted, or stopped by --fail-fast: the cases that finished keep their
// verdicts; every other selected pair is NOT RUN, delivered. Whether the run
// counts as interrupted (a signal, or any pair not run).
bool deliver_not_run(const Plan& plan, const std::vector<size_t>& order,
                     const RunState& state, const Selection& selected,
                     const RunOptions& options,
                     const std::function<void(CaseVerdict)>& deliver) {
  const int signal = last_interrupting_signal();
  std::vector<CaseVerdict> not_run =
      not_run_verdicts(plan, order, selected, options, state.jobs_left, signal);
  const bool interrupted = signal != 0 || !not_run.empty();
  for (CaseVerdict& verdict : not_run) {
    if (signal == 0) {
      verdict.message =
          "not run: --fail-fast stopped the run at the first failure";
    }
    deliver(std::move(verdict));
  }
  return interrupted;
}

}  // namespace

Execution execute_plan(Plan& plan, const RunOptions& options,
                       const Selection& selected, RunListeners& listeners) {
  Execution execution;
  // Before anything runs: a runner that may not fork runs nothing.
  require_safe_to_fork("the runs of this plan");
  execution.backends =
      plan.probed
          ? *plan.probed
          : probe_backends(backends_to_probe(plan, selected, options.required));
  listeners.on_start(execution.backends);
  record_device_facts(plan, execution.backends);
  apply_required(options.required, &execution.backends);
  JobPlan jobs = plan_jobs(plan, execution.backends, selected);

  const std::vector<JudgementListener> judgement_listeners =
      judgement_listeners_for(options);
  // --fail-fast: the first verdict that is not a success stops the run.
  bool failed = false;
  const std::function<void(CaseVerdict)> deliver = [&](CaseVerdict verdict) {
    failed = failed || !verdict_is_success(verdict.verdict);
    listeners.on_verdict(verdict);
    execution.summary.verdicts.push_back(std::move(verdict));
  };
  // The children's output files; removed when the run ends.
  const ScratchFolder run_root("run");
  SchedulerOptions scheduler_options =
      scheduler_options_for(options, run_root.path());
  if (options.fail_fast) {
    scheduler_options.stop_requested = [&failed] { return failed; };
  }
  scheduler_options.on_case_started = [&plan, &listeners](size_t position) {
    listeners.on_case_started(plan.cases[position]);
  };
  Scheduler scheduler(jobs.table, plan.cases, jobs.jobs, scheduler_options);
  auto judge_case = [&](size_t position) {
    const PlannedCase& planned = plan.cases[position];
    for (Backend backend : planned.reported) {
      if (!selected(planned, backend)) continue;
      deliver(judge_pair(plan, jobs, scheduler.state(), execution.backends,
                         planned, backend, options, judgement_listeners));
    }
  };
  const bool finished = run_jobs(scheduler, plan, jobs, judge_case, &execution);
  if (!finished) {
    execution.summary.interrupted = deliver_not_run(
        plan, jobs.order, scheduler.state(), selected, options, deliver);
  }
  order_verdicts(plan, &execution.summary.verdicts);
  const Environment environment = run_environment(execution.backends);
  listeners.on_end({plan, execution.summary, environment});
  return execution;
}

}  // namespace casebook
