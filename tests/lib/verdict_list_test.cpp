// The verdict list (casebook/verdict_list.h) is the one source of each
// verdict's facts. Every row is written out here a second time, by hand, and
// checked through the functions the edges call: the name every line prints,
// whether it keeps the exit status 0, the colour a terminal paints it in,
// and the element of its rendered JUnit test case with the <testsuite>
// counts that follow. A wrong row, or a row out of its place, fails.
#include "casebook/verdict_list.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "casebook/runner.h"
#include "run_command.h"
#include "runner/junit.h"

namespace casebook {
namespace {

using testing_support::read_text;
using testing_support::TempFolder;

struct ExpectedRow {
  Verdict verdict;
  std::string name;
  bool success;
  std::string colour;
  // What the <testcase> of a verdict with message "m", rerun line "r" and no
  // family holds between its start and end tags.
  std::string junit_body;
};

// In the enumerators' order, which counts and summaries iterate.
const std::vector<ExpectedRow>& expected_rows() {
  static const std::vector<ExpectedRow> rows = {
      {Verdict::kPass, "PASS", true, "\033[32m", ""},
      {Verdict::kFail, "FAIL", false, "\033[1;31m",
       "  <failure type=\"FAIL\" message=\"FAIL: m\">rerun: r</failure>\n"},
      {Verdict::kXfail, "XFAIL", true, "\033[36m",
       "  <system-out>XFAIL: m</system-out>\n"},
      {Verdict::kXpass, "XPASS", false, "\033[1;31m",
       "  <failure type=\"XPASS\" message=\"XPASS: m\">rerun: r</failure>\n"},
      {Verdict::kSkip, "SKIP", true, "\033[33m",
       "  <skipped message=\"SKIP: m\"/>\n"},
      {Verdict::kError, "ERROR", false, "\033[1;31m",
       "  <error type=\"ERROR\" message=\"ERROR: m\">rerun: r</error>\n"},
      {Verdict::kTimeout, "TIMEOUT", false, "\033[1;31m",
       "  <failure type=\"TIMEOUT\" message=\"TIMEOUT: m\">rerun: "
       "r</failure>\n"},
      {Verdict::kNotRun, "NOT RUN", false, "\033[1;31m",
       "  <error type=\"NOT RUN\" message=\"NOT RUN: m\">rerun: r</error>\n"},
      {Verdict::kInternal, "INTERNAL", false, "\033[1;31m",
       "  <error type=\"internal\" message=\"INTERNAL: m\">rerun: "
       "r</error>\n"},
  };
  return rows;
}

// Every row of the list, in list order.
std::vector<Verdict> listed_verdicts() {
  return {
#define CASEBOOK_VERDICT_ENUMERATOR(enumerator, name, success, colour, junit) \
  Verdict::enumerator,
      CASEBOOK_FOR_EACH_VERDICT(CASEBOOK_VERDICT_ENUMERATOR)
#undef CASEBOOK_VERDICT_ENUMERATOR
  };
}

TEST(VerdictList, EveryRowIsExpectedInTheEnumeratorsOrder) {
  const std::vector<Verdict> listed = listed_verdicts();
  ASSERT_EQ(listed.size(), expected_rows().size());
  for (size_t i = 0; i < listed.size(); ++i) {
    EXPECT_EQ(listed[i], expected_rows()[i].verdict) << i;
    // Summaries count in a std::map<Verdict, int>: the enumerator's value is
    // the place of its count.
    EXPECT_EQ(static_cast<size_t>(expected_rows()[i].verdict), i)
        << expected_rows()[i].name;
  }
}

TEST(VerdictList, EachRowsNameSuccessAndColourAreTheOnesTheEdgesGet) {
  for (const ExpectedRow& row : expected_rows()) {
    EXPECT_EQ(verdict_name(row.verdict), row.name);
    EXPECT_EQ(verdict_is_success(row.verdict), row.success) << row.name;
    EXPECT_EQ(verdict_colour(row.verdict), row.colour) << row.name;
    RunSummary one;
    one.verdicts.resize(1);
    one.verdicts[0].verdict = row.verdict;
    EXPECT_EQ(one.exit_code(), row.success ? 0 : 1) << row.name;
  }
}

// The text of the <testcase> whose classname is `id`, between its tags.
std::string testcase_body(const std::string& xml, const std::string& id) {
  const size_t start = xml.find("<testcase classname=\"" + id + "\"");
  if (start == std::string::npos) return "(no test case " + id + ")";
  const size_t body = xml.find(">\n", start) + 2;
  return xml.substr(body, xml.find("</testcase>", body) - body);
}

TEST(VerdictList, EachRowsJunitElementIsTheOneItsTestCaseHolds) {
  RunSummary summary;
  for (const ExpectedRow& row : expected_rows()) {
    CaseVerdict verdict;
    verdict.case_id = "verdicts/" + row.name;
    verdict.verdict = row.verdict;
    verdict.message = "m";
    verdict.rerun_command = "r";
    summary.verdicts.push_back(verdict);
  }
  TempFolder folder;
  const std::filesystem::path file = folder.path() / "verdicts.xml";
  write_junit(file, summary, {});
  const std::string xml = read_text(file);
  for (const ExpectedRow& row : expected_rows()) {
    EXPECT_EQ(testcase_body(xml, "verdicts/" + row.name), row.junit_body)
        << row.name;
  }
  // FAIL, XPASS, TIMEOUT fail; ERROR, NOT RUN, INTERNAL are errors.
  EXPECT_NE(xml.find("<testsuite name=\"casebook\" tests=\"9\" failures=\"3\" "
                     "errors=\"3\" skipped=\"1\""),
            std::string::npos)
      << xml;
}

}  // namespace
}  // namespace casebook
