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

GpuWorkerPool::GpuWorkerPool(const CaseTable& table,
                             const std::vector<Job>& jobs,
                             std::vector<JobResult>& results,
                             Isolation isolation, ChildEnvironment environment,
                             Hooks hooks, ChildSet& children)
    : table_(table),
      jobs_(jobs),
      results_(results),
      isolation_(isolation),
      environment_(std::move(environment)),
      hooks_(std::move(hooks)),
      children_(children) {}

GpuWorkerPool::~GpuWorkerPool() { stop_all(); }

void GpuWorkerPool::enqueue(size_t job) {
  queues_[jobs_[job].backend].push_back(job);
}

bool GpuWorkerPool::pending() const {
  for (const auto& entry : queues_) {
    if (!entry.second.empty()) return true;
  }
  return std::any_of(workers_.begin(), workers_.end(),
                     [](const auto& entry) { return entry.second.job >= 0; });
}

bool GpuWorkerPool::busy(Backend backend) const {
  return std::any_of(workers_.begin(), workers_.end(), [&](const auto& entry) {
    return entry.second.backend == backend && entry.second.job >= 0;
  });
}

GpuWorkerPool::WorkerId GpuWorkerPool::idle_worker(Backend backend) const {
  for (const auto& [id, worker] : workers_) {
    if (worker.backend == backend && worker.job < 0 && !worker.retiring) {
      return id;
    }
  }
  return 0;
}

void GpuWorkerPool::retire_idle_worker(Backend backend) {
  for (const auto& [id, worker] : workers_) {
    if (worker.backend == backend && worker.job < 0) {
      end_worker(id, /*kill=*/true);
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
    if (isolation_ == Isolation::kStrict || results_[job].first_attempt ||
        results_[job].locating) {
      retire_idle_worker(backend);
    }
    dispatch(backend, job);
  }
}

GpuWorkerPool::WorkerId GpuWorkerPool::start_worker(Backend backend,
                                                    size_t job) {
  const CaseTable& table = table_;
  ChildEnvironment environment = environment_;
  if (results_[job].locating) {
    for (auto& setting : launch_blocking_environment(backend)) {
      environment.push_back(std::move(setting));
    }
  }
  ChildProcess process = spawn_child(
      [&table, &environment, backend](int report_fd, int request_fd) {
        apply_child_environment(environment);
        return run_gpu_worker(table, backend, report_fd, request_fd);
      },
      true);
  ++counters_.workers_started;
  ChildSet::Handlers handlers;
  handlers.on_line = [this](WorkerId id, const std::string& line) {
    on_report_line(id, line);
  };
  handlers.on_read = [this](WorkerId id, bool closed) { on_read(id, closed); };
  handlers.on_deadline = [this](WorkerId id, double wall) {
    on_deadline(id, wall);
  };
  const WorkerId id = children_.add(process, std::move(handlers));
  workers_[id].backend = backend;
  return id;
}

void GpuWorkerPool::dispatch(Backend backend, size_t job) {
  WorkerId id = idle_worker(backend);
  if (id == 0) id = start_worker(backend, job);
  Worker& worker = workers_.at(id);
  worker.job = static_cast<long>(job);
  // The locating rerun's worker runs with launch-blocking switches: it takes
  // no other job.
  if (results_[job].locating) worker.retiring = true;
  children_.arm(id, Clock::now(), hooks_.timeout_seconds(job));
  // A worker that died between jobs fails this write; its EOF then reaches
  // on_exit, which blames nobody and requeues the job.
  (void)write_all(children_.to_child(id),
                  encode_request(hooks_.request_for(job)));
}

void GpuWorkerPool::on_read(WorkerId id, bool closed) {
  const Worker& worker = workers_.at(id);
  // Ended after its report: a worker its run poisoned, and under strict
  // isolation every worker once idle.
  const bool done =
      worker.retiring || (isolation_ == Isolation::kStrict && worker.job < 0);
  if (closed) {
    on_exit(id);
  } else if (done) {
    end_worker(id, /*kill=*/true);
  }
}

void GpuWorkerPool::on_report_line(WorkerId id, const std::string& line) {
  Worker& worker = workers_.at(id);
  if (worker.job < 0) return;
  const size_t job = static_cast<size_t>(worker.job);
  worker.job = -1;
  const double wall = children_.wall_seconds(id);
  children_.disarm(id);
  ChildReport report = decode_report(line);
  // A poisoned worker ends itself; it takes no further job meanwhile.
  if (report.poisoned) worker.retiring = true;
  settle(job, std::move(report), wall);
}

void GpuWorkerPool::on_exit(WorkerId id) {
  const long job = workers_.at(id).job;
  const double wall = children_.wall_seconds(id);
  const int status = end_worker(id, false);
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

int GpuWorkerPool::end_worker(WorkerId id, bool kill) {
  workers_.erase(id);
  return children_.end(id, kill);
}

bool GpuWorkerPool::wants_locating(size_t job,
                                   const ChildReport& report) const {
  // casebook's own error is not the case's to locate.
  if (report.status != ChildReport::Status::kError || !report.step ||
      report.internal || results_[job].located) {
    return false;
  }
  const Case& kase = *table_.cases.at(hooks_.case_index(job));
  return kase.steps.size() > 1;
}

void GpuWorkerPool::settle(size_t job, ChildReport report, double wall) {
  JobResult& result = results_[job];
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
  if (results_[job].locating) {
    // The rerun that only places the error was lost: it places nothing,
    // and the verdict stays the first run's.
    ChildReport report;
    report.family = family;
    report.message = message;
    settle(job, std::move(report), wall);
    return;
  }
  ChildReport report =
      lost_run_report(&results_[job], family, message, timed_out);
  settle(job, std::move(report), wall);
}

void GpuWorkerPool::on_deadline(WorkerId id, double wall) {
  const size_t job = static_cast<size_t>(workers_.at(id).job);
  end_worker(id, /*kill=*/true);
  lost(job, Family::kTimeout, killed_at_deadline(hooks_.timeout_seconds(job)),
       wall, true);
}

void GpuWorkerPool::stop_all() {
  while (!workers_.empty()) end_worker(workers_.rbegin()->first, true);
}

}  // namespace casebook
