#include "runner/scheduler.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <filesystem>

#include "casebook/diagnosis.h"
#include "process/run_to_end.h"
#include "process/subprocess.h"
#include "runner/child_launcher.h"
#include "runner/gpu_pool.h"

namespace casebook {
namespace {

using Clock = std::chrono::steady_clock;

int g_signal_pipe[2] = {-1, -1};
volatile sig_atomic_t g_last_signal = 0;
volatile sig_atomic_t g_signals_seen = 0;

// The first SIGINT or SIGTERM asks the run to stop and report; the second
// ends the process at once, whatever the runner is busy with (its children
// follow: PR_SET_PDEATHSIG).
void on_interrupt(int signal) {
  g_signals_seen = g_signals_seen + 1;
  if (g_signals_seen >= 2) {
    ::signal(signal, SIG_DFL);
    raise(signal);
    return;
  }
  g_last_signal = signal;
  const char byte = 1;
  if (g_signal_pipe[1] >= 0) (void)!write(g_signal_pipe[1], &byte, 1);
}

}  // namespace

void install_interrupt_handlers() {
  if (g_signal_pipe[0] >= 0) return;
  if (pipe2(g_signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0) return;
  track_child_fd(g_signal_pipe[0]);
  track_child_fd(g_signal_pipe[1]);
  struct sigaction action{};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  signal(SIGPIPE, SIG_IGN);  // a dead worker's pipe is handled, not fatal
}

int last_interrupting_signal() { return g_last_signal; }

// One running one-shot child with its job (GPU workers live in the pool).
struct Scheduler::Slot {
  ChildProcess process;
  Backend backend = Backend::kCpu;
  long job = -1;   // the job in flight, -1 once it reported
  long then = -1;  // the job this child runs next (Job::then_job), or -1
  Clock::time_point started;
  Clock::time_point deadline;
  std::string buffer;
};

struct Scheduler::Impl {
  const CaseTable& table;
  std::vector<PlannedCase>& cases;
  std::vector<Job>& jobs;
  SchedulerOptions options;
  std::deque<size_t> cpu_queue;
  std::vector<Slot> slots;
  std::vector<size_t> open_cases;  // started, not yet judged
  std::vector<bool> case_started;
  ChildLauncher launcher;
  GpuWorkerPool gpu_pool;

  Impl(const CaseTable& t, std::vector<PlannedCase>& c, std::vector<Job>& j,
       SchedulerOptions o)
      : table(t),
        cases(c),
        jobs(j),
        options(std::move(o)),
        launcher(table, options.child_environment,
                 options.run_root + "/fork-server", options.fork_server),
        gpu_pool(table, jobs, options.isolation, options.child_environment,
                 pool_hooks()) {
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
    request.synchronise_steps = job.result.locating;
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
    Slot slot;
    slot.backend = jobs[job].backend;
    // The run's wall time counts from before its fork: a fork server's
    // child may have run and reported before launch() returns.
    slot.started = Clock::now();
    slot.process = launcher.launch(request_for(job), cpu_queue.size());
    slot.job = static_cast<long>(job);
    slot.then = jobs[job].then_job;
    slot.deadline =
        slot.started + std::chrono::duration_cast<Clock::duration>(
                           std::chrono::duration<double>(timeout_of(job)));
    slots.push_back(std::move(slot));
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

  // Processes that reported and are being torn down. Reaped without blocking:
  // a LibTorch process takes about 10 ms to exit on 2 cores, and waiting for
  // it serialised the whole run (wait4 was 70 % of the runner's time).
  std::vector<pid_t> exiting;

  void reap_exiting(bool block) {
    for (size_t i = 0; i < exiting.size();) {
      int status = 0;
      pid_t done = waitpid(exiting[i], &status, block ? 0 : WNOHANG);
      if (done == 0 || (done < 0 && errno == EINTR)) {
        ++i;
        continue;
      }
      exiting.erase(exiting.begin() + static_cast<long>(i));
    }
  }

  // A one-shot child that has reported: its group is killed (a grandchild
  // must not outlive it) and it is reaped later.
  void release_slot(size_t index) {
    Slot& slot = slots[index];
    kill_process_group(slot.process.pid);
    close_fd(&slot.process.from_child);
    close_fd(&slot.process.to_child);
    exiting.push_back(slot.process.pid);
    slots.erase(slots.begin() + static_cast<long>(index));
  }

  // Closes the slot's pipes and reaps it; returns the wait status.
  int end_slot(size_t index, bool kill) {
    Slot& slot = slots[index];
    if (kill) kill_process_group(slot.process.pid);
    close_fd(&slot.process.from_child);
    close_fd(&slot.process.to_child);
    int status = 0;
    while (waitpid(slot.process.pid, &status, 0) < 0 && errno == EINTR) {
    }
    // A timed-out child's grandchildren die with its group.
    kill_process_group(slot.process.pid);
    slots.erase(slots.begin() + static_cast<long>(index));
    return status;
  }

  // The job's final report (GPU jobs: after the pool's confirming rerun).
  void finish(size_t job_index, ChildReport report, double wall) {
    Job& job = jobs[job_index];
    job.result.report = std::move(report);
    job.result.wall_seconds = wall;
    job.result.finished = true;
    job.result.outputs = read_report_outputs(&job.result.report);
    case_job_done(job.case_position);
  }

  void fail(size_t job_index, Family family, const std::string& message,
            double wall, bool timed_out) {
    ChildReport report =
        lost_run_report(&jobs[job_index].result, family, message, timed_out);
    finish(job_index, std::move(report), wall);
  }

  std::function<void(size_t)> on_case_done;

  void case_job_done(size_t position) {
    PlannedCase& planned = cases[position];
    if (--planned.jobs_left > 0) return;
    open_cases.erase(
        std::remove(open_cases.begin(), open_cases.end(), position),
        open_cases.end());
    on_case_done(position);
  }

  void handle_report_line(size_t index, const std::string& line) {
    Slot& slot = slots[index];
    if (slot.job < 0) return;
    const size_t job = static_cast<size_t>(slot.job);
    const auto now = Clock::now();
    const double wall =
        std::chrono::duration<double>(now - slot.started).count();
    // The second part's time and deadline are its own, from now on.
    slot.job = slot.then;
    slot.then = -1;
    if (slot.job >= 0) {
      slot.started = now;
      slot.deadline = now + std::chrono::duration_cast<Clock::duration>(
                                std::chrono::duration<double>(timeout_of(job)));
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
  void handle_exit(size_t index) {
    Slot& slot = slots[index];
    const long job = slot.job;
    const long then = slot.then;
    const double wall =
        std::chrono::duration<double>(Clock::now() - slot.started).count();
    const int status = end_slot(index, false);
    if (job < 0) return;
    std::string how = describe_wait_status(status);
    Family family = WIFSIGNALED(status) ? classify_signal(WTERMSIG(status))
                                        : Family::kCrash;
    const std::string message =
        "the run's process " + how + " before reporting";
    fail(static_cast<size_t>(job), family, message, wall, false);
    fail_second(then, static_cast<size_t>(job), family, message, wall, false);
  }

  void handle_timeouts() {
    const auto now = Clock::now();
    for (size_t i = 0; i < slots.size();) {
      Slot& slot = slots[i];
      if (slot.job >= 0 && now >= slot.deadline) {
        const size_t job = static_cast<size_t>(slot.job);
        const long then = slot.then;
        const double wall =
            std::chrono::duration<double>(now - slot.started).count();
        end_slot(i, /*kill=*/true);
        const std::string message = killed_at_deadline(timeout_of(job));
        fail(job, Family::kTimeout, message, wall, true);
        fail_second(then, job, Family::kTimeout, message, wall, true);
        continue;
      }
      ++i;
    }
    gpu_pool.handle_timeouts(now);
  }

  int poll_timeout_ms() const {
    auto next = gpu_pool.next_deadline();
    for (const Slot& slot : slots) {
      if (slot.job >= 0) next = std::min(next, slot.deadline);
    }
    if (next == Clock::time_point::max()) return 1000;
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                  next - Clock::now())
                  .count();
    return static_cast<int>(std::clamp<long long>(ms + 1, 0, 1000));
  }

  bool pending() const {
    if (!cpu_queue.empty() || gpu_pool.pending()) return true;
    return std::any_of(slots.begin(), slots.end(),
                       [](const Slot& slot) { return slot.job >= 0; });
  }

  void kill_all() {
    while (!slots.empty()) end_slot(slots.size() - 1, true);
    gpu_pool.stop_all();
    reap_exiting(/*block=*/true);
    launcher.stop();
  }
};

Scheduler::Scheduler(const CaseTable& table, std::vector<PlannedCase>& cases,
                     std::vector<Job>& jobs, SchedulerOptions options)
    : impl_(new Impl(table, cases, jobs, std::move(options))) {}

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
    std::vector<pollfd> fds;
    fds.push_back({g_signal_pipe[0], POLLIN, 0});
    for (const Slot& slot : s.slots) {
      fds.push_back({slot.process.from_child, POLLIN, 0});
    }
    const size_t first_worker = fds.size();
    s.gpu_pool.append_poll_fds(&fds);
    int ready = poll(fds.data(), fds.size(), s.poll_timeout_ms());
    if (ready < 0 && errno != EINTR) break;
    if (g_last_signal != 0) {
      s.kill_all();
      counters_.workers_started = s.gpu_pool.counters().workers_started;
      counters_.confirm_reruns = s.gpu_pool.counters().confirm_reruns;
      return false;
    }
    s.gpu_pool.handle_poll_events(fds.data() + first_worker,
                                  fds.size() - first_worker);
    // Walk the slots backwards: handling an exit erases its slot.
    for (size_t i = first_worker - 1; i >= 1; --i) {
      if (fds[i].revents == 0) continue;
      const size_t index = i - 1;
      Slot& slot = s.slots[index];
      const bool open = read_available(slot.process.from_child, &slot.buffer);
      std::string line;
      while (take_line(&slot.buffer, &line)) s.handle_report_line(index, line);
      if (!open) {
        s.handle_exit(index);
      } else if (s.slots[index].job < 0) {
        s.release_slot(index);
      }
    }
    s.handle_timeouts();
    s.reap_exiting(/*block=*/false);
  }
  s.kill_all();
  counters_.workers_started = s.gpu_pool.counters().workers_started;
  counters_.confirm_reruns = s.gpu_pool.counters().confirm_reruns;
  return !stop_asked();
}

}  // namespace casebook
