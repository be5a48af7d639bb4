// The GPU worker pool: one worker process per GPU backend runs that backend's
// jobs one after another, synchronising after each (child/execute.cpp).
//
//   reuse       a worker takes the next job of its backend while its runs
//               stay clean: one CUDA context for many cases
//   retirement  a run that poisoned its worker (a sticky error, a crash) ends
//               it; the next job gets a fresh worker
//   confirming  the poisoning job is rerun alone in a fresh worker before its
//   rerun       verdict is final: the error may have been an earlier job's.
//               So at most two fresh workers per poisoning job.
//   locating    a case of `steps` that failed is rerun once in a fresh
//   rerun       worker synchronising after every step (CUDA_LAUNCH_BLOCKING
//               on cuda): which step launched the failing work. It changes
//               no verdict (JobResult::located).
//   timeout     kills the worker's whole process group; a timeout is final
//   strict      Isolation::kStrict: a fresh worker for every job, no rerun
//
// Part of the runner's single-threaded event loop (runner/scheduler.cpp): the
// workers are children of the scheduler's ChildSet (process/child_set.h),
// which watches their pipes and deadlines with the one-shot children's and
// hands the pool what they said; the pool is the policy above.
#pragma once

#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "casebook/runner.h"
#include "child/execute.h"
#include "process/child_set.h"
#include "runner/plan.h"
#include "runner/run_state.h"

namespace casebook {

struct GpuPoolCounters {
  int workers_started = 0;
  int confirm_reruns = 0;
  int locating_reruns = 0;  // cases of `steps` rerun to place their error
};

// A run whose process ended or was killed without a report: the report that
// stands for it, with the job's result marked (timed out, or crashed). The
// scheduler's one-shot children use it too.
ChildReport lost_run_report(JobResult* result, Family family,
                            const std::string& message, bool timed_out);

class GpuWorkerPool {
 public:
  using Clock = std::chrono::steady_clock;

  struct Hooks {
    // Whether the job may start now (the scheduler's window of open cases).
    std::function<bool(size_t job)> may_start;
    // The job's request; its output folder is made on the way.
    std::function<RunRequest(size_t job)> request_for;
    // The job's case, as an index into the CaseTable; no side effect.
    std::function<size_t(size_t job)> case_index;
    std::function<double(size_t job)> timeout_seconds;
    // The job's final report (after any confirming rerun).
    std::function<void(size_t job, ChildReport report, double wall)> finish;
  };

  // The workers are `children`'s (which outlives the pool).
  // `results`: the run's, by job (runner/run_state.h), written as jobs end.
  GpuWorkerPool(const CaseTable& table, const std::vector<Job>& jobs,
                std::vector<JobResult>& results, Isolation isolation,
                ChildEnvironment environment, Hooks hooks, ChildSet& children);
  ~GpuWorkerPool();
  GpuWorkerPool(const GpuWorkerPool&) = delete;
  GpuWorkerPool& operator=(const GpuWorkerPool&) = delete;

  void enqueue(size_t job);
  // Jobs queued or in flight.
  bool pending() const;
  // Gives each backend without a job in flight its next job.
  void start_jobs();

  // Kills every worker's process group and reaps them.
  void stop_all();

  const GpuPoolCounters& counters() const { return counters_; }

 private:
  using WorkerId = ChildSet::Id;
  struct Worker {
    Backend backend = Backend::kCuda;
    long job = -1;          // the job in flight, -1 when idle
    bool retiring = false;  // its last run poisoned it
  };

  bool busy(Backend backend) const;
  WorkerId idle_worker(Backend backend) const;  // 0: none
  WorkerId start_worker(Backend backend, size_t job);
  void retire_idle_worker(Backend backend);
  void dispatch(Backend backend, size_t job);
  // The ChildSet's handlers for a worker.
  void on_report_line(WorkerId id, const std::string& line);
  void on_read(WorkerId id, bool closed);
  void on_deadline(WorkerId id, double wall);
  void on_exit(WorkerId id);
  int end_worker(WorkerId id, bool kill);
  // A report for the job: final, or the first attempt of a confirming rerun.
  void settle(size_t job, ChildReport report, double wall);
  // Whether the job's final report asks for the locating rerun.
  bool wants_locating(size_t job, const ChildReport& report) const;
  void lost(size_t job, Family family, const std::string& message, double wall,
            bool timed_out);

  const CaseTable& table_;
  const std::vector<Job>& jobs_;
  std::vector<JobResult>& results_;
  Isolation isolation_;
  ChildEnvironment environment_;
  Hooks hooks_;
  std::map<Backend, std::deque<size_t>> queues_;
  ChildSet& children_;
  std::map<WorkerId, Worker> workers_;  // by id: in the order they started
  GpuPoolCounters counters_;
};

}  // namespace casebook
