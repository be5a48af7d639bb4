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
#include "process/subprocess.h"
#include "runner/child_launcher.h"

namespace casebook {
namespace {

using Clock = std::chrono::steady_clock;

int g_signal_pipe[2] = {-1, -1};
volatile sig_atomic_t g_last_signal = 0;

void on_interrupt(int signal) {
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
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  signal(SIGPIPE, SIG_IGN);  // a dead worker's pipe is handled, not fatal
}

int last_interrupting_signal() { return g_last_signal; }

// One running process: a one-shot child (one job) or a GPU worker (one job at
// a time, kept between jobs).
struct Scheduler::Slot {
  ChildProcess process;
  bool worker = false;
  Backend backend = Backend::kCpu;
  long job = -1;  // the job in flight, -1 when idle
  Clock::time_point started;
  Clock::time_point deadline;
  std::string buffer;
  bool retiring = false;  // a worker whose last run poisoned it
};

struct Scheduler::Impl {
  const CaseTable& table;
  std::vector<PlannedCase>& cases;
  std::vector<Job>& jobs;
  SchedulerOptions options;
  SchedulerCounters* counters = nullptr;
  std::deque<size_t> cpu_queue;
  std::map<Backend, std::deque<size_t>> gpu_queues;
  std::vector<Slot> slots;
  std::vector<size_t> open_cases;  // started, not yet judged
  std::vector<bool> case_started;
  ChildLauncher launcher;

  Impl(const CaseTable& t, std::vector<PlannedCase>& c, std::vector<Job>& j,
       SchedulerOptions o)
      : table(t),
        cases(c),
        jobs(j),
        options(std::move(o)),
        launcher(table, options.child_environment,
                 options.run_root + "/fork-server", options.fork_server) {
    case_started.assign(cases.size(), false);
    for (size_t i = 0; i < jobs.size(); ++i) {
      if (is_gpu(jobs[i].backend)) {
        gpu_queues[jobs[i].backend].push_back(i);
      } else {
        cpu_queue.push_back(i);
      }
    }
  }

  std::string output_dir(size_t job) const {
    std::string dir = options.run_root + "/job" + std::to_string(job);
    std::filesystem::create_directories(dir);
    return dir;
  }

  RunRequest request_for(size_t job_index) const {
    const Job& job = jobs[job_index];
    RunRequest request;
    request.case_index = cases[job.case_position].table_index;
    request.backend = job.backend;
    request.kind = job.kind;
    request.output_dir = output_dir(job_index);
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

  void arm(Slot* slot, size_t job) {
    slot->job = static_cast<long>(job);
    slot->started = Clock::now();
    slot->deadline =
        slot->started + std::chrono::duration_cast<Clock::duration>(
                            std::chrono::duration<double>(timeout_of(job)));
  }

  void start_one_shot(size_t job) {
    Slot slot;
    slot.backend = jobs[job].backend;
    slot.process = launcher.launch(request_for(job), cpu_queue.size());
    arm(&slot, job);
    slots.push_back(std::move(slot));
  }

  Slot* worker_for(Backend backend) {
    for (Slot& slot : slots) {
      if (slot.worker && slot.backend == backend) return &slot;
    }
    return nullptr;
  }

  void start_worker_job(Backend backend, size_t job) {
    Slot* slot = worker_for(backend);
    if (slot == nullptr) {
      const CaseTable& t = table;
      Slot fresh;
      fresh.worker = true;
      fresh.backend = backend;
      const ChildEnvironment& environment = options.child_environment;
      fresh.process = spawn_child(
          [&t, &environment, backend](int report_fd, int request_fd) {
            apply_child_environment(environment);
            return run_gpu_worker(t, backend, report_fd, request_fd);
          },
          true);
      ++counters->workers_started;
      slots.push_back(std::move(fresh));
      slot = &slots.back();
    }
    arm(slot, job);
    if (!write_all(slot->process.to_child, encode_request(request_for(job)))) {
      // The worker died between jobs; its EOF is handled by the poll loop,
      // which will blame nobody and requeue this job.
    }
  }

  void fill_slots() {
    int cpu_running = 0;
    for (const Slot& slot : slots) {
      if (!slot.worker && !is_gpu(slot.backend)) ++cpu_running;
    }
    while (cpu_running < options.cpu_slots && !cpu_queue.empty() &&
           may_start(cpu_queue.front())) {
      size_t job = cpu_queue.front();
      cpu_queue.pop_front();
      start_one_shot(job);
      ++cpu_running;
    }
    for (auto& entry : gpu_queues) {
      // Not a structured binding: C++17 lambdas cannot capture one.
      const Backend backend = entry.first;
      std::deque<size_t>& queue = entry.second;
      if (queue.empty()) continue;
      const bool busy = std::any_of(
          slots.begin(), slots.end(),
          [&](const Slot& s) { return s.backend == backend && s.job >= 0; });
      if (busy || !may_start(queue.front())) continue;
      size_t job = queue.front();
      queue.pop_front();
      // A confirmation rerun always gets a fresh worker: "alone".
      if (options.isolation == Isolation::kStrict) {
        start_one_shot(job);
      } else {
        if (jobs[job].result.first_attempt) retire_worker(backend);
        start_worker_job(backend, job);
      }
    }
  }

  void retire_worker(Backend backend) {
    for (size_t i = 0; i < slots.size(); ++i) {
      if (slots[i].worker && slots[i].backend == backend && slots[i].job < 0) {
        end_slot(i, /*kill=*/true);
        return;
      }
    }
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

  void finish(size_t job_index, ChildReport report, double wall) {
    Job& job = jobs[job_index];
    const bool gpu = is_gpu(job.backend);
    // A GPU run that poisoned its process is rerun alone in a fresh process
    // before the verdict is final: the error may have been an earlier run's.
    if (gpu && report.poisoned && !job.result.first_attempt &&
        options.isolation != Isolation::kStrict) {
      job.result.first_attempt = report;
      ++counters->confirm_reruns;
      gpu_queues[job.backend].push_front(job_index);
      return;
    }
    job.result.report = std::move(report);
    job.result.wall_seconds = wall;
    job.result.finished = true;
    if (job.result.report.status == ChildReport::Status::kOutputs) {
      try {
        for (const TensorFile& file : job.result.report.outputs) {
          job.result.outputs.push_back(map_tensor_file(file));
        }
      } catch (const std::exception& error) {
        job.result.report.status = ChildReport::Status::kError;
        job.result.report.family = Family::kCrash;
        job.result.report.message =
            std::string("internal error: outputs unreadable: ") + error.what();
        job.result.outputs.clear();
      }
    }
    case_job_done(job.case_position);
  }

  void fail(size_t job_index, Family family, const std::string& message,
            double wall, bool timed_out) {
    ChildReport report;
    report.status = ChildReport::Status::kError;
    report.family = family;
    report.message = message;
    report.poisoned = true;  // a dead or killed process: blame is unproven
    Job& job = jobs[job_index];
    if (timed_out) {
      // A timeout is final: rerunning would only wait as long again.
      job.result.first_attempt = job.result.first_attempt.value_or(report);
    }
    job.result.timed_out = timed_out;
    job.result.crashed = !timed_out;
    job.result.crash_message = message;
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
    slot.job = -1;
    const double wall =
        std::chrono::duration<double>(Clock::now() - slot.started).count();
    ChildReport report = decode_report(line);
    // A poisoned worker ends itself; it takes no further job meanwhile.
    if (slot.worker && report.poisoned) slot.retiring = true;
    finish(job, std::move(report), wall);
  }

  // The slot's pipe reached EOF: the process ended.
  void handle_exit(size_t index) {
    Slot& slot = slots[index];
    const long job = slot.job;
    const double wall =
        std::chrono::duration<double>(Clock::now() - slot.started).count();
    const bool worker = slot.worker;
    const int status = end_slot(index, false);
    if (job < 0) return;  // a worker that retired after its report
    const bool clean_exit = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (worker && clean_exit) {
      gpu_queues[jobs[static_cast<size_t>(job)].backend].push_front(
          static_cast<size_t>(job));
      return;
    }
    std::string how = describe_wait_status(status);
    Family family = WIFSIGNALED(status) ? classify_signal(WTERMSIG(status))
                                        : Family::kCrash;
    fail(static_cast<size_t>(job), family,
         "the run's process " + how + " before reporting", wall, false);
  }

  void handle_timeouts() {
    const auto now = Clock::now();
    for (size_t i = 0; i < slots.size();) {
      Slot& slot = slots[i];
      if (slot.job >= 0 && now >= slot.deadline) {
        const size_t job = static_cast<size_t>(slot.job);
        const double wall =
            std::chrono::duration<double>(now - slot.started).count();
        end_slot(i, /*kill=*/true);
        fail(job, Family::kTimeout,
             "no result after " + std::to_string(timeout_of(job)).substr(0, 6) +
                 " s: killed the run's process group",
             wall, true);
        continue;
      }
      ++i;
    }
  }

  int poll_timeout_ms() const {
    auto next = Clock::time_point::max();
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
    if (!cpu_queue.empty()) return true;
    for (const auto& [backend, queue] : gpu_queues) {
      if (!queue.empty()) return true;
    }
    return std::any_of(slots.begin(), slots.end(),
                       [](const Slot& slot) { return slot.job >= 0; });
  }

  void kill_all() {
    while (!slots.empty()) end_slot(slots.size() - 1, true);
    reap_exiting(/*block=*/true);
    launcher.stop();
  }
};

Scheduler::Scheduler(const CaseTable& table, std::vector<PlannedCase>& cases,
                     std::vector<Job>& jobs, SchedulerOptions options)
    : impl_(new Impl(table, cases, jobs, std::move(options))) {
  impl_->counters = &counters_;
}

Scheduler::~Scheduler() {
  impl_->kill_all();
  delete impl_;
}

bool Scheduler::run(const std::function<void(size_t)>& on_case_done) {
  install_interrupt_handlers();
  Impl& s = *impl_;
  s.on_case_done = on_case_done;
  while (s.pending()) {
    s.fill_slots();
    std::vector<pollfd> fds;
    fds.push_back({g_signal_pipe[0], POLLIN, 0});
    for (const Slot& slot : s.slots) {
      fds.push_back({slot.process.from_child, POLLIN, 0});
    }
    int ready = poll(fds.data(), fds.size(), s.poll_timeout_ms());
    if (ready < 0 && errno != EINTR) break;
    if (g_last_signal != 0) {
      s.kill_all();
      return false;
    }
    // Walk the slots backwards: handling an exit erases its slot.
    for (size_t i = fds.size() - 1; i >= 1; --i) {
      if (fds[i].revents == 0) continue;
      const size_t index = i - 1;
      Slot& slot = s.slots[index];
      const bool open = read_available(slot.process.from_child, &slot.buffer);
      std::string line;
      while (take_line(&slot.buffer, &line)) s.handle_report_line(index, line);
      if (!open) {
        s.handle_exit(index);
      } else if (s.slots[index].retiring) {
        s.end_slot(index, /*kill=*/true);
      } else if (!s.slots[index].worker && s.slots[index].job < 0) {
        s.release_slot(index);
      }
    }
    s.handle_timeouts();
    s.reap_exiting(/*block=*/false);
  }
  s.kill_all();
  return true;
}

}  // namespace casebook
