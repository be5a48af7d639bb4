#include "runner/judge.h"

#include <sstream>

#include "casebook/diagnosis.h"
#include "casebook/internal_error.h"
#include "casebook/printable.h"
#include "casebook/run_advice.h"
#include "diagnosis/random_op_advice.h"
#include "runner/judge_outcome.h"
#include "runner/rerun.h"

namespace casebook {

using judging::family_text;
using judging::Observed;
using judging::set_failure;

namespace {

// What to check first for the failure: for a random op's values run with
// another generator than its truth's, that (issue 36); else what the
// message and the comparison say (first_check_for, issue 48).
std::string first_check(const JudgeInputs& in, const CaseVerdict& verdict,
                        bool stated_outputs_disagree_with_reference) {
  const Case& kase = in.planned.value();
  const Family family = verdict.family;
  if (family == Family::kMismatch && in.planned.op != nullptr &&
      in.planned.op->random) {
    if (is_gpu(in.backend)) {
      return random_op_first_check(
          kase.op, std::string(backend_name(in.backend)) +
                       "'s generator draws other numbers than the CPU's");
    }
    if (kase.reference == Case::Reference::kCpu64) {
      return random_op_first_check(
          kase.op,
          "its float64 run (the cpu64 reference) draws other numbers than "
          "its own dtype's");
    }
  }
  const std::string message = first_line(verdict.explanation);
  FailureFacts facts;
  facts.family = family;
  facts.message = message;
  facts.backend = in.backend;
  facts.stated_outputs_disagree_with_reference =
      stated_outputs_disagree_with_reference;
  return first_check_for(facts);
}

// Adds what to check first for a failure of `family`.
void add_advice(const JudgeInputs& in, const MismatchEvidence& mismatch,
                CaseVerdict* verdict) {
  if (verdict->family == Family::kNone) return;
  const FamilyAdvice advice = advice_on(verdict->family, in.backend);
  const std::string check =
      first_check(in, *verdict, mismatch.reference_agrees);
  std::ostringstream text;
  if (!verdict->details.empty()) text << verdict->details << "\n";
  text << "first check (" << family_text(verdict->family) << "): " << check
       << "\n"
       << advice.avoid;
  verdict->details = text.str();
}

// INTERNAL: casebook's own invariant broke (`what`: "internal error: ...").
// Nothing the run showed is kept as the case's: no family, no first error,
// no consequences, no advice; the details say whose fault it is.
void set_internal(CaseVerdict* verdict, const std::string& what) {
  verdict->verdict = Verdict::kInternal;
  verdict->family = Family::kNone;
  verdict->explanation = first_line(what);
  verdict->first_error.clear();
  verdict->consequences.clear();
  verdict->evidence_dir.clear();
  verdict->details = std::string(kInternalErrorNote);
}

}  // namespace

CaseVerdict fit_to_show(CaseVerdict verdict) {
  // Printable when loaded (derive_case_id, the loader's `id` rule); made so
  // here too, since every writer prints it.
  verdict.case_id =
      printable_line(bounded_text(verdict.case_id, kMessageBytes));
  verdict.message =
      printable_line(bounded_text(verdict_message(verdict), kMessageBytes));
  for (std::string* line :
       {&verdict.explanation, &verdict.expectation_reason, &verdict.first_error,
        &verdict.step_location, &verdict.failing_step, &verdict.evidence_dir}) {
    *line = printable_line(bounded_text(*line, kMessageBytes));
  }
  verdict.details =
      printable_text(bounded_text(verdict.details, kDetailsBytes));
  constexpr size_t kConsequencesShown = 8;
  if (verdict.consequences.size() > kConsequencesShown) {
    const size_t more = verdict.consequences.size() - kConsequencesShown;
    verdict.consequences.resize(kConsequencesShown);
    verdict.consequences.push_back(std::to_string(more) + " more");
  }
  for (std::string& later : verdict.consequences) {
    later = printable_line(bounded_text(later, kMessageBytes));
  }
  return verdict;
}

namespace {

// "step 2 (`aten::nll_loss`)", "step 2 `loss` (`aten::nll_loss`)" when the
// file names it; the synchronisation after the last step is past its end.
std::string step_text(const Case& kase, int step) {
  if (step < 0) return "an unknown step";
  const size_t index = static_cast<size_t>(step);
  if (index >= kase.steps.size()) {
    return "the synchronisation after the last step (" +
           std::to_string(kase.steps.size()) + ")";
  }
  const Step& each = kase.steps[index];
  return "step " + std::to_string(index + 1) +
         (each.named ? " `" + each.name + "`" : std::string()) + " (`" +
         each.op + "`)";
}

// The most of a locating rerun's unplaced error that step_location quotes.
constexpr size_t kLocatedMessageBytes = 200;

// CaseVerdict::step_location's text, from the run and its locating rerun.
std::string step_location(const Case& kase, const JobResult& result) {
  const ChildReport& report = result.report;
  if (kase.steps.empty() || report.status != ChildReport::Status::kError ||
      !report.step) {
    return "";
  }
  std::string text = "raised at " + step_text(kase, *report.step);
  if (!result.located) return text;
  const ChildReport& located = *result.located;
  if (located.status != ChildReport::Status::kError) {
    return text + "; a rerun synchronising after every step did not fail";
  }
  if (!located.step) {
    return text +
           "; the rerun synchronising after every step placed "
           "nothing: " +
           bounded_text(located.message, kLocatedMessageBytes);
  }
  if (*located.step == *report.step) {
    return text +
           ", launched there too (a rerun synchronising after every "
           "step)";
  }
  return text + ", launched by " + step_text(kase, *located.step);
}

// A verdict naming its run (case, backend, file, rerun line), not yet judged.
CaseVerdict named_verdict(const JudgeInputs& in) {
  CaseVerdict verdict;
  verdict.case_id = in.planned.loaded.id;
  verdict.backend = in.backend;
  verdict.file = in.planned.loaded.file;
  verdict.rerun_command = rerun_line(in.planned, in.backend, in.options);
  return verdict;
}

// ERROR invalid_case for a file that did not load or plan: its first error
// as the explanation, every error in the details.
void set_not_runnable(const PlannedCase& planned, CaseVerdict* verdict) {
  std::ostringstream all;
  for (const CaseError& error : planned.loaded.errors) {
    all << error.to_string() << "\n";
  }
  for (const std::string& error : planned.plan_errors) all << error << "\n";
  std::string text = all.str();
  if (!text.empty()) text.pop_back();
  set_failure(verdict, Verdict::kError, Family::kInvalidCase, first_line(text));
  verdict->details = text;
}

// The verdicts decided before the run's report is read: an expected skip,
// a backend (part) that is broken or absent, an expectation that misses
// something, a run that did not finish. True when one of them decided.
bool decided_before_run(const JudgeInputs& in, const Expectation& expect,
                        CaseVerdict* verdict) {
  const PairInRun& pair = in.in_run;
  if (expect.kind == Expectation::Kind::kSkip) {
    verdict->verdict = Verdict::kSkip;
    verdict->explanation = expect.reason;
    return true;
  }
  if (pair.needed.state == Readiness::kBroken) {
    // Broken is never a skip, whatever the case expects (an expected
    // op_unavailable must not pass on a backend that cannot start).
    set_failure(verdict, Verdict::kError, Family::kOpUnavailable,
                std::string(backend_name(in.backend)) +
                    " cannot run: " + pair.needed.reason);
    return true;
  }
  if (pair.needed.state == Readiness::kAbsent) {
    verdict->verdict = Verdict::kSkip;
    // An absent backend's skips are counted apart; a part absent from a
    // backend that runs other cases is a skip of its own, saying which.
    verdict->backend_absent = pair.backend_absent;
    verdict->explanation = pair.needed.reason;
    return true;
  }
  if (!expect.missing.empty()) {
    set_failure(verdict, Verdict::kError, Family::kInvalidCase, expect.missing);
    return true;
  }
  if (in.run == nullptr || !in.run->finished) {
    verdict->verdict = Verdict::kNotRun;
    verdict->explanation = "not run: the run was interrupted";
    return true;
  }
  return false;
}

// The verdicts the run's report decides whatever the case expects: a run
// that skipped itself, a case the child found invalid. True when one did;
// otherwise an error's first line is kept as the first error.
bool decided_by_report(const Observed& seen, CaseVerdict* verdict) {
  if (seen.kind == Observed::Kind::kSkipped) {
    verdict->verdict = Verdict::kSkip;
    verdict->explanation = seen.message;
    return true;
  }
  if (seen.kind != Observed::Kind::kOutputs) {
    verdict->first_error = first_line(seen.message);
  }
  if (seen.kind == Observed::Kind::kInvalid) {
    set_failure(verdict, Verdict::kError, Family::kInvalidCase, seen.message);
    return true;
  }
  return false;
}

// An xfail, after the run was judged as a match: a pass is XPASS, a failure
// of another family than the one expected (where one is) FAIL, else XFAIL.
void judge_xfail(const Expectation& expect, CaseVerdict* verdict) {
  if (verdict->verdict == Verdict::kPass) {
    // verdict_message() says it from the expectation's reason.
    set_failure(verdict, Verdict::kXpass, Family::kNone, "");
  } else if (expect.family != Family::kNone &&
             verdict->family != expect.family) {
    verdict->explanation = "xfail expects " + family_text(expect.family) +
                           ", got " + family_text(verdict->family) + ": " +
                           verdict->explanation;
    verdict->verdict = Verdict::kFail;
  } else {
    // What the author expected, and (in brackets) what the judge saw.
    verdict->verdict = Verdict::kXfail;
    verdict->first_error = first_line(verdict->explanation);
  }
}

// The run against what the case expects of it: an error, or outputs that
// match (an xfail: that fail to), then the count of processed entries.
void judge_expected(const JudgeInputs& in, const Expectation& expect,
                    const Observed& seen, CaseVerdict* verdict,
                    MismatchEvidence* mismatch) {
  switch (expect.kind) {
    case Expectation::Kind::kSkip:
      return;  // decided before the run
    case Expectation::Kind::kError:
      judging::judge_error(expect, seen, verdict);
      break;
    case Expectation::Kind::kMatch:
    case Expectation::Kind::kXfail:
      judging::judge_match(in, seen, verdict, mismatch);
      break;
  }
  judging::judge_count(expect, seen, verdict);
  if (expect.kind == Expectation::Kind::kXfail) judge_xfail(expect, verdict);
}

// Where the run failed among the case's steps, and whether it poisoned its
// GPU worker (rerun alone in a fresh process, and whether that confirmed it).
void add_run_details(const JudgeInputs& in, CaseVerdict* verdict) {
  const JobResult& result = *in.run;
  const Case& kase = in.planned.value();
  verdict->step_location = step_location(kase, result);
  const std::optional<int>& step = result.report.step;
  if (!verdict->step_location.empty() && step && *step >= 0 &&
      static_cast<size_t>(*step) < kase.steps.size()) {
    verdict->failing_step = kase.steps[static_cast<size_t>(*step)].name;
  }
  if (!result.first_attempt || result.timed_out || !is_gpu(in.backend)) return;
  verdict->poisoned_worker = true;
  verdict->poison_confirmed = result.report.poisoned;
  verdict->details += (verdict->details.empty() ? "" : "\n");
  verdict->details +=
      "this run poisoned its worker; rerun alone in a fresh process: " +
      std::string(verdict->poison_confirmed ? "confirmed"
                                            : "clean (blame not confirmed)");
}

// The verdict of one run, not yet fit to show; a failing mismatch leaves
// what was compared in `evidence`.
CaseVerdict judge_run(const JudgeInputs& in, MismatchEvidence* evidence) {
  CaseVerdict verdict = named_verdict(in);
  if (const CaseError* internal = in.planned.loaded.internal_error()) {
    // casebook broke while reading the file: not the file's fault.
    set_internal(&verdict, internal->message);
    return verdict;
  }
  if (!in.planned.runnable()) {
    set_not_runnable(in.planned, &verdict);
    return verdict;
  }
  CASEBOOK_ASSERT(in.in_run.expect.has_value(),
                  "no expectation in this run for `" + in.planned.loaded.id +
                      "` on " + std::string(backend_name(in.backend)));
  const Expectation& expect = *in.in_run.expect;
  verdict.expectation_reason = expect.reason;
  if (decided_before_run(in, expect, &verdict)) return verdict;
  verdict.seconds = in.run->wall_seconds;
  if (in.run->report.internal) {
    // Before the expectation is looked at: an expected error must not pass
    // (nor an xfail hold) because casebook itself broke.
    set_internal(&verdict, in.run->report.message);
    return verdict;
  }
  const Observed seen = judging::observe(*in.run);
  verdict.consequences = seen.consequences;
  if (decided_by_report(seen, &verdict)) return verdict;
  MismatchEvidence mismatch;
  judge_expected(in, expect, seen, &verdict, &mismatch);
  if (!verdict_is_success(verdict.verdict)) {
    // Only failing runs hand on evidence; an XFAIL's mismatch is expected.
    add_advice(in, mismatch, &verdict);
    if (!mismatch.comparison.equal()) *evidence = std::move(mismatch);
  }
  add_run_details(in, &verdict);
  return verdict;
}

}  // namespace

int deciding_line(const PlannedCase& planned, Backend backend) {
  if (!planned.runnable()) {
    // A load error has its line; a plan error (an op the build lacks) is
    // the op's.
    if (!planned.loaded.errors.empty()) {
      return planned.loaded.errors.front().where.line;
    }
    return planned.loaded.value ? planned.loaded.value->op_where.line : 0;
  }
  const Case& kase = planned.value();
  const int expected = kase.expectation(backend).where.line;
  if (expected > 0) return expected;
  const std::vector<OutputExpectation> outputs = kase.outputs_for(backend);
  if (!outputs.empty() && outputs.front().where.line > 0) {
    return outputs.front().where.line;
  }
  return kase.op_where.line;
}

const RunOptions& default_run_options() {
  static const RunOptions defaults;
  return defaults;
}

std::string rerun_command(const PlannedCase& planned, Backend backend) {
  return rerun_line(planned, backend, default_run_options());
}

Judgement judgement_of(const JudgeInputs& in) {
  Judgement judged;
  try {
    judged.verdict = judge_run(in, &judged.mismatch);
  } catch (const InternalError& error) {
    // An invariant of casebook broke while judging: the case is not blamed.
    judged.verdict = named_verdict(in);
    if (in.run != nullptr) judged.verdict.seconds = in.run->wall_seconds;
    set_internal(&judged.verdict, error.what());
    judged.mismatch = MismatchEvidence{};
  }
  CaseVerdict& verdict = judged.verdict;
  verdict.line = deciding_line(in.planned, in.backend);
  // The entry the probed device's facts chose, where it is another.
  if (in.in_run.expect && in.in_run.expect->where.line > 0) {
    verdict.line = in.in_run.expect->where.line;
  }
  return judged;
}

CaseVerdict judge(const JudgeInputs& in) {
  return fit_to_show(judgement_of(in).verdict);
}

}  // namespace casebook
