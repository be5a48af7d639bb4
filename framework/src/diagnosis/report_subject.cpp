// Which run a report is about: what ran and failed first, else what ran and
// raised the error it expects, else what ran; never a run that did not run
// (an absent backend's SKIP, an ERROR given without running the op).
#include <optional>

#include "casebook/diagnosis.h"

namespace casebook {
namespace {

bool is_failure(Verdict verdict) {
  return verdict == Verdict::kFail || verdict == Verdict::kError ||
         verdict == Verdict::kXpass || verdict == Verdict::kTimeout;
}

bool is_expected_failure(const ReportCandidate& run) {
  return run.verdict == Verdict::kXfail ||
         (run.verdict == Verdict::kPass && run.expected_error);
}

}  // namespace

ReportSubject choose_report_subject(const std::vector<ReportCandidate>& runs) {
  std::optional<size_t> failed;
  std::optional<size_t> expected;
  std::optional<size_t> passed;
  std::optional<size_t> skipped;
  std::vector<size_t> failures;
  for (size_t i = 0; i < runs.size(); ++i) {
    const ReportCandidate& run = runs[i];
    if (is_failure(run.verdict)) {
      failures.push_back(i);
      if (!failed && !run.unjudged) failed = i;
    } else if (is_expected_failure(run)) {
      if (!expected) expected = i;
    } else if (run.verdict == Verdict::kPass) {
      if (!passed) passed = i;
    } else if (run.verdict == Verdict::kSkip && !run.backend_absent) {
      if (!skipped) skipped = i;
    }
  }
  ReportSubject subject;
  if (failed) {
    subject.reason = SubjectReason::kFailed;
    subject.index = *failed;
  } else if (expected) {
    subject.reason = SubjectReason::kExpected;
    subject.index = *expected;
  } else if (passed) {
    subject.reason = SubjectReason::kPassed;
    subject.index = *passed;
  } else if (skipped) {
    subject.reason = SubjectReason::kSkipped;
    subject.index = *skipped;
  }
  for (size_t i : failures) {
    if (subject.reason != SubjectReason::kFailed || i != subject.index) {
      subject.other_failures.push_back(i);
    }
  }
  return subject;
}

std::string_view subject_reason_text(SubjectReason reason) {
  switch (reason) {
    case SubjectReason::kFailed:
      return "the first run that failed (FAIL, ERROR, XPASS or TIMEOUT)";
    case SubjectReason::kExpected:
      return "no run failed; the first run that failed as its case expects "
             "(the error it expects, or a known bug)";
    case SubjectReason::kPassed:
      return "every run that ran passed; the first of them";
    case SubjectReason::kSkipped:
      return "nothing ran; the first run the case skips";
    case SubjectReason::kNothingRan:
      return "nothing ran";
  }
  return "nothing ran";
}

}  // namespace casebook
