#include "runner/scheduler.h"

#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <filesystem>

#include "casebook/diagnosis.h"
#include "process/child_set.h"
#include "process/interrupts.h"
#include "process/run_to_end.h"
#include "runner/child_launcher.h"
#include "runner/gpu_pool.h"

namespace casebook {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

// One running one-shot child's jobs (GPU workers live in the pool; both are
// children of the Impl's ChildSet, which watches their pipes and deadlines).
struct Scheduler::Slot {
  long job = -1;   // the job in flight, -1 once it reported
  long then = -1;  // the job this child runs next (Job::then_job), or -1
};

struct Scheduler::Impl {
  const CaseTable& table;
  const std::vector<PlannedCase>& cases;
  const std::vector<Job>& jobs;
  SchedulerOptions options;
  RunState state;
  std::deque<size_t> cpu_queue;
  // Declared before what supervises with it (the pool), so it outlives them.
  ChildSet children;
  std::map<ChildSet::Id, Slot> slots;
  std::vector<size_t> open_cases;  // started, not yet judged
  std::vector<bool> case_started;
  ChildLauncher launcher;
  GpuWorkerPool gpu_pool;

  Impl(const CaseTable& t, const std::vector<PlannedCase>& c,
       const std::vector<Job>& j, SchedulerOptions o)
      : table(t),
        cases(c),
        jobs(j),
        options(std::move(o)),
        state(c, j.size()),
        launcher(table, options.child_environment,
                 options.run_root + "/fork-server", options.fork_server),
        gpu_pool(table, jobs, state.results, options.isolation,
                 options.child_environment, pool_hooks(), children) {
    case_started.assign(cases.size(), false);
    for (size_t i = 0; i < jobs.size(); ++i) {
      if (is_gpu(jobs[i].backend)) {
        gpu_pool.enqueue(i);
      } else if (!jobs[i].second) {  // a second part starts with its first
        cpu_queue.push_back(i);
      }
    }
  }

  GpuWorkerPool::Hooks pool_hooks() {
    GpuWorkerPool::Hooks hooks;
    hooks.may_start = [this](size_t job) { return may_start(job); };
    hooks.request_for = [this](size_t job) { return request_for(job); };
    hooks.case_index = [this](size_t job) { return case_index_of(job); };
    hooks.timeout_seconds = [this](size_t job) { return timeout_of(job); };
    hooks.finish = [this](size_t job, ChildReport report, double wall) {
      finish(job, std::move(report), wall);
    };
    return hooks;
  }

  std::string output_dir(size_t job) const {
    std::string dir = options.run_root + "/job" + std::to_string(job);
    std::filesystem::create_directories(dir);
    return dir;
  }

  size_t case_index_of(size_t job) const {
    return cases[jobs[job].case_position].table_index;
  }

  RunRequest request_for(size_t job_index) const {
    const Job& job = jobs[job_index];
    RunRequest request;
    request.case_index = case_index_of(job_index);
    request.backend = job.backend;
    request.kind = job.kind;
    request.output_dir = output_dir(job_index);
    request.synchronise_steps = state.results[job_index].locating;
    if (job.then_job >= 0) {
      const size_t then = static_cast<size_t>(job.then_job);
      request.then_kind = jobs[then].kind;
      request.then_output_dir = output_dir(then);
    }
    return request;
  }

  double timeout_of(size_t job) const {
    return cases[jobs[job].case_position].value().timeout_seconds;
  }

  // A job may start when its case is open or a new case may open.
  bool may_start(size_t job) {
    const size_t position = jobs[job].case_position;
    if (case_started[position]) return true;
    if (open_cases.size() >= options.case_window) return false;
    case_started[position] = true;
    open_cases.push_back(position);
    if (options.on_case_started) options.on_case_started(position);
    return true;
  }

  void start_one_shot(size_t job) {
    // The run's wall time counts from before its fork: a fork server's
    // child may have run and reported before launch() returns.
    const Clock::time_point started = Clock::now();
    ChildSet::Handlers handlers;
    handlers.on_line = [this](ChildSet::Id id, const std::string& line) {
      handle_report_line(id, line);
    };
    handlers.on_read = [this](ChildSet::Id id, bool closed) {
      if (closed) {
        handle_exit(id);
      } else if (slots.at(id).job < 0) {
        slots.erase(id);
        children.release(id);
      }
    };
    handlers.on_deadline = [this](ChildSet::Id id, double wall) {
      handle_deadline(id, wall);
    };
    const ChildSet::Id id =
        children.add(launcher.launch(request_for(job), cpu_queue.size()),
                     std::move(handlers));
    children.arm(id, started, timeout_of(job));
    slots[id] = Slot{static_cast<long>(job), jobs[job].then_job};
  }

  void fill_slots() {
    int cpu_running = static_cast<int>(slots.size());
    while (cpu_running < options.cpu_slots && !cpu_queue.empty() &&
           may_start(cpu_queue.front())) {
      size_t job = cpu_queue.front();
      cpu_queue.pop_front();
      start_one_shot(job);
      ++cpu_running;
    }
    gpu_pool.start_jobs();
  }

  int end_slot(ChildSet::Id id, bool kill) {
    slots.erase(id);
    return children.end(id, kill);
  }

  // The job's final report (GPU jobs: after the pool's confirming rerun).
  void finish(size_t job_index, ChildReport report, double wall) {
    JobResult& result = state.results[job_index];
    result.report = std::move(report);
    result.wall_seconds = wall;
    result.finished = true;
    result.outputs = read_report_outputs(&result.report);
    case_job_done(jobs[job_index].case_position);
  }

  void fail(size_t job_index, Family family, const std::string& message,
            double wall, bool timed_out) {
    ChildReport report =
        lost_run_report(&state.results[job_index], family, message, timed_out);
    finish(job_index, std::move(report), wall);
  }

  std::function<void(size_t)> on_case_done;

  // The case's last job done: it is judged, then its mapped outputs are
  // released.
  void case_job_done(size_t position) {
    if (--state.jobs_left[position] > 0) return;
    open_cases.erase(
        std::remove(open_cases.begin(), open_cases.end(), position),
        open_cases.end());
    on_case_done(position);
    for (size_t job : cases[position].jobs) state.results[job].outputs.clear();
  }

  void handle_report_line(ChildSet::Id id, const std::string& line) {
    Slot& slot = slots.at(id);
    if (slot.job < 0) return;
    const size_t job = static_cast<size_t>(slot.job);
    const double wall = children.wall_seconds(id);
    // The second part's time and deadline are its own, from now on.
    slot.job = slot.then;
    slot.then = -1;
    if (slot.job >= 0) {
      children.arm(id, Clock::now(), timeout_of(job));
    } else {
      children.disarm(id);
    }
    finish(job, decode_report(line), wall);
  }

  // The second part of a child lost in its first: failed with the same
  // family, saying where the child was lost (the CPU verdict says it once;
  // GPU verdicts see the reference's own failure).
  void fail_second(long then, size_t first, Family family,
                   const std::string& what, double wall, bool timed_out) {
    if (then < 0) return;
    const char* part =
        jobs[first].kind == JobKind::kReferenceTorch ? "torch" : "cpu64";
    fail(static_cast<size_t>(then), family,
         what + ", while running the reference (" + part +
             ") that shares it: the run itself never started",
         wall, timed_out);
  }

  // The slot's pipe reached EOF: the process ended.
  void handle_exit(ChildSet::Id id) {
    const Slot slot = slots.at(id);
    const double wall = children.wall_seconds(id);
    const int status = end_slot(id, false);
    if (slot.job < 0) return;
    std::string how = describe_wait_status(status);
    Family family = WIFSIGNALED(status) ? classify_signal(WTERMSIG(status))
                                        : Family::kCrash;
    const std::string message =
        "the run's process " + how + " before reporting";
    const size_t job = static_cast<size_t>(slot.job);
    fail(job, family, message, wall, false);
    fail_second(slot.then, job, family, message, wall, false);
  }

  void handle_deadline(ChildSet::Id id, double wall) {
    const Slot slot = slots.at(id);
    const size_t job = static_cast<size_t>(slot.job);
    end_slot(id, /*kill=*/true);
    const std::string message = killed_at_deadline(timeout_of(job));
    fail(job, Family::kTimeout, message, wall, true);
    fail_second(slot.then, job, Family::kTimeout, message, wall, true);
  }

  bool pending() const {
    if (!cpu_queue.empty() || gpu_pool.pending()) return true;
    return std::any_of(slots.begin(), slots.end(),
                       [](const auto& entry) { return entry.second.job >= 0; });
  }

  void kill_all() {
    gpu_pool.stop_all();
    slots.clear();
    children.end_all();
    launcher.stop();
  }
};

Scheduler::Scheduler(const CaseTable& table,
                     const std::vector<PlannedCase>& cases,
                     const std::vector<Job>& jobs, SchedulerOptions options)
    : impl_(new Impl(table, cases, jobs, std::move(options))) {}

const RunState& Scheduler::state() const { return impl_->state; }

Scheduler::~Scheduler() {
  impl_->kill_all();
  delete impl_;
}

bool Scheduler::run(const std::function<void(size_t)>& on_case_done) {
  install_interrupt_handlers();
  Impl& s = *impl_;
  s.on_case_done = on_case_done;
  auto stop_asked = [&s] {
    return s.options.stop_requested && s.options.stop_requested();
  };
  while (s.pending() && !stop_asked()) {
    s.fill_slots();
    if (s.children.wait(interrupt_fd()) || last_interrupting_signal() != 0) {
      s.kill_all();
      counters_.workers_started = s.gpu_pool.counters().workers_started;
      counters_.confirm_reruns = s.gpu_pool.counters().confirm_reruns;
      return false;
    }
    s.children.dispatch();
  }
  s.kill_all();
  counters_.workers_started = s.gpu_pool.counters().workers_started;
  counters_.confirm_reruns = s.gpu_pool.counters().confirm_reruns;
  return !stop_asked();
}

}  // namespace casebook
