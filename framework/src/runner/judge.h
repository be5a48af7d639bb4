// Judging one (case, backend): the expectation of the case file against what
// the run and the reference produced. Every outcome gets a name and a reason.
#pragma once

#include <ATen/core/Tensor.h>

#include <filesystem>
#include <functional>
#include <map>
#include <vector>

#include "casebook/runner.h"
#include "compare/compare.h"
#include "runner/plan.h"
#include "runner/planner.h"
#include "runner/run_state.h"

namespace casebook {

// RunOptions{}: what a judge asked without a run's options names in its
// rerun line.
const RunOptions& default_run_options();

struct JudgeInputs {
  const PlannedCase& planned;
  Backend backend;
  // This backend's run (null if none was planned) and the reference run
  // (may be `run`), from the run's state (runner/run_state.h).
  const JobResult* run = nullptr;
  const JobResult* reference = nullptr;
  // What the case expects and needs of the backend in this run
  // (pair_in_run, runner/planner.h). A loaded case without an expectation
  // here is casebook's error: INTERNAL.
  PairInRun in_run;
  // The run's options, for a complete rerun line (runner/rerun.h).
  const RunOptions& options = default_run_options();
};

// What a failing run's values were compared as, kept for its evidence.
struct MismatchEvidence {
  std::vector<at::Tensor> expected;
  std::vector<at::Tensor> actual;
  Comparison comparison;  // equal() when nothing was compared or it matched
  // The case's stated outputs missed and the run agrees with the reference
  // (or is it): the stated outputs are what the reference disagrees with.
  bool reference_agrees = false;
};

// What judging one run found. The judge writes no file: what a failing
// mismatch needs for its evidence folder is handed on, and the run's
// listeners (the evidence listener, runner/evidence.h) write it.
struct Judgement {
  // Not yet fit to show (fit_to_show): a listener may still add to it
  // (CaseVerdict::evidence_dir), and the message is composed after.
  CaseVerdict verdict;
  // A failing mismatch's (the verdict not a success): what was compared;
  // otherwise empty, its comparison equal().
  MismatchEvidence mismatch;
};

// Hears each judgement of a run before its verdict is fit to show and
// delivered; may name in the verdict what it wrote (runner/session.cpp).
using JudgementListener = std::function<void(const PlannedCase&, Judgement&)>;

// The judgement of one run; touches no file. An InternalError raised while
// judging makes the verdict INTERNAL (casebook/internal_error.h).
Judgement judgement_of(const JudgeInputs& inputs);

// What a verdict says reaches terminals, JUnit and Markdown: its message
// composed (verdict_message) and every text bounded and printable
// (casebook/printable.h). Applied once to every verdict judged, after the
// listeners.
CaseVerdict fit_to_show(CaseVerdict verdict);

// fit_to_show(judgement_of(inputs).verdict): the verdict as shown, naming no
// evidence folder (none is written).
CaseVerdict judge(const JudgeInputs& inputs);

// CaseVerdict::line, known before the run: the line of the case file that
// decides the verdict of `planned` on `backend` (the backend's `expect`
// entry, else the first `outputs` entry, else `op`; a file that does not
// load: its first error's); 0 when none is known.
int deciding_line(const PlannedCase& planned, Backend backend);

// "casebook run <file> --backend <b> --isolation pooled" with the device
// and plugin variables set here (runner/rerun.h), for default options.
std::string rerun_command(const PlannedCase& planned, Backend backend);

}  // namespace casebook
