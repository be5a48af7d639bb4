// CaseVerdict::message, composed from the verdict's fields in one place, so
// that what the table, JUnit and gtest print and what `casebook report`
// reads (the fields) cannot drift apart.
#include "casebook/runner.h"

namespace casebook {

std::string verdict_message(const CaseVerdict& verdict) {
  std::string text;
  switch (verdict.verdict) {
    case Verdict::kXfail:
      text = verdict.expectation_reason + " (" + verdict.first_error + ")";
      break;
    case Verdict::kXpass:
      text = "expected to fail (" + verdict.expectation_reason +
             ") but passed: the bug is fixed, update the case";
      break;
    default:
      text = verdict.explanation;
  }
  if (!verdict.evidence_dir.empty()) {
    text += "; evidence: " + verdict.evidence_dir;
  }
  if (!verdict.step_location.empty()) {
    text += " (" + verdict.step_location + ")";
  }
  return text;
}

}  // namespace casebook
