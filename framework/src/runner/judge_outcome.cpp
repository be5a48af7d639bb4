#include "runner/judge_outcome.h"

#include "casebook/family.h"
#include "casebook/internal_error.h"
#include "casebook/message_pattern.h"
#include "casebook/printable.h"
#include "casebook/shape_text.h"
#include "compare/compare.h"
#include "compare/expected.h"
#include "compare/value_text.h"

namespace casebook::judging {

Observed observe(const JobResult& result) {
  const ChildReport& report = result.report;
  Observed seen;
  seen.message = report.message;
  seen.consequences = report.consequences;
  seen.positions = report.positions;
  seen.processed = report.processed;
  seen.family = report.family;
  if (result.timed_out) {
    seen.kind = Observed::Kind::kTimeout;
  } else if (report.status == ChildReport::Status::kSkipped) {
    seen.kind = Observed::Kind::kSkipped;
  } else if (report.status == ChildReport::Status::kOutputs) {
    seen.kind = Observed::Kind::kOutputs;
    seen.outputs = &result.outputs;
  } else if (report.family == Family::kInvalidCase) {
    seen.kind = Observed::Kind::kInvalid;
  }
  return seen;
}

std::string family_text(Family family) {
  return std::string(family_name(family));
}

void set_failure(CaseVerdict* verdict, Verdict kind, Family family,
                 std::string explanation) {
  verdict->verdict = kind;
  verdict->family = family;
  verdict->explanation = std::move(explanation);
}

namespace {

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

// A FAIL of values that differ: the comparison's family, its first line as
// the explanation and the first error, its report as the details.
void set_value_mismatch(CaseVerdict* verdict, const Comparison& comparison) {
  set_failure(verdict, Verdict::kFail, comparison.family,
              first_line(comparison.report));
  verdict->first_error = verdict->explanation;
  verdict->details = comparison.report;
}

std::vector<at::Tensor> reference_outputs(
    const Case& kase, const JobResult& reference,
    const std::vector<at::Tensor>& actual);

// Whether the run's outputs agree with the reference's, from runs already
// made (the run is the reference, or both gave outputs): false where there
// is none to compare with.
bool run_agrees_with_reference(const JudgeInputs& in) {
  const Case& kase = in.planned.value();
  if (kase.reference == Case::Reference::kNone || in.reference == nullptr) {
    return false;
  }
  if (in.reference == in.run) return true;
  if (in.reference->report.internal ||
      observe(*in.reference).kind != Observed::Kind::kOutputs) {
    return false;
  }
  const std::vector<at::Tensor>& actual = in.run->outputs;
  const std::vector<at::Tensor> expected =
      reference_outputs(kase, *in.reference, actual);
  return compare_outputs_each(expected, actual,
                              kase.reference_rules(expected.size(), in.backend),
                              reference_label(kase))
      .equal();
}

// The outputs against what the case file says they must be on the backend
// (on every backend, the CPU reference too). True when that decided the
// verdict: a failure, or an ERROR where the file's values cannot be read.
bool fails_case_file_outputs(const JudgeInputs& in, CaseVerdict* verdict,
                             MismatchEvidence* mismatch) {
  const Case& kase = in.planned.value();
  const std::vector<OutputExpectation> truths = kase.outputs_for(in.backend);
  if (truths.empty()) return false;
  const std::vector<at::Tensor>& actual = in.run->outputs;
  std::vector<std::string> names;
  for (const TensorFile& file : in.run->report.outputs) {
    names.push_back(file.name);
  }
  ExpectedCheck check =
      check_expected_outputs(truths, actual, names, kase.tolerance_rule());
  if (!check.invalid.empty()) {
    set_failure(verdict, Verdict::kError, Family::kInvalidCase,
                first_line(check.invalid));
    return true;
  }
  if (check.comparison.equal()) return false;
  set_value_mismatch(verdict, check.comparison);
  mismatch->reference_agrees = run_agrees_with_reference(in);
  if (check.index) {
    mismatch->expected = actual;
    mismatch->expected[*check.index] = check.expected;
    mismatch->actual = actual;
    mismatch->comparison = std::move(check.comparison);
  }
  return true;
}

// The reference run, fit to be the truth; an InternalError where none was
// planned or casebook broke making it (the run cannot be judged).
const JobResult& reference_run(const JudgeInputs& in) {
  if (in.reference == nullptr) {
    throw InternalError("no reference run was planned for `" +
                        in.planned.loaded.id + "` on " +
                        std::string(backend_name(in.backend)));
  }
  if (in.reference->report.internal) {
    throw InternalError("the reference run: " + in.reference->report.message);
  }
  return *in.reference;
}

// The reference's outputs as `actual` is compared with them: a cpu64
// reference's "cast to the output dtype", the dtype the op gives in the
// case's own precision, i.e. the run's; a differing count or shape is left
// to the comparison.
std::vector<at::Tensor> reference_outputs(
    const Case& kase, const JobResult& reference,
    const std::vector<at::Tensor>& actual) {
  std::vector<at::Tensor> expected = reference.outputs;
  if (kase.reference == Case::Reference::kCpu64) {
    for (size_t i = 0; i < expected.size() && i < actual.size(); ++i) {
      expected[i] = expected[i].to(actual[i].scalar_type());
    }
  }
  return expected;
}

// The outputs against the reference run's, unless this run is the
// reference or the case has none: PASS or a failure.
void judge_against_reference(const JudgeInputs& in, CaseVerdict* verdict,
                             MismatchEvidence* mismatch) {
  const Case& kase = in.planned.value();
  if (in.reference == in.run || kase.reference == Case::Reference::kNone) {
    verdict->verdict = Verdict::kPass;
    return;
  }
  const JobResult& reference = reference_run(in);
  const Observed ref = observe(reference);
  if (ref.kind != Observed::Kind::kOutputs) {
    set_failure(verdict, Verdict::kFail, ref.family,
                "no reference to compare with: the reference run failed (" +
                    family_text(ref.family) + "): " + first_line(ref.message));
    return;
  }
  const std::vector<at::Tensor>& actual = in.run->outputs;
  std::vector<at::Tensor> expected = reference_outputs(kase, reference, actual);
  Comparison comparison = compare_outputs_each(
      expected, actual, kase.reference_rules(expected.size(), in.backend),
      reference_label(kase));
  if (comparison.equal()) {
    verdict->verdict = Verdict::kPass;
    return;
  }
  set_value_mismatch(verdict, comparison);
  mismatch->expected = std::move(expected);
  mismatch->actual = actual;
  mismatch->comparison = std::move(comparison);
}

// "[3, 7]", or "none" where no positions were given.
std::string positions_text(const std::optional<std::vector<int64_t>>& list) {
  if (!list) return std::string("none");
  return shape_text(*list);
}

// "; rejected positions [3, 7]", or nothing where the run named none.
std::string rejected_text(const std::optional<std::vector<int64_t>>& list) {
  if (!list || list->empty()) return "";
  return "; rejected positions " + shape_text(*list);
}

}  // namespace

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
  if (fails_case_file_outputs(in, verdict, mismatch)) return;
  judge_against_reference(in, verdict, mismatch);
}

// The first values of each output a failure shows where an error was
// expected.
constexpr int64_t kOutputsShown = 4;

void judge_error(const Expectation& expect, const Observed& seen,
                 CaseVerdict* verdict) {
  const std::string wanted = family_text(expect.family);
  switch (seen.kind) {
    case Observed::Kind::kOutputs:
      set_failure(verdict, Verdict::kFail, Family::kNone,
                  "expected " + wanted + ", got outputs: " +
                      (seen.outputs != nullptr
                           ? reported_outputs(*seen.outputs, kOutputsShown)
                           : std::string("none")));
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
    set_failure(verdict, Verdict::kFail, seen.family,
                "expected " + wanted + " at positions " +
                    positions_text(expect.positions) + ", got positions " +
                    positions_text(seen.positions) + ": " +
                    first_line(seen.message));
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
  const std::string rejected = rejected_text(seen.positions);
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

}  // namespace casebook::judging
