// `casebook reduce`: the smallest case that still fails the same way (issue
// 50). Every candidate is an in-memory case run as any case is run
// (plan_cases, execute_plan: each run in a process of its own; on a GPU a
// poisoned worker is replaced), judged by the one "same failure" rule
// (casebook/diagnosis.h) against the case's own failure on the backend, with
// the same verdict. Only a candidate that fails the same way is kept, so the
// case reduced so far is always one verified to fail. The passes, in order:
// steps the failing step does not need; `outputs`, `grad`, `repeat`, an
// expectation's `positions` and `processed`; arguments equal to their
// defaults; layouts; each dim (inputs that share one together) by delta
// debugging over its indices, then bisection of what is left (a threshold
// said); values set to 0 or 1 where they do not matter; whether a float16,
// bfloat16 or float64 input must keep its dtype. Deterministic: the same
// case and outcomes give the same reduced case.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "casebook/diagnosis.h"
#include "casebook/loader.h"
#include "casebook/runner.h"

namespace casebook {

struct ReduceProgress {
  int runs = 0;
  std::string sizes;  // the case kept so far: "input [1, 1000], target [1]"
  double seconds = 0.0;
};

struct ReduceRequest {
  LoadedCase original;  // its value set: the case (or neighbour) to reduce
  Backend backend = Backend::kCpu;
  // The runs' options: the registry, --jobs, the environment. Its backends
  // and evidence are the reducer's (the backend alone, no evidence).
  RunOptions run;
  int max_runs = 200;        // runs, the case's own first run included
  double max_seconds = 600;  // checked before each run but the first
  // After each run, once its candidate is kept or not.
  std::function<void(const ReduceProgress&)> on_progress;
};

struct ReduceResult {
  enum class Outcome {
    kReduced,  // `reduced` fails as the case does (perhaps stopped early)
    kPasses,   // the case does not fail on the backend: nothing to reduce
    kInvalid,  // the case is invalid (or casebook broke): fix it first
    kNotRun,   // the backend did not run it (absent, a skip, interrupted)
  };
  Outcome outcome = Outcome::kNotRun;
  CaseVerdict original;  // the case's own run on the backend
  SeenFailure failure;   // what every candidate had to show
  // The reduced case: origin.reduced_from added, `neighbors` and `id`
  // dropped (its id is its file's). A changed input is `values` (a constant
  // of more than 64 elements: `fill: {full: V}`); an unchanged one is its
  // original tensor.
  Case reduced;
  std::vector<bool> changed;  // per input of `reduced`
  // What was removed and what was kept, and why: one line each.
  std::vector<std::string> removed;
  std::vector<std::string> kept;
  std::string original_sizes;
  std::string reduced_sizes;
  int runs = 0;
  double seconds = 0.0;
  // Why the search stopped before its end ("--max-runs 40 reached"); empty
  // when it ended.
  std::string stopped;
};

ReduceResult reduce_case(const ReduceRequest& request);

// The written reduced case (`file`) run once more from its file, as a run
// of the case would: whether it fails as `result.failure`, with the
// original's verdict; `why` when not (its run and its time count in
// result.runs and result.seconds).
bool written_case_fails_the_same_way(const std::filesystem::path& file,
                                     const ReduceRequest& request,
                                     ReduceResult& result, std::string* why);

}  // namespace casebook
