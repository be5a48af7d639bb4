// `casebook capture` and `accept` learn each run's verdict from the JUnit file
// of a `casebook run` (cli/capture_run.h). Whatever verdict the writer
// (runner/junit.h) writes is read back as that verdict with its family: NOT
// RUN, whose name holds a space, and INTERNAL, whose JUnit type is
// "internal", included.
#include <gtest/gtest.h>

#include <vector>

#include "casebook/verdict_list.h"
#include "cli/capture_run.h"
#include "run_command.h"
#include "runner/junit.h"

namespace casebook {
namespace {

using testing_support::read_text;
using testing_support::TempFolder;

std::vector<Verdict> every_verdict() {
  std::vector<Verdict> verdicts;
#define CASEBOOK_TEST_VERDICT(enumerator, ...) \
  verdicts.push_back(Verdict::enumerator);
  CASEBOOK_FOR_EACH_VERDICT(CASEBOOK_TEST_VERDICT)
#undef CASEBOOK_TEST_VERDICT
  return verdicts;
}

TEST(CaptureJunit, EveryVerdictTheWriterWritesIsReadBackWithItsFamily) {
  TempFolder folder;
  const auto file = folder.path() / "runs.xml";
  const std::vector<Verdict> verdicts = every_verdict();
  {
    JunitWriter writer(file, {});
    for (Verdict verdict : verdicts) {
      CaseVerdict run;
      run.case_id = "cross_entropy/label_4";
      run.verdict = verdict;
      run.family = Family::kIndexOutOfRange;
      run.message = "Target 4 is out of bounds.";
      writer.add(run);
    }
  }
  const std::vector<JudgedRun> read =
      junit_outcomes(read_text(file), "cross_entropy/label_4");
  ASSERT_EQ(read.size(), verdicts.size()) << read_text(file);
  for (size_t i = 0; i < verdicts.size(); ++i) {
    SCOPED_TRACE(verdict_name(verdicts[i]));
    EXPECT_EQ(read[i].verdict, verdicts[i]);
    if (verdict_junit_element(verdicts[i]) == JunitElement::kNone) continue;
    EXPECT_EQ(read[i].family, Family::kIndexOutOfRange);
    EXPECT_EQ(read[i].message, "Target 4 is out of bounds.");
  }
}

}  // namespace
}  // namespace casebook
