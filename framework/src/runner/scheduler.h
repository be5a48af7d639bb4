// The runner's event loop: starts one-shot CPU children, drives the GPU
// worker pool (runner/gpu_pool.h), and hands each finished case to a
// callback. Both kinds of child are watched by one ChildSet
// (process/child_set.h: pipes, lines, deadlines, reaping); a SIGINT or
// SIGTERM (process/interrupts.h) stops the run.
// Single-threaded on purpose: fork() from a multi-threaded process is unsafe.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "casebook/runner.h"
#include "child/execute.h"
#include "runner/plan.h"
#include "runner/run_state.h"

namespace casebook {

struct SchedulerOptions {
  int cpu_slots = 1;
  Isolation isolation = Isolation::kPooled;
  std::string run_root;  // folder for the children's output files
  // Cases whose jobs may be in flight or finished but not yet judged at once:
  // bounds the runner's memory, since a case's outputs live until judged.
  size_t case_window = 16;
  // Set in every child before it opens its backend (RunOptions's).
  ChildEnvironment child_environment;
  // CPU runs' children come from a fork server (process/fork_server.h);
  // false: the runner forks them itself (RunOptions's).
  bool fork_server = true;
  // Called with a case's position when its first job starts (progress).
  std::function<void(size_t)> on_case_started;
  // Asked after each event: true stops the run as an interrupt does
  // (children killed, run() returns false), e.g. --fail-fast after the first
  // failure. Empty: never.
  std::function<bool()> stop_requested;
};

struct SchedulerCounters {
  int workers_started = 0;
  int confirm_reruns = 0;
};

class Scheduler {
 public:
  // `cases` and `jobs` are the plan's, read only; the run's state is the
  // scheduler's own (state()).
  Scheduler(const CaseTable& table, const std::vector<PlannedCase>& cases,
            const std::vector<Job>& jobs, SchedulerOptions options);
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Runs every job; calls `on_case_done(position)` as each case's last job
  // finishes (its results in state(); their mapped outputs are released
  // when it returns). Installs the interrupt handlers (process/interrupts.h).
  // Returns false when interrupted (SIGINT, SIGTERM, or
  // SchedulerOptions::stop_requested): children are killed and unfinished
  // jobs stay unfinished.
  bool run(const std::function<void(size_t)>& on_case_done);

  const SchedulerCounters& counters() const { return counters_; }
  // Each job's result and each case's jobs still to finish, as far as the
  // run has come.
  const RunState& state() const;

 private:
  struct Slot;  // a one-shot child with its job
  struct Impl;
  Impl* impl_;
  SchedulerCounters counters_;
};

}  // namespace casebook
