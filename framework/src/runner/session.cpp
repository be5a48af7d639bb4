#include "runner/session.h"

#include <fcntl.h>
#include <fnmatch.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <torch/version.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <thread>

#include "casebook/diagnosis.h"
#include "casebook/neighbors.h"
#include "device/backend_runtime.h"
#include "process/fork_rules.h"
#include "process/subprocess.h"
#include "runner/judge.h"
#include "runner/rerun.h"
#include "runner/scheduler.h"

namespace casebook {
namespace fs = std::filesystem;

namespace {

const OpRegistry& registry_of(const RunOptions& options) {
  return options.registry != nullptr ? *options.registry : default_registry();
}

// A private folder for the children's output files, on a memory file system
// where there is one: outputs then never touch a disk.
std::string make_run_root() {
  std::string base = "/dev/shm";
  if (access(base.c_str(), W_OK) != 0) {
    const char* tmp = getenv("TMPDIR");
    base = tmp != nullptr ? tmp : "/tmp";
  }
  std::string pattern = base + "/casebook-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("cannot create a run folder under " + base);
  }
  return pattern;
}

int default_jobs() {
  unsigned cores = std::thread::hardware_concurrency();
  return cores == 0 ? 1 : static_cast<int>(cores);
}

const Job* find_job(const std::vector<Job>& jobs, const PlannedCase& planned,
                    Backend backend, JobKind kind) {
  for (size_t index : planned.jobs) {
    if (jobs[index].backend == backend && jobs[index].kind == kind) {
      return &jobs[index];
    }
  }
  return nullptr;
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

}  // namespace

Plan load_plan(const std::vector<fs::path>& paths, const RunOptions& options) {
  Plan plan;
  const OpRegistry& registry = registry_of(options);
  std::map<std::string, fs::path> ids;
  // `when` conditions read this run's environment (LibTorch, OS, CPU).
  plan.host_facts = condition_facts(TORCH_VERSION);
  const EnvironmentFacts& facts = plan.host_facts;
  // A case, then each neighbour it declares: a run of its own, from the
  // same file (casebook/neighbors.h).
  auto add_case = [&](PlannedCase planned) {
    const fs::path& file = planned.loaded.file;
    if (planned.loaded.value) resolve_conditions(*planned.loaded.value, facts);
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
        if (planned.value().runs_on(backend))
          planned.reported.push_back(backend);
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
  };
  std::vector<CaseError> refused;
  const std::vector<fs::path> files = find_case_files(
      paths, &plan.missing_paths, &refused, options.allow_links_outside);
  for (CaseError& error : refused) {
    PlannedCase planned;
    planned.loaded.file = error.where.file;
    planned.loaded.id = derive_case_id(
        error.where.file, named_folder_of(error.where.file, paths));
    planned.loaded.errors.push_back(std::move(error));
    add_case(std::move(planned));
  }
  for (const fs::path& file : files) {
    PlannedCase planned;
    planned.loaded = load_case_file(file, named_folder_of(file, paths));
    std::vector<Neighbor> neighbors;
    if (planned.loaded.ok()) {
      neighbors = declared_neighbors(planned.value()).neighbors;
    }
    add_case(std::move(planned));
    for (Neighbor& neighbor : neighbors) {
      PlannedCase generated;
      generated.neighbor = true;
      generated.loaded.file = file;
      generated.loaded.id = neighbor.id;
      generated.loaded.value = std::move(neighbor.value);
      add_case(std::move(generated));
    }
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

bool selected_by(const RunOptions& options, const PlannedCase& planned,
                 Backend backend) {
  return in_shard(planned.loaded.id, options.shard_index,
                  options.shard_count) &&
         (options.case_id.empty() || options.case_id == planned.loaded.id) &&
         filter_matches(options.filter, planned, backend);
}

std::map<Backend, BackendStatus> probe_backends(
    const std::vector<Backend>& backends) {
  std::map<Backend, BackendStatus> result;
  if (backends.empty()) return result;
  ChildProcess child = spawn_child(
      [&backends](int report_fd, int) {
        std::string lines;
        for (Backend backend : backends) {
          lines += std::string(backend_name(backend)) + " " +
                   readiness_to_json(open_backend_runtime(backend).readiness) +
                   "\n";
        }
        return write_all(report_fd, lines) ? 0 : 1;
      },
      false);
  // The probe only counts devices (about 0.3 s with a CUDA context); a driver
  // that hangs must not hang the run, so it gets a deadline.
  constexpr int kProbeTimeoutMs = 120'000;
  std::string text;
  bool timed_out = false;
  for (bool open = true; open;) {
    pollfd fd{child.from_child, POLLIN, 0};
    if (poll(&fd, 1, kProbeTimeoutMs) == 0) {
      timed_out = true;
      kill_process_group(child.pid);
      break;
    }
    open = read_available(child.from_child, &text);
  }
  close_fd(&child.from_child);
  int status = 0;
  while (waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
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
      timed_out ? "the backend probe gave no answer in 120 s"
                : "the backend probe " + describe_wait_status(status) +
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
  RunObserver observer;
  observer.on_verdict = on_verdict;
  return execute_plan(plan, options, selected, observer);
}

Execution execute_plan(Plan& plan, const RunOptions& options,
                       const Selection& selected, const RunObserver& observer) {
  const auto& on_verdict = observer.on_verdict;
  Execution execution;
  // Before anything runs: a runner that may not fork runs nothing.
  require_safe_to_fork("the runs of this plan");
  // Which GPU backends does anything selected want? Probe only those.
  std::vector<Backend> gpu_wanted;
  for (const PlannedCase& planned : plan.cases) {
    for (Backend backend : planned.reported) {
      // A skip that may not hold once the device's facts are known
      // (`when: {capability: ...}`) still wants the probe.
      if (is_gpu(backend) && planned.runnable() && selected(planned, backend) &&
          std::find(gpu_wanted.begin(), gpu_wanted.end(), backend) ==
              gpu_wanted.end() &&
          (planned.value().expectation(backend).kind !=
               Expectation::Kind::kSkip ||
           reads_device_facts(planned.value(), backend))) {
        gpu_wanted.push_back(backend);
      }
    }
  }
  for (Backend backend : options.required) {
    if (is_gpu(backend) && std::find(gpu_wanted.begin(), gpu_wanted.end(),
                                     backend) == gpu_wanted.end()) {
      gpu_wanted.push_back(backend);
    }
  }
  execution.backends = probe_backends(gpu_wanted);
  if (observer.on_start) observer.on_start(execution.backends);
  // The devices' facts are known now: conditions on them decide again.
  std::map<Backend, EnvironmentFacts> devices;
  for (const auto& [backend, status] : execution.backends) {
    if (status.ready() && !status.facts.empty())
      devices[backend] = status.facts;
  }
  if (!devices.empty()) {
    if (plan.host_facts.empty()) {  // a plan not made by load_plan
      plan.host_facts = condition_facts(TORCH_VERSION);
    }
    for (PlannedCase& planned : plan.cases) {
      if (planned.loaded.value) {
        resolve_conditions(*planned.loaded.value, plan.host_facts, devices);
      }
    }
  }
  // A required backend that is absent cannot run: an error, like broken.
  for (auto& [backend, status] : execution.backends) {
    if (status.state == Readiness::kAbsent &&
        std::find(options.required.begin(), options.required.end(), backend) !=
            options.required.end()) {
      status.state = Readiness::kBroken;
      status.reason = "required (--require, $CASEBOOK_REQUIRE) but absent: " +
                      status.reason;
    }
  }

  CaseTable table;
  std::vector<Job> jobs;
  std::vector<size_t> order;  // cases with something selected, in file order
  for (size_t position = 0; position < plan.cases.size(); ++position) {
    PlannedCase& planned = plan.cases[position];
    bool any = false;
    for (Backend backend : planned.reported) any |= selected(planned, backend);
    if (!any) continue;
    order.push_back(position);
    if (!planned.runnable()) continue;
    const Case& kase = planned.value();
    planned.table_index = table.cases.size();
    table.cases.push_back(&kase);
    table.ops.push_back(planned.op);
    auto add_job = [&](Backend backend, JobKind kind) {
      Job job;
      job.case_position = position;
      job.backend = backend;
      job.kind = kind;
      planned.jobs.push_back(jobs.size());
      jobs.push_back(std::move(job));
    };
    std::vector<Backend> gpu_runs;
    for (Backend backend : planned.reported) {
      if (!is_gpu(backend) || !selected(planned, backend)) continue;
      if (kase.expectation(backend).kind == Expectation::Kind::kSkip) continue;
      if (!kase.expectation(backend).missing.empty()) continue;  // its ERROR
      if (!execution.backends[backend].ready()) continue;
      gpu_runs.push_back(backend);
    }
    // The CPU runs when it is judged itself or when it is the reference of a
    // GPU run; a cuda-only lane on a machine without CUDA runs nothing.
    const bool cpu_judged =
        std::find(planned.reported.begin(), planned.reported.end(),
                  Backend::kCpu) != planned.reported.end() &&
        selected(planned, Backend::kCpu);
    const bool any_run = cpu_judged || !gpu_runs.empty();
    if (any_run && kase.reference == Case::Reference::kCpu64) {
      add_job(Backend::kCpu, JobKind::kReferenceCpu64);
    } else if (any_run && kase.reference == Case::Reference::kTorch) {
      add_job(Backend::kCpu, JobKind::kReferenceTorch);
    }
    const long cpu_reference =
        planned.jobs.empty() ? -1 : static_cast<long>(planned.jobs.back());
    if (cpu_judged ||
        (!gpu_runs.empty() && kase.reference == Case::Reference::kCpu)) {
      add_job(Backend::kCpu, JobKind::kRun);
      // One fork, not two: the reference and the run are both the CPU's.
      if (cpu_reference >= 0) {
        jobs[cpu_reference].then_job = static_cast<long>(jobs.size() - 1);
        jobs.back().second = true;
      }
    }
    for (Backend backend : gpu_runs) add_job(backend, JobKind::kRun);
    planned.jobs_left = planned.jobs.size();
  }

  auto judge_case = [&](size_t position) {
    PlannedCase& planned = plan.cases[position];
    const Job* reference = nullptr;
    if (planned.runnable()) {
      const Case& kase = planned.value();
      JobKind kind =
          kase.reference == Case::Reference::kCpu64   ? JobKind::kReferenceCpu64
          : kase.reference == Case::Reference::kTorch ? JobKind::kReferenceTorch
                                                      : JobKind::kRun;
      reference = find_job(jobs, planned, Backend::kCpu, kind);
    }
    for (Backend backend : planned.reported) {
      if (!selected(planned, backend)) continue;
      const BackendStatus* status = nullptr;
      if (is_gpu(backend) && execution.backends.count(backend)) {
        status = &execution.backends[backend];
      }
      JudgeInputs inputs{
          planned,   backend, find_job(jobs, planned, backend, JobKind::kRun),
          reference, status,  options.evidence_root,
          &options};
      CaseVerdict verdict = judge(inputs);
      if (on_verdict) on_verdict(verdict);
      execution.summary.verdicts.push_back(std::move(verdict));
    }
    // Outputs are judged: release the mapped files.
    for (size_t index : planned.jobs) jobs[index].result.outputs.clear();
  };

  std::string run_root = make_run_root();
  bool finished = true;
  {
    SchedulerOptions scheduler_options;
    scheduler_options.cpu_slots =
        options.jobs > 0 ? options.jobs : default_jobs();
    scheduler_options.isolation = options.isolation;
    scheduler_options.run_root = run_root;
    scheduler_options.child_environment = options.child_environment;
    scheduler_options.fork_server = options.cpu_fork_server;
    scheduler_options.case_window =
        2 * static_cast<size_t>(scheduler_options.cpu_slots) + 8;
    if (observer.on_case_started) {
      scheduler_options.on_case_started = [&plan, &observer](size_t position) {
        observer.on_case_started(plan.cases[position]);
      };
    }
    Scheduler scheduler(table, plan.cases, jobs, scheduler_options);
    // Broken cases are judged at once; runnable ones as their jobs finish.
    for (size_t position : order) {
      if (plan.cases[position].jobs.empty()) judge_case(position);
    }
    finished = scheduler.run(judge_case);
    execution.workers_started = scheduler.counters().workers_started;
    execution.confirm_reruns = scheduler.counters().confirm_reruns;
  }
  if (!finished) {
    // Interrupted: the cases that finished keep their verdicts; every other
    // selected pair is NOT RUN.
    execution.summary.interrupted = true;
    for (size_t position : order) {
      PlannedCase& planned = plan.cases[position];
      if (!planned.runnable() || planned.jobs_left == 0) continue;
      for (Backend backend : planned.reported) {
        if (!selected(planned, backend)) continue;
        CaseVerdict verdict;
        verdict.case_id = planned.loaded.id;
        verdict.backend = backend;
        verdict.file = planned.loaded.file;
        verdict.verdict = Verdict::kNotRun;
        verdict.message = "not run: interrupted by signal " +
                          std::to_string(last_interrupting_signal());
        verdict.rerun_command = rerun_line(planned, backend, options);
        if (on_verdict) on_verdict(verdict);
        execution.summary.verdicts.push_back(std::move(verdict));
      }
    }
  }
  std::error_code ignored;
  fs::remove_all(run_root, ignored);
  // Verdicts land as cases finish; report them in file order, then backend.
  // A case's neighbours share its file: the id tells them apart.
  std::map<std::string, size_t> rank;
  auto key = [](const fs::path& file, const std::string& id) {
    return file.string() + '\n' + id;
  };
  for (size_t i = 0; i < plan.cases.size(); ++i) {
    rank.emplace(key(plan.cases[i].loaded.file, plan.cases[i].loaded.id), i);
  }
  std::stable_sort(execution.summary.verdicts.begin(),
                   execution.summary.verdicts.end(),
                   [&rank, &key](const CaseVerdict& a, const CaseVerdict& b) {
                     size_t ra = rank[key(a.file, a.case_id)];
                     size_t rb = rank[key(b.file, b.case_id)];
                     return ra != rb ? ra < rb : a.backend < b.backend;
                   });
  return execution;
}

}  // namespace casebook
