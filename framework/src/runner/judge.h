// Judging one (case, backend): the expectation of the case file against what
// the run and the reference produced. Every outcome gets a name and a reason.
#pragma once

#include <filesystem>
#include <map>

#include "casebook/runner.h"
#include "runner/plan.h"

namespace casebook {

struct JudgeInputs {
  const PlannedCase& planned;
  Backend backend;
  const Job* run = nullptr;               // this backend's run; null if none
  const Job* reference = nullptr;         // the reference run (may be `run`)
  const BackendStatus* status = nullptr;  // GPU backends: the probe's view
  // GPU backends: the part of the backend the case's op needs
  // (readiness_for_case, runner/planner.h), which decides whether it ran; null:
  // the whole backend's `status` decides.
  const PartReadiness* part = nullptr;
  // What the case must do on the backend in this run (expectation_in_run,
  // runner/planner.h: the probed device's facts decide its conditions);
  // null: the expectation as loaded.
  const Expectation* expectation = nullptr;
  // A failing mismatch writes its evidence folder under this root (empty:
  // none) and names it in the verdict's message.
  std::filesystem::path evidence_root = {};
  // The run's options, for a complete rerun line (runner/rerun.h); null: the
  // defaults.
  const RunOptions* options = nullptr;
};

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
