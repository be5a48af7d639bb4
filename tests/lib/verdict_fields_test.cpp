// A verdict's parts as fields (issue 25): the expectation's reason, the
// observed first error, the evidence folder, a poisoned worker and whether
// that was confirmed; the one-line message is composed from them
// (verdict_message), and `casebook report` reads them, not the message.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "casebook/runner.h"
#include "run_command.h"
#include "run_one_case.h"
#include "runner/session.h"
#include "simulated_device.h"

namespace casebook {
namespace {

namespace fs = std::filesystem;
using testing_support::run_one_case;
using testing_support::run_shell;
using testing_support::TempFolder;
using testing_support::verdict_text;

constexpr const char* kKnownBug =
    "casebook: 1\n"
    "summary: a known bug, still failing\n"
    "op: torch.cross_entropy\n"
    "backends: [cpu]\n"
    "inputs:\n"
    "  input:  {shape: [3, 4], dtype: float32, fill: {full: 0.5}}\n"
    "  target: {dtype: int64, values: [0, 2, 4]}\n"
    "expect:\n";

TEST(VerdictFields, AnXfailKeepsTheReasonAndTheFirstErrorApart) {
  const CaseVerdict verdict = run_one_case(
      "known_bug", std::string(kKnownBug) +
                       "  cpu: {xfail: labels are numbered 1..4, family: "
                       "index_out_of_range}\n");
  ASSERT_EQ(verdict.verdict, Verdict::kXfail) << verdict_text(verdict);
  EXPECT_EQ(verdict.expectation_reason, "labels are numbered 1..4");
  EXPECT_EQ(verdict.first_error.rfind("Target 4 is out of bounds", 0), 0u)
      << verdict.first_error;
  EXPECT_EQ(verdict.message,
            "labels are numbered 1..4 (" + verdict.first_error + ")");
  EXPECT_EQ(verdict.message, verdict_message(verdict));
  EXPECT_TRUE(verdict.evidence_dir.empty());
  EXPECT_FALSE(verdict.poisoned_worker);
}

TEST(VerdictFields, AnXpassSaysTheReasonFromItsField) {
  const CaseVerdict verdict = run_one_case(
      "fixed_bug",
      "casebook: 1\nsummary: fixed\nop: torch.cross_entropy\n"
      "backends: [cpu]\ninputs:\n"
      "  input:  {shape: [2, 4], dtype: float32, fill: {full: 0.5}}\n"
      "  target: {dtype: int64, values: [0, 3]}\n"
      "expect:\n  cpu: {xfail: was broken before the fix}\n");
  ASSERT_EQ(verdict.verdict, Verdict::kXpass) << verdict_text(verdict);
  EXPECT_EQ(verdict.expectation_reason, "was broken before the fix");
  EXPECT_TRUE(verdict.first_error.empty()) << verdict.first_error;
  EXPECT_EQ(verdict.message,
            "expected to fail (was broken before the fix) but passed: the bug "
            "is fixed, update the case");
}

TEST(VerdictFields, AFailingMismatchNamesItsEvidenceFolderInAField) {
  testing_support::use_single_thread();
  TempFolder evidence;
  RunOptions options;
  options.backends = {Backend::kCpu};
  options.jobs = 1;
  options.evidence_root = evidence.path();
  const RunSummary summary = run_cases(
      {fs::path(CASEBOOK_TEST_DATA) / "diagnose" / "matmul_vs_cpu64.yaml"},
      options);
  ASSERT_EQ(summary.verdicts.size(), 1u);
  const CaseVerdict& verdict = summary.verdicts.front();
  ASSERT_EQ(verdict.verdict, Verdict::kFail) << verdict_text(verdict);
  const fs::path folder = evidence.path() / "matmul_vs_cpu64.cpu";
  EXPECT_EQ(verdict.evidence_dir, folder.string());
  EXPECT_TRUE(fs::is_directory(folder));
  EXPECT_EQ(verdict.first_error.rfind("mismatched elements: ", 0), 0u)
      << verdict.first_error;
  EXPECT_EQ(verdict.message,
            verdict.explanation + "; evidence: " + folder.string());
}

class VerdictFieldsOnTheSimulatedDevice : public ::testing::Test {
 protected:
  void SetUp() override { simulated_device::install(); }
  void TearDown() override { simulated_device::uninstall(); }
};

// The simulated device stands in for cuda: the async lesson's sticky error
// poisons its worker, and its rerun alone in a fresh process poisons that
// one too.
TEST_F(VerdictFieldsOnTheSimulatedDevice,
       APoisonedWorkerAndItsConfirmationAreFlags) {
  testing_support::use_single_thread();
  RunOptions options;
  options.backends = {Backend::kCuda};
  options.registry = &simulated_device::registry();
  Plan plan = load_plan(
      {fs::path(CASEBOOK_TEST_DATA) / "steps" / "async_lesson.yaml"}, options);
  const std::vector<CaseVerdict> verdicts =
      execute_plan(
          plan, options, [](const PlannedCase&, Backend) { return true; },
          nullptr)
          .summary.verdicts;
  ASSERT_EQ(verdicts.size(), 1u);
  const CaseVerdict& verdict = verdicts.front();
  EXPECT_EQ(verdict.verdict, Verdict::kPass) << verdict_text(verdict);
  EXPECT_TRUE(verdict.poisoned_worker) << verdict_text(verdict);
  EXPECT_TRUE(verdict.poison_confirmed) << verdict_text(verdict);
  EXPECT_NE(verdict.details.find("this run poisoned its worker; rerun alone "
                                 "in a fresh process: confirmed"),
            std::string::npos)
      << verdict.details;
}

// The report's first error of an XFAIL is the run's, whatever the reason
// holds: a reason with a tab is shown escaped in the message, which could
// not be parsed back into its parts.
TEST(VerdictFields, ReportShowsAnXfailsFirstErrorAlone) {
  TempFolder folder;
  const fs::path file = folder.path() / "known_bug.yaml";
  std::ofstream(file) << kKnownBug
                      << "  cpu: {xfail: \"labels\\tnumbered 1..4\"}\n";
  const auto report =
      run_shell("cd '" + folder.path().string() + "' && '" +
                CASEBOOK_EXECUTABLE + "' report known_bug.yaml --backend cpu");
  ASSERT_EQ(report.status, 0) << report.output;
  EXPECT_NE(report.output.find("```text\nTarget 4 is out of bounds"),
            std::string::npos)
      << report.output;
}

}  // namespace
}  // namespace casebook
