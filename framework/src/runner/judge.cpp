#include "runner/judge.h"

#include <sstream>

#include "casebook/diagnosis.h"
#include "casebook/internal_error.h"
#include "casebook/message_pattern.h"
#include "casebook/printable.h"
#include "compare/compare.h"
#include "compare/expected.h"
#include "diagnosis/random_op_advice.h"
#include "runner/rerun.h"

namespace casebook {
namespace {

// What one run amounted to, before the expectation is applied.
struct Observed {
  enum class Kind { kOutputs, kError, kTimeout, kSkipped, kInvalid };
  Kind kind = Kind::kError;
  Family family = Family::kNone;
  std::string message;
  std::vector<std::string> consequences;
  std::optional<std::vector<int64_t>> positions;
  std::optional<int64_t> processed;
};

Observed observe(const Job& job) {
  const ChildReport& report = job.result.report;
  Observed seen;
  seen.message = report.message;
  seen.consequences = report.consequences;
  seen.positions = report.positions;
  seen.processed = report.processed;
  seen.family = report.family;
  if (job.result.timed_out) {
    seen.kind = Observed::Kind::kTimeout;
  } else if (report.status == ChildReport::Status::kSkipped) {
    seen.kind = Observed::Kind::kSkipped;
  } else if (report.status == ChildReport::Status::kOutputs) {
    seen.kind = Observed::Kind::kOutputs;
  } else if (report.family == Family::kInvalidCase) {
    seen.kind = Observed::Kind::kInvalid;
  }
  return seen;
}

std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

std::string family_text(Family family) {
  return std::string(family_name(family));
}

// What to check first for the failure: the family's advice, or for a random
// op's values run with another generator than its truth's, that (issue 36).
std::string first_check(const JudgeInputs& in, Family family) {
  const Case& kase = in.planned.value();
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
  return advice_for(family).first_check;
}

// Adds what to check first for a failure of `family`.
void add_advice(const JudgeInputs& in, CaseVerdict* verdict) {
  if (verdict->family == Family::kNone) return;
  const FamilyAdvice& advice = advice_for(verdict->family);
  std::ostringstream text;
  if (!verdict->details.empty()) text << verdict->details << "\n";
  text << "first check (" << family_text(verdict->family)
       << "): " << first_check(in, verdict->family) << "\n"
       << advice.avoid;
  verdict->details = text.str();
}

void set_failure(CaseVerdict* verdict, Verdict kind, Family family,
                 std::string explanation) {
  verdict->verdict = kind;
  verdict->family = family;
  verdict->explanation = std::move(explanation);
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

// "the reference (cpu64)": which truth a comparison missed.
std::string reference_label(const Case& kase) {
  switch (kase.reference) {
    case Case::Reference::kCpu64:
      return "the reference (cpu64)";
    case Case::Reference::kTorch:
      return "the reference (torch)";
    case Case::Reference::kCpu:
    case Case::Reference::kNone:
      break;
  }
  return "the reference (cpu)";
}

// The verdict of a run expected to match the reference (also the first step
// of an xfail). Leaves PASS or a failure with family and explanation; a value
// mismatch leaves what was compared in `mismatch` for the evidence.
void judge_match(const JudgeInputs& in, const Observed& seen,
                 CaseVerdict* verdict, MismatchEvidence* mismatch) {
  if (seen.kind == Observed::Kind::kTimeout) {
    set_failure(verdict, Verdict::kTimeout, Family::kTimeout, seen.message);
    return;
  }
  if (seen.kind == Observed::Kind::kError) {
    set_failure(verdict, Verdict::kFail, seen.family, seen.message);
    return;
  }
  // Outputs. First what the case file says they must be, on every backend
  // (the CPU reference too); then, unless this run is the reference, the
  // reference.
  const Case& kase = in.planned.value();
  const std::vector<at::Tensor>& actual = in.run->result.outputs;
  const ToleranceRule rule = kase.tolerance_rule();
  const std::vector<OutputExpectation> truths = kase.outputs_for(in.backend);
  if (!truths.empty()) {
    std::vector<std::string> names;
    for (const TensorFile& file : in.run->result.report.outputs) {
      names.push_back(file.name);
    }
    ExpectedCheck check = check_expected_outputs(truths, actual, names, rule);
    if (!check.invalid.empty()) {
      set_failure(verdict, Verdict::kError, Family::kInvalidCase,
                  first_line(check.invalid));
      return;
    }
    if (!check.comparison.equal()) {
      set_failure(verdict, Verdict::kFail, check.comparison.family,
                  first_line(check.comparison.report));
      verdict->first_error = verdict->explanation;
      verdict->details = check.comparison.report;
      if (check.index) {
        mismatch->expected = actual;
        mismatch->expected[*check.index] = check.expected;
        mismatch->actual = actual;
        mismatch->comparison = std::move(check.comparison);
      }
      return;
    }
  }
  if (in.reference == in.run || kase.reference == Case::Reference::kNone) {
    verdict->verdict = Verdict::kPass;
    return;
  }
  if (in.reference == nullptr) {
    throw InternalError("no reference run was planned for `" +
                        in.planned.loaded.id + "` on " +
                        std::string(backend_name(in.backend)));
  }
  if (in.reference->result.report.internal) {
    // casebook broke making the truth: the run cannot be judged.
    throw InternalError("the reference run: " +
                        in.reference->result.report.message);
  }
  const Observed ref = observe(*in.reference);
  if (ref.kind != Observed::Kind::kOutputs) {
    set_failure(verdict, Verdict::kFail, ref.family,
                "no reference to compare with: the reference run failed (" +
                    family_text(ref.family) + "): " + first_line(ref.message));
    return;
  }
  std::vector<at::Tensor> expected = in.reference->result.outputs;
  if (kase.reference == Case::Reference::kCpu64) {
    // "cast to the output dtype": the dtype the op gives in the case's own
    // precision, i.e. the run's; a differing count or shape is judged below.
    for (size_t i = 0; i < expected.size() && i < actual.size(); ++i) {
      expected[i] = expected[i].to(actual[i].scalar_type());
    }
  }
  Comparison comparison =
      compare_outputs(expected, actual, rule, reference_label(kase));
  if (comparison.equal()) {
    verdict->verdict = Verdict::kPass;
    return;
  }
  set_failure(verdict, Verdict::kFail, comparison.family,
              first_line(comparison.report));
  verdict->first_error = verdict->explanation;
  verdict->details = comparison.report;
  mismatch->expected = std::move(expected);
  mismatch->actual = actual;
  mismatch->comparison = std::move(comparison);
}

void judge_error(const Expectation& expect, const Observed& seen,
                 CaseVerdict* verdict) {
  const std::string wanted = family_text(expect.family);
  switch (seen.kind) {
    case Observed::Kind::kOutputs:
      set_failure(verdict, Verdict::kFail, Family::kNone,
                  "expected " + wanted + ", got outputs");
      return;
    case Observed::Kind::kTimeout:
      if (expect.family == Family::kTimeout) break;
      set_failure(verdict, Verdict::kTimeout, Family::kTimeout,
                  "expected " + wanted + ", got a timeout: " + seen.message);
      return;
    default:
      if (seen.family != expect.family) {
        set_failure(verdict, Verdict::kFail, seen.family,
                    "expected " + wanted + ", got " + family_text(seen.family) +
                        ": " + first_line(seen.message));
        return;
      }
  }
  if (expect.positions && seen.positions != expect.positions) {
    auto text = [](const std::optional<std::vector<int64_t>>& list) {
      if (!list) return std::string("none");
      std::string out = "[";
      for (size_t i = 0; i < list->size(); ++i) {
        out += (i ? ", " : "") + std::to_string((*list)[i]);
      }
      return out + "]";
    };
    set_failure(verdict, Verdict::kFail, seen.family,
                "expected " + wanted + " at positions " +
                    text(expect.positions) + ", got positions " +
                    text(seen.positions) + ": " + first_line(seen.message));
    return;
  }
  if (expect.message && !message_matches(*expect.message, seen.message)) {
    set_failure(verdict, Verdict::kFail, seen.family,
                "expected " + wanted + " with a message matching `" +
                    *expect.message + "`; got " + family_text(seen.family) +
                    ": " + first_line(seen.message));
    verdict->details = "the first error in full:\n" + seen.message;
    return;
  }
  verdict->verdict = Verdict::kPass;
  verdict->family = seen.family;
  verdict->explanation = seen.message;
}

// `processed`: after a run judged PASS so far, the count the op reported
// must be the case's. Fewer is a run that skipped entries instead of
// failing (skipped_entries), whatever its outputs; more took entries it
// should have left out (mismatch).
void judge_count(const Expectation& expect, const Observed& seen,
                 CaseVerdict* verdict) {
  if (!expect.processed || verdict->verdict != Verdict::kPass) return;
  const int64_t wanted = *expect.processed;
  const std::string expected =
      "the case expects `processed: " + std::to_string(wanted) + "`";
  if (!seen.processed) {
    set_failure(verdict, Verdict::kFail, Family::kSkippedEntries,
                "the run reported no count of processed entries; " + expected);
    return;
  }
  const int64_t got = *seen.processed;
  if (got == wanted) return;
  std::string rejected;
  if (seen.positions && !seen.positions->empty()) {
    for (int64_t position : *seen.positions) {
      rejected += (rejected.empty() ? "" : ", ") + std::to_string(position);
    }
    rejected = "; rejected positions [" + rejected + "]";
  }
  if (got < wanted) {
    set_failure(verdict, Verdict::kFail, Family::kSkippedEntries,
                "processed " + std::to_string(got) + " entries, " + expected +
                    ": " + std::to_string(wanted - got) +
                    " skipped instead of failing" + rejected);
  } else {
    set_failure(verdict, Verdict::kFail, Family::kMismatch,
                "processed " + std::to_string(got) + " entries, " + expected +
                    ": " + std::to_string(got - wanted) +
                    " more than it should take" + rejected);
  }
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
        &verdict.step_location, &verdict.evidence_dir}) {
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
  verdict.rerun_command = in.options != nullptr
                              ? rerun_line(in.planned, in.backend, *in.options)
                              : rerun_command(in.planned, in.backend);
  return verdict;
}

// The verdict of one run, not yet fit to show; a failing mismatch leaves
// what was compared in `evidence`.
CaseVerdict judge_run(const JudgeInputs& in, MismatchEvidence* evidence) {
  CaseVerdict verdict = named_verdict(in);
  if (!in.planned.runnable()) {
    std::ostringstream all;
    for (const CaseError& error : in.planned.loaded.errors) {
      all << error.to_string() << "\n";
    }
    for (const std::string& error : in.planned.plan_errors)
      all << error << "\n";
    std::string text = all.str();
    if (!text.empty()) text.pop_back();
    set_failure(&verdict, Verdict::kError, Family::kInvalidCase,
                first_line(text));
    verdict.details = text;
    return verdict;
  }
  const Expectation expect = in.expectation != nullptr
                                 ? *in.expectation
                                 : in.planned.value().expectation(in.backend);
  verdict.expectation_reason = expect.reason;
  if (expect.kind == Expectation::Kind::kSkip) {
    verdict.verdict = Verdict::kSkip;
    verdict.explanation = expect.reason;
    return verdict;
  }
  // The part of the backend the case needs decides; without one, the whole.
  const PartReadiness whole =
      in.status != nullptr ? whole_backend(*in.status)
                           : PartReadiness{Readiness::kReady, {}, {}, {}};
  const PartReadiness& needed = in.part != nullptr ? *in.part : whole;
  if (needed.state == Readiness::kBroken) {
    // Broken is never a skip, whatever the case expects (an expected
    // op_unavailable must not pass on a backend that cannot start).
    set_failure(&verdict, Verdict::kError, Family::kOpUnavailable,
                std::string(backend_name(in.backend)) +
                    " cannot run: " + needed.reason);
    return verdict;
  }
  if (needed.state == Readiness::kAbsent) {
    verdict.verdict = Verdict::kSkip;
    // An absent backend's skips are counted apart; a part absent from a
    // backend that runs other cases is a skip of its own, saying which.
    verdict.backend_absent = whole.state == Readiness::kAbsent;
    verdict.explanation = needed.reason;
    return verdict;
  }
  if (!expect.missing.empty()) {
    set_failure(&verdict, Verdict::kError, Family::kInvalidCase,
                expect.missing);
    return verdict;
  }
  if (in.run == nullptr || !in.run->result.finished) {
    verdict.verdict = Verdict::kNotRun;
    verdict.explanation = "not run: the run was interrupted";
    return verdict;
  }
  verdict.seconds = in.run->result.wall_seconds;
  if (in.run->result.report.internal) {
    // Before the expectation is looked at: an expected error must not pass
    // (nor an xfail hold) because casebook itself broke.
    set_internal(&verdict, in.run->result.report.message);
    return verdict;
  }
  Observed seen = observe(*in.run);
  verdict.consequences = seen.consequences;
  if (seen.kind == Observed::Kind::kSkipped) {
    verdict.verdict = Verdict::kSkip;
    verdict.explanation = seen.message;
    return verdict;
  }
  if (seen.kind != Observed::Kind::kOutputs) {
    verdict.first_error = first_line(seen.message);
  }
  if (seen.kind == Observed::Kind::kInvalid) {
    set_failure(&verdict, Verdict::kError, Family::kInvalidCase, seen.message);
    return verdict;
  }
  MismatchEvidence mismatch;
  switch (expect.kind) {
    case Expectation::Kind::kMatch:
      judge_match(in, seen, &verdict, &mismatch);
      judge_count(expect, seen, &verdict);
      break;
    case Expectation::Kind::kError:
      judge_error(expect, seen, &verdict);
      judge_count(expect, seen, &verdict);
      break;
    case Expectation::Kind::kXfail: {
      judge_match(in, seen, &verdict, &mismatch);
      judge_count(expect, seen, &verdict);
      if (verdict.verdict == Verdict::kPass) {
        // verdict_message() says it from the expectation's reason.
        set_failure(&verdict, Verdict::kXpass, Family::kNone, "");
      } else if (expect.family != Family::kNone &&
                 verdict.family != expect.family) {
        verdict.explanation = "xfail expects " + family_text(expect.family) +
                              ", got " + family_text(verdict.family) + ": " +
                              verdict.explanation;
        verdict.verdict = Verdict::kFail;
      } else {
        // What the author expected, and (in brackets) what the judge saw.
        verdict.verdict = Verdict::kXfail;
        verdict.first_error = first_line(verdict.explanation);
      }
      break;
    }
    case Expectation::Kind::kSkip:
      break;
  }
  if (!verdict_is_success(verdict.verdict) && !mismatch.comparison.equal()) {
    // Only failing runs hand on evidence; an XFAIL's mismatch is expected.
    *evidence = std::move(mismatch);
  }
  if (!verdict_is_success(verdict.verdict)) add_advice(in, &verdict);
  verdict.step_location = step_location(in.planned.value(), in.run->result);
  if (in.run->result.first_attempt && !in.run->result.timed_out &&
      is_gpu(in.backend)) {
    verdict.poisoned_worker = true;
    verdict.poison_confirmed = in.run->result.report.poisoned;
    verdict.details += (verdict.details.empty() ? "" : "\n");
    verdict.details +=
        "this run poisoned its worker; rerun alone in a fresh process: " +
        std::string(verdict.poison_confirmed ? "confirmed"
                                             : "clean (blame not confirmed)");
  }
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

std::string rerun_command(const PlannedCase& planned, Backend backend) {
  return rerun_line(planned, backend, RunOptions{});
}

Judgement judgement_of(const JudgeInputs& in) {
  Judgement judged;
  try {
    judged.verdict = judge_run(in, &judged.mismatch);
  } catch (const InternalError& error) {
    // An invariant of casebook broke while judging: the case is not blamed.
    judged.verdict = named_verdict(in);
    if (in.run != nullptr) judged.verdict.seconds = in.run->result.wall_seconds;
    set_internal(&judged.verdict, error.what());
    judged.mismatch = MismatchEvidence{};
  }
  CaseVerdict& verdict = judged.verdict;
  verdict.line = deciding_line(in.planned, in.backend);
  // The entry the probed device's facts chose, where it is another.
  if (in.expectation != nullptr && in.expectation->where.line > 0) {
    verdict.line = in.expectation->where.line;
  }
  return judged;
}

CaseVerdict judge(const JudgeInputs& in) {
  return fit_to_show(judgement_of(in).verdict);
}

}  // namespace casebook
