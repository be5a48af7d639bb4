// Which run a report is about: a table of runs -> the subject and why.
// What ran and failed comes first, then what ran and failed as expected;
// a SKIP of an absent backend is never the subject.
#include <gtest/gtest.h>

#include <vector>

#include "casebook/diagnosis.h"

namespace casebook {
namespace {

ReportCandidate run(Verdict verdict, bool absent = false,
                    bool expected_error = false) {
  ReportCandidate candidate;
  candidate.verdict = verdict;
  candidate.backend_absent = absent;
  candidate.expected_error = expected_error;
  return candidate;
}

const ReportCandidate kAbsentSkip = run(Verdict::kSkip, true);
const ReportCandidate kExpectedError = run(Verdict::kPass, false, true);
const ReportCandidate kUnjudged = [] {
  ReportCandidate candidate = run(Verdict::kError);
  candidate.unjudged = true;
  return candidate;
}();

struct SubjectRow {
  const char* what;
  std::vector<ReportCandidate> runs;
  SubjectReason reason;
  size_t index;
  std::vector<size_t> others;
};

TEST(ReportSubject, ChosenByWhatRan) {
  const std::vector<SubjectRow> table = {
      // The README's first example on a CPU-only machine: the CPU raises
      // its expected error, cuda and hip are absent.
      {"expected error, GPUs absent",
       {kExpectedError, kAbsentSkip, kAbsentSkip},
       SubjectReason::kExpected,
       0,
       {}},
      // A neighbour that fails on the CPU outranks the base's absent skips
      // and its own expected error.
      {"failing neighbour after absent skips",
       {kAbsentSkip, kExpectedError, kAbsentSkip, run(Verdict::kPass),
        run(Verdict::kFail), run(Verdict::kError)},
       SubjectReason::kFailed,
       4,
       {5}},
      {"an absent skip before a pass",
       {kAbsentSkip, run(Verdict::kPass)},
       SubjectReason::kPassed,
       1,
       {}},
      {"XPASS and TIMEOUT are failures",
       {run(Verdict::kXfail), run(Verdict::kXpass), run(Verdict::kTimeout)},
       SubjectReason::kFailed,
       1,
       {2}},
      {"an XFAIL is an expected failure",
       {run(Verdict::kPass), run(Verdict::kXfail)},
       SubjectReason::kExpected,
       1,
       {}},
      {"the case's own skip, nothing else ran",
       {kAbsentSkip, run(Verdict::kSkip)},
       SubjectReason::kSkipped,
       1,
       {}},
      // casebook's own "cannot be derived" ERROR of a neighbour ran no op:
      // the base's expected failure is the subject, the ERROR is listed.
      {"an unjudged neighbour after an XFAIL",
       {run(Verdict::kXfail), kUnjudged, kAbsentSkip},
       SubjectReason::kExpected,
       0,
       {1}},
      {"a real failure after an unjudged neighbour",
       {kUnjudged, run(Verdict::kPass), run(Verdict::kFail)},
       SubjectReason::kFailed,
       2,
       {0}},
      {"nothing ran",
       {kAbsentSkip, run(Verdict::kNotRun)},
       SubjectReason::kNothingRan,
       0,
       {}},
  };
  for (const SubjectRow& row : table) {
    const ReportSubject subject = choose_report_subject(row.runs);
    EXPECT_EQ(subject.reason, row.reason) << row.what;
    if (row.reason != SubjectReason::kNothingRan) {
      EXPECT_EQ(subject.index, row.index) << row.what;
    }
    EXPECT_EQ(subject.other_failures, row.others) << row.what;
  }
}

TEST(ReportSubject, EveryReasonIsSaid) {
  for (SubjectReason reason : {SubjectReason::kFailed, SubjectReason::kExpected,
                               SubjectReason::kPassed, SubjectReason::kSkipped,
                               SubjectReason::kNothingRan}) {
    EXPECT_FALSE(subject_reason_text(reason).empty());
  }
  EXPECT_NE(subject_reason_text(SubjectReason::kExpected)
                .find("the error it expects"),
            std::string::npos);
}

}  // namespace
}  // namespace casebook
