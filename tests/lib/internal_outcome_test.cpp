// INTERNAL (issue 25): a broken invariant of casebook itself is an outcome of
// its own, never the case's FAIL or ERROR, never judged against what the case
// expects, and every printer says it is casebook's fault.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "casebook/internal_error.h"
#include "casebook/op_catalog.h"
#include "casebook/runner.h"
#include "child/child_protocol.h"
#include "run_command.h"
#include "runner/judge.h"
#include "runner/junit.h"
#include "runner/verdict_table.h"
#include "test_ops.h"

namespace casebook {
namespace {

namespace fs = std::filesystem;
using testing_support::read_text;
using testing_support::TempFolder;

// Everything casebook ships and the test ops, plus an op whose run breaks
// one of casebook's invariants, as a child finds it.
const OpRegistry& registry_with_internal_error() {
  static const OpRegistry registry = [] {
    OpRegistry r;
    register_all(r);
    testing_support::register_test_ops(r);
    OpDef def;
    def.name = "testing.internal_error";
    def.inputs = {"input"};
    def.placement = OpDef::Placement::kHost;
    def.run = [](const OpCall&) -> std::vector<at::Tensor> {
      throw InternalError("a test broke an invariant on purpose");
    };
    def.file = __FILE__;
    def.line = __LINE__;
    r.add(std::move(def));
    return r;
  }();
  return registry;
}

std::string case_text(const std::string& expect) {
  return "casebook: 1\nsummary: casebook breaks while running it\n"
         "op: testing.internal_error\nbackends: [cpu]\ninputs:\n"
         "  input: {dtype: float32, values: [1, 2, 3]}\n" +
         expect;
}

RunSummary run_internal_cases(const fs::path& folder) {
  testing_support::use_single_thread();
  std::ofstream(folder / "plain.yaml") << case_text("");
  std::ofstream(folder / "expects_error.yaml")
      << case_text("expect:\n  cpu: {error: contract}\n");
  std::ofstream(folder / "expects_xfail.yaml")
      << case_text("expect:\n  cpu: {xfail: a known bug}\n");
  RunOptions options;
  options.backends = {Backend::kCpu};
  options.jobs = 1;
  options.registry = &registry_with_internal_error();
  return run_cases({folder}, options);
}

TEST(InternalOutcome, IsItsOwnVerdictWhateverTheCaseExpects) {
  TempFolder folder;
  const RunSummary summary = run_internal_cases(folder.path());
  ASSERT_EQ(summary.verdicts.size(), 3u);
  for (const CaseVerdict& verdict : summary.verdicts) {
    SCOPED_TRACE(verdict.case_id);
    EXPECT_EQ(verdict.verdict, Verdict::kInternal)
        << verdict_name(verdict.verdict) << ": " << verdict.message;
    EXPECT_EQ(verdict.family, Family::kNone);
    EXPECT_EQ(verdict.message,
              "internal error: a test broke an invariant on purpose");
    EXPECT_EQ(verdict.details, kInternalErrorNote);
    EXPECT_TRUE(verdict.first_error.empty()) << verdict.first_error;
  }
  EXPECT_FALSE(verdict_is_success(Verdict::kInternal));
  EXPECT_EQ(summary.exit_code(), 1);
}

TEST(InternalOutcome, EveryPrinterSaysItIsCasebooksFault) {
  TempFolder folder;
  const fs::path cases = folder.path() / "cases";
  fs::create_directories(cases);
  const RunSummary summary = run_internal_cases(cases);

  std::ostringstream table;
  print_verdict_table(table, summary, TableStyle{});
  const std::string printed = table.str();
  EXPECT_NE(printed.find("expects_error  INTERNAL"), std::string::npos)
      << printed;
  EXPECT_NE(printed.find("INTERNAL  expects_error  cpu\n      rerun: "),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("      " + std::string(kInternalErrorNote)),
            std::string::npos)
      << printed;
  EXPECT_EQ(counts_line(summary), "3 INTERNAL (3 runs)");
  // The fault is said without details too.
  TableStyle terse;
  terse.details = false;
  std::ostringstream short_table;
  print_verdict_table(short_table, summary, terse);
  EXPECT_NE(short_table.str().find(std::string(kInternalErrorNote)),
            std::string::npos)
      << short_table.str();

  const fs::path junit = folder.path() / "junit.xml";
  write_junit(junit, summary, Environment{});
  const std::string xml = read_text(junit);
  EXPECT_NE(xml.find("<error type=\"internal\" message=\"INTERNAL: internal "
                     "error: a test broke an invariant on purpose\">rerun: "),
            std::string::npos)
      << xml;
  EXPECT_EQ(xml.find("<failure"), std::string::npos) << xml;
  EXPECT_NE(xml.find("errors=\"3\""), std::string::npos) << xml;

  const fs::path markdown = folder.path() / "summary.md";
  write_markdown_summary(markdown, summary, "");
  const std::string summary_text = read_text(markdown);
  EXPECT_NE(summary_text.find("3 INTERNAL (3 runs)"), std::string::npos)
      << summary_text;
  EXPECT_NE(summary_text.find("please report it to casebook"),
            std::string::npos)
      << summary_text;
}

// The judge alone: a child's internal report is INTERNAL before the
// expectation is looked at, never XFAIL (nor PASS for an expected error).
class InternalJudge : public ::testing::Test {
 protected:
  PlannedCase planned_with(const std::string& expect) {
    std::ofstream(folder_.path() / "judged.yaml")
        << "casebook: 1\nsummary: judged\nop: torch.sum\ninputs:\n"
           "  input: {dtype: float32, values: [1, 2]}\n"
        << expect;
    PlannedCase planned;
    planned.loaded = load_case_file(folder_.path() / "judged.yaml");
    return planned;
  }
  static JobResult internal_run() {
    JobResult job;
    job.finished = true;
    job.report.status = ChildReport::Status::kError;
    job.report.internal = true;
    job.report.family = Family::kContract;  // never shown
    job.report.message = "internal error: broken on purpose";
    return job;
  }
  TempFolder folder_;
};

TEST_F(InternalJudge, AnInternalReportIsNeverXfailNorAnExpectedError) {
  for (const std::string expect :
       {"expect:\n  cpu: {xfail: a known bug}\n",
        "expect:\n  cpu: {xfail: a known bug, family: contract}\n",
        "expect:\n  cpu: {error: contract}\n", ""}) {
    SCOPED_TRACE(expect);
    const PlannedCase planned = planned_with(expect);
    ASSERT_TRUE(planned.loaded.ok());
    const JobResult run = internal_run();
    const CaseVerdict verdict =
        judge(JudgeInputs{planned, Backend::kCpu, &run, &run,
                          pair_as_loaded(planned, Backend::kCpu)});
    EXPECT_EQ(verdict.verdict, Verdict::kInternal)
        << verdict_name(verdict.verdict) << ": " << verdict.message;
    EXPECT_EQ(verdict.family, Family::kNone);
    EXPECT_EQ(verdict.message, "internal error: broken on purpose");
  }
}

// casebook broke while reading the file (the loader found an exception where
// every problem is an error at its line): the case is INTERNAL, never the
// user's invalid_case.
TEST_F(InternalJudge, ACaseCasebookFailedToReadIsInternalNotInvalid) {
  PlannedCase planned;
  planned.loaded.file = folder_.path() / "unread.yaml";
  planned.loaded.id = "unread";
  CaseError internal{SourceLocation{planned.loaded.file, 0, 0}, "",
                     "internal error while reading the case: broken on "
                     "purpose; please report"};
  internal.internal = true;
  planned.loaded.errors.push_back(internal);
  const CaseVerdict verdict =
      judge(JudgeInputs{planned, Backend::kCpu, nullptr, nullptr,
                        pair_as_loaded(planned, Backend::kCpu)});
  EXPECT_EQ(verdict.verdict, Verdict::kInternal)
      << verdict_name(verdict.verdict) << ": " << verdict.message;
  EXPECT_EQ(verdict.family, Family::kNone);
  EXPECT_EQ(verdict.message, internal.message);
  EXPECT_EQ(verdict.details, kInternalErrorNote);
}

// An output file the child wrote that the runner cannot map back: casebook's
// fault (INTERNAL), not the case's crash.
TEST(InternalOutcome, OutputsTheRunnerCannotReadAreCasebooksFault) {
  TempFolder folder;
  std::ofstream(folder.path() / "short.bin") << "ab";
  for (const std::string name : {"missing.bin", "short.bin"}) {
    SCOPED_TRACE(name);
    ChildReport report;
    report.status = ChildReport::Status::kOutputs;
    report.outputs = {
        TensorFile{(folder.path() / name).string(), "float32", {3}, ""}};
    const std::vector<at::Tensor> outputs = read_report_outputs(&report);
    EXPECT_TRUE(outputs.empty());
    EXPECT_TRUE(report.outputs.empty());
    EXPECT_TRUE(report.internal);
    EXPECT_EQ(report.status, ChildReport::Status::kError);
    EXPECT_EQ(report.family, Family::kNone);
    EXPECT_EQ(report.message.rfind("internal error: outputs unreadable: ", 0),
              0u)
        << report.message;
  }
}

TEST_F(InternalJudge, AnInvariantTheJudgeFindsBrokenIsInternal) {
  // A GPU run to compare with no reference run planned: the planner's
  // promise broken, not the case's fault (a FAIL before).
  const PlannedCase planned = planned_with("");
  ASSERT_TRUE(planned.loaded.ok());
  JobResult run;
  run.finished = true;
  run.report.status = ChildReport::Status::kOutputs;
  const CaseVerdict verdict =
      judge(JudgeInputs{planned, Backend::kCuda, &run, nullptr,
                        pair_as_loaded(planned, Backend::kCuda)});
  EXPECT_EQ(verdict.verdict, Verdict::kInternal)
      << verdict_name(verdict.verdict) << ": " << verdict.message;
  EXPECT_EQ(verdict.message,
            "internal error: no reference run was planned for `judged` on "
            "cuda");
  EXPECT_EQ(verdict.case_id, "judged");
  EXPECT_FALSE(verdict.rerun_command.empty());
}

}  // namespace
}  // namespace casebook
