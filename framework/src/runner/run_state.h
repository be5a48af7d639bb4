// What a run learns as it goes, kept apart from its plan (runner/plan.h,
// not written once planned): each job's result, and how many of each case's
// jobs are still to finish. The scheduler owns it and is its only writer
// (runner/scheduler.h); the session judges from it.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "child/child_protocol.h"
#include "runner/plan.h"

namespace casebook {

struct JobResult {
  bool finished = false;
  ChildReport report;
  std::vector<at::Tensor> outputs;  // mapped from the child's files
  bool timed_out = false;
  bool crashed = false;       // ended without a report
  std::string crash_message;  // the decoded wait status
  // A GPU run that poisoned its worker is rerun alone in a fresh one before
  // its verdict is final; the first attempt's report is kept for the record.
  std::optional<ChildReport> first_attempt;
  double wall_seconds = 0.0;
  // A case of `steps` that failed on a GPU backend is rerun once in a fresh
  // process that synchronises after every step (and sets the backend's
  // launch-blocking switch): `located` is that run's report. It only places
  // the error (the step that launched the failing work); the verdict, its
  // family and its time stay the first run's (`held` while the rerun runs).
  std::optional<ChildReport> located;
  bool locating = false;
  ChildReport held;
  double held_wall = 0.0;
};

struct RunState {
  // Every job unfinished; each case waits for all of its jobs.
  RunState(const std::vector<PlannedCase>& cases, size_t job_count);

  std::vector<JobResult> results;  // by job (JobPlan::jobs)
  std::vector<size_t> jobs_left;   // by case position (Plan::cases)

  // The result of `job`, an element of `jobs` (the vector `results` is
  // parallel to); null for null.
  const JobResult* result_of(const std::vector<Job>& jobs,
                             const Job* job) const {
    return job == nullptr ? nullptr
                          : &results[static_cast<size_t>(job - jobs.data())];
  }
};

}  // namespace casebook
