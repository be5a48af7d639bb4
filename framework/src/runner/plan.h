// A run's plan: the loaded cases and the jobs each needs. Not written once
// planned: what the run learns is its state (runner/run_state.h).
#pragma once

#include <ATen/core/Tensor.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "casebook/internal_error.h"
#include "casebook/loader.h"
#include "casebook/ops.h"
#include "casebook/runner.h"
#include "child/child_protocol.h"
#include "device/backend_readiness.h"

namespace casebook {

struct Job {
  size_t case_position = 0;  // into Plan::cases
  Backend backend = Backend::kCpu;
  JobKind kind = JobKind::kRun;
  // A case's CPU reference (cpu64, torch) and its CPU run share one child:
  // the reference's job names the run in `then_job`; the run is `second`, never
  // started alone. Each keeps its own report, outputs and seconds; a child
  // lost in the reference loses the run too (its report says so).
  long then_job = -1;
  bool second = false;
};

struct PlannedCase {
  LoadedCase loaded;
  const OpDef* op = nullptr;
  std::shared_ptr<const OpDef> generated_op;  // owns `op` for ATen ops
  std::vector<std::string> plan_errors;       // unknown op, bad arguments
  size_t table_index = 0;                     // into CaseTable, when runnable
  std::vector<Backend> reported;              // backends that get a verdict
  // A neighbour its file's `neighbors` declares (id `<case>~<rule>[<param>]`),
  // not the file's own case.
  bool neighbor = false;
  std::vector<size_t> jobs;  // into JobPlan::jobs

  bool runnable() const { return loaded.ok() && plan_errors.empty(); }
  // The case as loaded; only a runnable one has it.
  const Case& value() const {
    CASEBOOK_ASSERT(loaded.value.has_value(),
                    "a case that did not load has no value");
    return *loaded.value;
  }
};

// Whether a GPU backend can run, as the probe child saw it.
using BackendStatus = BackendReadiness;

}  // namespace casebook
