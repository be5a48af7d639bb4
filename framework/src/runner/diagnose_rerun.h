// One rerun of `casebook diagnose` (runner/diagnose_plan.h plans them): a
// changed copy of a case run alone, and what its verdict says happened.
#pragma once

#include "casebook/loader.h"
#include "casebook/runner.h"
#include "child/execute.h"
#include "diagnosis/conclusions.h"

namespace casebook {

// Runs `kase` (the case of `loaded`, changed) on `backend` alone, in fresh
// processes (strict isolation) with `environment` set in its children, and
// judges it against the reference: every `expect` entry is dropped, so that
// what happened is the verdict (a match is PASS), not the case's own
// expectation.
CaseVerdict run_rerun(const LoadedCase& loaded, Case kase, Backend backend,
                      const ChildEnvironment& environment);

// What a rerun's verdict says happened: whether it ran (NOT RUN and SKIP did
// not), whether the outputs matched, the family of its error (none on a
// match) and the first line of its message.
RunOutcome outcome_of(const CaseVerdict& verdict);

}  // namespace casebook
