// gtest mode places each test, not only its failure, at the line of the case
// file that decides its verdict: gtest's XML (--gtest_output=xml), which CI
// annotations and IDEs read, gives that file:line rather than line 1.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include "run_command.h"

namespace casebook {
namespace {

using testing_support::read_text;
using testing_support::run_casebook;
using testing_support::TempFolder;

TEST(GtestModeLines, EachTestIsRegisteredAtItsDecidingLine) {
  TempFolder folder;
  const std::string xml = (folder.path() / "cases.xml").string();
  const auto run = run_casebook(
      "test tests/data/e2e --backend cpu --evidence '' --gtest_output=xml:'" +
      xml + "'");
  EXPECT_EQ(run.status, 1) << run.output;
  const std::string text = read_text(xml);
  // The expectation, the op, the file's first error (as the failures are
  // placed: end_to_end_test.cpp), and a passing case's op.
  for (const char* where :
       {"wrong_family\\.yaml\" line=\"9\"", "unknown_op\\.yaml\" line=\"3\"",
        "bad_dtype\\.yaml\" line=\"5\"", "too_slow\\.yaml\" line=\"3\"",
        "valid_labels\\.yaml\" line=\"3\""}) {
    EXPECT_TRUE(std::regex_search(
        text, std::regex(std::string("<testcase name=\"cpu\" "
                                     "file=\"tests/data/e2e/") +
                         where)))
        << where << "\n"
        << text;
  }
}

}  // namespace
}  // namespace casebook
