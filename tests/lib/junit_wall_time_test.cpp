// Issue 23: JUnit times are wall times. The <testsuite>'s is the run's own
// (from its start to its last result), not the sum of its runs' times: with
// one run at a time (-j 1) it holds each run and everything between them
// (the fork server's start, LibTorch's warm-up, the judging), so it exceeds
// their sum.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "run_command.h"

namespace casebook {
namespace {

using testing_support::read_text;
using testing_support::run_casebook;
using testing_support::TempFolder;

std::vector<double> times_of(const std::string& xml, const std::string& tag) {
  std::vector<double> times;
  const std::regex pattern("<" + tag + " [^>]*time=\"([0-9.]+)\"");
  for (auto it = std::sregex_iterator(xml.begin(), xml.end(), pattern);
       it != std::sregex_iterator(); ++it) {
    times.push_back(std::stod((*it)[1].str()));
  }
  return times;
}

TEST(JunitWallTime, TheSuiteTakesTheRunsWallTimeNotTheSumOfItsRuns) {
  TempFolder folder;
  const std::string file = (folder.path() / "cases.xml").string();
  const auto run = run_casebook(
      "run tests/data/e2e --backend cpu -j 1 "
      "--quiet --evidence '' --junit " +
      file);
  EXPECT_EQ(run.status, 1) << run.output;  // the folder holds failures
  const std::string xml = read_text(file);
  const std::vector<double> suite = times_of(xml, "testsuite");
  const std::vector<double> cases = times_of(xml, "testcase");
  ASSERT_EQ(suite.size(), 1u) << xml;
  ASSERT_EQ(cases.size(), 11u) << xml;
  double sum = 0.0;
  for (double seconds : cases) {
    EXPECT_LE(seconds, suite[0]) << xml;
    sum += seconds;
  }
  // More than the six decimals each time is rounded to could account for.
  EXPECT_GT(suite[0], sum + 0.001) << xml;
}

}  // namespace
}  // namespace casebook
