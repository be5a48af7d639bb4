// Issue 23: `casebook --help` and each command's help say what the program
// does: where an absent backend's reason is printed, a table (not a line per
// case and backend), `ops` listing every op, what a `.pt` may hold, what
// `--expect-failure` counts as not reproducing.
#include <gtest/gtest.h>

#include "run_command.h"

namespace casebook {
namespace {

using testing_support::run_casebook;

// CLI11 wraps help text at its own width: words are compared with every run
// of spaces and line breaks made one space.
std::string help_of(const std::string& command) {
  const auto help = run_casebook(command + " --help");
  EXPECT_EQ(help.status, 0) << help.output;
  std::string flat;
  for (char c : help.output) {
    const bool space = c == ' ' || c == '\n';
    if (space && (flat.empty() || flat.back() == ' ')) continue;
    flat += space ? ' ' : c;
  }
  return flat;
}

void expect_says(const std::string& help, const std::string& words) {
  EXPECT_NE(help.find(words), std::string::npos)
      << "missing: " << words << "\nin: " << help;
}

TEST(FirstUseHelp, RunSaysItPrintsATableAndWhereAnAbsentBackendIsSaid) {
  const std::string run = help_of("run");
  expect_says(run, "an absent backend's reason there, once");
  expect_says(run, "a table with a row per case and a column per backend");
  expect_says(run, "not a line per case and backend: --verbose adds those");
  EXPECT_EQ(run.find("print a line per case and backend"), std::string::npos)
      << run;
  expect_says(help_of(""),
              "a table with a row per case and a column per "
              "backend that ran");
}

// The exit status is said from the verdict rows (casebook/verdict_list.h):
// INTERNAL, missing from the hand-written sentence, exits 1 too.
TEST(FirstUseHelp, TheExitStatusNamesEveryVerdictByItsRow) {
  const std::string help = help_of("");
  expect_says(help,
              "Exit status: 0 when every verdict is PASS, XFAIL or SKIP;");
  expect_says(help,
              "1 when any is FAIL, XPASS, ERROR, TIMEOUT, NOT RUN or "
              "INTERNAL; 2 for a usage");
}

TEST(FirstUseHelp, OpsSaysItListsEveryOpWithoutAGlob) {
  expect_says(help_of("ops"), "without GLOB every one of them");
}

TEST(FirstUseHelp, CaptureSaysWhatAPtMayHoldAndWhenItDoesNotReproduce) {
  const std::string capture = help_of("capture");
  expect_says(capture, "torch.save writes since PyTorch 1.6");
  expect_says(capture, "a tensor, or a dict, list or tuple of them");
  expect_says(capture, "at most 2^30 elements and 4 GiB");
  expect_says(capture, "every verdict PASS, or the case invalid");
}

}  // namespace
}  // namespace casebook
