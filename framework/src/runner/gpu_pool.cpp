#include "runner/gpu_pool.h"

#include <sys/wait.h>

#include <algorithm>

#include "casebook/diagnosis.h"
#include "device/backend_runtime.h"
#include "process/run_to_end.h"

namespace casebook {

ChildReport lost_run_report(JobResult* result, Family family,
                            const std::string& message, bool timed_out) {
  ChildReport report;
  report.status = ChildReport::Status::kError;
  report.family = family;
  report.message = message;
  report.poisoned = true;  // a dead or killed process: blame is unproven
  if (timed_out) {
    // A timeout is final: rerunning would only wait as long again.
    result->first_attempt = result->first_attempt.value_or(report);
  }
  result->timed_out = timed_out;
  result->crashed = !timed_out;
  result->crash_message = message;
  return report;
}

GpuWorkerPool::GpuWorkerPool(const CaseTable& table, std::vector<Job>& jobs,
                             Isolation isolation, ChildEnvironment environment,
                             Hooks hooks)
    : table_(table),
      jobs_(jobs),
      isolation_(isolation),
      environment_(std::move(environment)),
      hooks_(std::move(hooks)) {}

GpuWorkerPool::~GpuWorkerPool() { stop_all(); }

void GpuWorkerPool::enqueue(size_t job) {
  queues_[jobs_[job].backend].push_back(job);
}

bool GpuWorkerPool::pending() const {
  for (const auto& entry : queues_) {
    if (!entry.second.empty()) return true;
  }
  return std::any_of(workers_.begin(), workers_.end(),
                     [](const Worker& worker) { return worker.job >= 0; });
}

bool GpuWorkerPool::busy(Backend backend) const {
  return std::any_of(workers_.begin(), workers_.end(), [&](const Worker& w) {
    return w.backend == backend && w.job >= 0;
  });
}

GpuWorkerPool::Worker* GpuWorkerPool::idle_worker(Backend backend) {
  for (Worker& worker : workers_) {
    if (worker.backend == backend && worker.job < 0 && !worker.retiring) {
      return &worker;
    }
  }
  return nullptr;
}

void GpuWorkerPool::retire_idle_worker(Backend backend) {
  for (size_t i = 0; i < workers_.size(); ++i) {
    if (workers_[i].backend == backend && workers_[i].job < 0) {
      end_worker(i, /*kill=*/true);
      return;
    }
  }
}

void GpuWorkerPool::start_jobs() {
  for (auto& entry : queues_) {
    const Backend backend = entry.first;
    std::deque<size_t>& queue = entry.second;
    if (queue.empty() || busy(backend) || !hooks_.may_start(queue.front())) {
      continue;
    }
    const size_t job = queue.front();
    queue.pop_front();
    // A confirming rerun runs alone, and strict isolation gives every job a
    // process of its own: either way, a fresh worker.
    if (isolation_ == Isolation::kStrict || jobs_[job].result.first_attempt ||
        jobs_[job].result.locating) {
      retire_idle_worker(backend);
    }
    dispatch(backend, job);
  }
}

void GpuWorkerPool::dispatch(Backend backend, size_t job) {
  Worker* worker = idle_worker(backend);
  if (worker == nullptr) {
    Worker fresh;
    fresh.backend = backend;
    const CaseTable& table = table_;
    ChildEnvironment environment = environment_;
    if (jobs_[job].result.locating) {
      for (auto& setting : launch_blocking_environment(backend)) {
        environment.push_back(std::move(setting));
      }
    }
    fresh.process = spawn_child(
        [&table, &environment, backend](int report_fd, int request_fd) {
          apply_child_environment(environment);
          return run_gpu_worker(table, backend, report_fd, request_fd);
        },
        true);
    ++counters_.workers_started;
    workers_.push_back(std::move(fresh));
    worker = &workers_.back();
  }
  worker->job = static_cast<long>(job);
  // The locating rerun's worker runs with launch-blocking switches: it takes
  // no other job.
  if (jobs_[job].result.locating) worker->retiring = true;
  worker->started = Clock::now();
  worker->deadline =
      worker->started +
      std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(hooks_.timeout_seconds(job)));
  // A worker that died between jobs fails this write; its EOF then reaches
  // on_exit, which blames nobody and requeues the job.
  (void)write_all(worker->process.to_child,
                  encode_request(hooks_.request_for(job)));
}

void GpuWorkerPool::append_poll_fds(std::vector<pollfd>* fds) const {
  for (const Worker& worker : workers_) {
    fds->push_back({worker.process.from_child, POLLIN, 0});
  }
}

void GpuWorkerPool::handle_poll_events(const pollfd* fds, size_t count) {
  // Backwards: ending a worker erases it.
  for (size_t i = std::min(count, workers_.size()); i-- > 0;) {
    if (fds[i].revents == 0) continue;
    Worker& worker = workers_[i];
    const bool open = read_available(worker.process.from_child, &worker.buffer);
    std::string line;
    while (take_line(&workers_[i].buffer, &line)) on_report_line(i, line);
    if (!open) {
      on_exit(i);
    } else if (workers_[i].retiring) {
      end_worker(i, /*kill=*/true);
    } else if (isolation_ == Isolation::kStrict && workers_[i].job < 0) {
      end_worker(i, /*kill=*/true);
    }
  }
}

void GpuWorkerPool::on_report_line(size_t index, const std::string& line) {
  Worker& worker = workers_[index];
  if (worker.job < 0) return;
  const size_t job = static_cast<size_t>(worker.job);
  worker.job = -1;
  const double wall =
      std::chrono::duration<double>(Clock::now() - worker.started).count();
  ChildReport report = decode_report(line);
  // A poisoned worker ends itself; it takes no further job meanwhile.
  if (report.poisoned) worker.retiring = true;
  settle(job, std::move(report), wall);
}

void GpuWorkerPool::on_exit(size_t index) {
  const long job = workers_[index].job;
  const double wall =
      std::chrono::duration<double>(Clock::now() - workers_[index].started)
          .count();
  const int status = end_worker(index, false);
  if (job < 0) return;  // a worker that retired after its report
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    // It ended cleanly without taking the job (the pipe closed between
    // jobs): nobody is to blame; the job waits for the next worker.
    queues_[jobs_[static_cast<size_t>(job)].backend].push_front(
        static_cast<size_t>(job));
    return;
  }
  const Family family =
      WIFSIGNALED(status) ? classify_signal(WTERMSIG(status)) : Family::kCrash;
  lost(
      static_cast<size_t>(job), family,
      "the run's process " + describe_wait_status(status) + " before reporting",
      wall, false);
}

int GpuWorkerPool::end_worker(size_t index, bool kill) {
  Worker& worker = workers_[index];
  if (kill) kill_process_group(worker.process.pid);
  close_fd(&worker.process.from_child);
  close_fd(&worker.process.to_child);
  int status = 0;
  while (waitpid(worker.process.pid, &status, 0) < 0 && errno == EINTR) {
  }
  // A timed-out worker's grandchildren die with its group.
  kill_process_group(worker.process.pid);
  workers_.erase(workers_.begin() + static_cast<long>(index));
  return status;
}

bool GpuWorkerPool::wants_locating(size_t job,
                                   const ChildReport& report) const {
  // casebook's own error is not the case's to locate.
  if (report.status != ChildReport::Status::kError || !report.step ||
      report.internal || jobs_[job].result.located) {
    return false;
  }
  const Case& kase = *table_.cases.at(hooks_.case_index(job));
  return kase.steps.size() > 1;
}

void GpuWorkerPool::settle(size_t job, ChildReport report, double wall) {
  JobResult& result = jobs_[job].result;
  if (result.locating) {
    result.locating = false;
    result.located = std::move(report);
    hooks_.finish(job, std::move(result.held), result.held_wall);
    return;
  }
  if (report.poisoned && !result.first_attempt &&
      isolation_ != Isolation::kStrict) {
    result.first_attempt = report;
    ++counters_.confirm_reruns;
    queues_[jobs_[job].backend].push_front(job);
    return;
  }
  if (wants_locating(job, report)) {
    result.locating = true;
    result.held = std::move(report);
    result.held_wall = wall;
    ++counters_.locating_reruns;
    queues_[jobs_[job].backend].push_front(job);
    return;
  }
  hooks_.finish(job, std::move(report), wall);
}

void GpuWorkerPool::lost(size_t job, Family family, const std::string& message,
                         double wall, bool timed_out) {
  if (jobs_[job].result.locating) {
    // The rerun that only places the error was lost: it places nothing,
    // and the verdict stays the first run's.
    ChildReport report;
    report.family = family;
    report.message = message;
    settle(job, std::move(report), wall);
    return;
  }
  ChildReport report =
      lost_run_report(&jobs_[job].result, family, message, timed_out);
  settle(job, std::move(report), wall);
}

void GpuWorkerPool::handle_timeouts(Clock::time_point now) {
  for (size_t i = 0; i < workers_.size();) {
    Worker& worker = workers_[i];
    if (worker.job < 0 || now < worker.deadline) {
      ++i;
      continue;
    }
    const size_t job = static_cast<size_t>(worker.job);
    const double wall =
        std::chrono::duration<double>(now - worker.started).count();
    end_worker(i, /*kill=*/true);
    lost(job, Family::kTimeout, killed_at_deadline(hooks_.timeout_seconds(job)),
         wall, true);
  }
}

GpuWorkerPool::Clock::time_point GpuWorkerPool::next_deadline() const {
  auto next = Clock::time_point::max();
  for (const Worker& worker : workers_) {
    if (worker.job >= 0) next = std::min(next, worker.deadline);
  }
  return next;
}

void GpuWorkerPool::stop_all() {
  while (!workers_.empty()) end_worker(workers_.size() - 1, true);
}

}  // namespace casebook
