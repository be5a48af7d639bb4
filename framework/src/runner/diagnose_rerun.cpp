#include "runner/diagnose_rerun.h"

#include <utility>

#include "casebook/op_catalog.h"
#include "casebook/ops.h"
#include "runner/session.h"

namespace casebook {

CaseVerdict run_rerun(const LoadedCase& loaded, Case kase, Backend backend,
                      const ChildEnvironment& environment) {
  // Every backend: match the reference (the probe's device facts must not
  // bring an entry back).
  kase.expect.clear();
  kase.expect_entries.clear();
  Plan plan;
  PlannedCase planned;
  planned.loaded = loaded;
  planned.loaded.value = std::move(kase);
  ResolvedOp resolved = resolve_op(planned.value(), default_registry());
  planned.op = resolved.def;
  planned.generated_op = std::move(resolved.generated);
  planned.reported = {backend};
  plan.cases.push_back(std::move(planned));
  RunOptions options;
  options.backends = {backend};
  options.isolation = Isolation::kStrict;
  options.child_environment = environment;
  Execution execution = execute_plan(
      plan, options, [](const PlannedCase&, Backend) { return true; }, nullptr);
  if (execution.summary.verdicts.empty()) {
    CaseVerdict none;
    none.verdict = Verdict::kInternal;
    none.message = "internal error: the rerun gave no verdict";
    none.details = std::string(kInternalErrorNote);
    return none;
  }
  return execution.summary.verdicts.front();
}

RunOutcome outcome_of(const CaseVerdict& verdict) {
  RunOutcome outcome;
  // casebook's own error says nothing of the op: not a run.
  outcome.ran = verdict.verdict != Verdict::kNotRun &&
                verdict.verdict != Verdict::kSkip &&
                verdict.verdict != Verdict::kInternal;
  outcome.matched = verdict.verdict == Verdict::kPass;
  outcome.family = outcome.matched ? Family::kNone : verdict.family;
  outcome.message = verdict.message.substr(0, verdict.message.find('\n'));
  return outcome;
}

}  // namespace casebook
