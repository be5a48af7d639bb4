// Verdicts that say what ran: host ops reported once, NOT RUN an error in
// JUnit, and a complete rerun line printed first in a failure block.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "run_command.h"
#include "runner/junit.h"
#include "runner/output.h"
#include "runner/rerun.h"
#include "runner/session.h"

namespace casebook {
namespace {

namespace fs = std::filesystem;

TEST(VerdictOutput, HostOpsAreReportedOnceAsCpu) {
  RunOptions options;
  options.backends = {Backend::kCpu, Backend::kCuda, Backend::kHip};
  Plan plan = load_plan({fs::path(CASEBOOK_SOURCE_DIR) / "cases" / "validate"},
                        options);
  ASSERT_FALSE(plan.cases.empty());
  for (const PlannedCase& planned : plan.cases) {
    EXPECT_EQ(planned.reported, std::vector<Backend>{Backend::kCpu})
        << planned.loaded.id;
  }
  // Without cpu in the run: none (a cuda lane does not pass on them).
  options.backends = {Backend::kCuda};
  Plan cuda_only = load_plan(
      {fs::path(CASEBOOK_SOURCE_DIR) / "cases" / "validate"}, options);
  for (const PlannedCase& planned : cuda_only.cases) {
    EXPECT_TRUE(planned.reported.empty()) << planned.loaded.id;
  }
  options.backends = {Backend::kCpu, Backend::kCuda, Backend::kHip};
  // A torch.* case still gets a verdict per backend.
  Plan torch = load_plan(
      {fs::path(CASEBOOK_SOURCE_DIR) / "cases" / "torch" / "nll_loss.yaml"},
      options);
  ASSERT_EQ(torch.cases.size(), 1u);
  EXPECT_GT(torch.cases[0].reported.size(), 1u);
}

TEST(VerdictOutput, NotRunIsAnErrorInJunit) {
  RunSummary summary;
  CaseVerdict not_run;
  not_run.case_id = "a/b";
  not_run.verdict = Verdict::kNotRun;
  not_run.message = "not run: interrupted by signal 2";
  not_run.rerun_command = "casebook run cases/a/b.yaml --backend cpu";
  CaseVerdict skipped;
  skipped.case_id = "a/c";
  skipped.verdict = Verdict::kSkip;
  skipped.backend = Backend::kCuda;
  skipped.message = "no CUDA device";
  summary.verdicts = {not_run, skipped};
  const fs::path file = fs::temp_directory_path() / "verdict_output_test.xml";
  write_junit(file, summary, {});
  const std::string xml = testing_support::read_text(file);
  fs::remove(file);
  EXPECT_NE(xml.find("errors=\"1\" skipped=\"1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<error type=\"NOT RUN\" message=\"NOT RUN: not run: "
                     "interrupted by signal 2\">rerun: casebook run"),
            std::string::npos)
      << xml;
}

TEST(VerdictOutput, TheRerunLineComesFirstInAFailureBlock) {
  CaseVerdict failed;
  failed.case_id = "a/b";
  failed.verdict = Verdict::kFail;
  failed.family = Family::kMismatch;
  failed.message = "mismatched elements: 1 / 3";
  failed.details = "worst elements...\nfirst check (mismatch): ...";
  failed.consequences = {"later error"};
  failed.rerun_command = "casebook run cases/a/b.yaml --backend cpu";
  std::ostringstream out;
  print_verdict_line(out, failed, true);
  std::istringstream lines(out.str());
  std::string first, second;
  std::getline(lines, first);
  std::getline(lines, second);
  EXPECT_EQ(second, "        rerun: casebook run cases/a/b.yaml --backend cpu");
}

TEST(VerdictOutput, TheRerunLineNamesTheDeviceAndPluginVariablesThatAreSet) {
  PlannedCase planned;
  planned.loaded.file = "cases/my case.yaml";
  RunOptions options;
  options.isolation = Isolation::kStrict;
  options.child_environment = {{"CUDA_LAUNCH_BLOCKING", "1"}};
  setenv("CUDA_VISIBLE_DEVICES", "3", 1);
  setenv("CASEBOOK_KERNEL_PLUGIN_DIR", "/opt/plugins", 1);
  const std::string cuda = rerun_line(planned, Backend::kCuda, options);
  const std::string cpu = rerun_line(planned, Backend::kCpu, RunOptions{});
  unsetenv("CUDA_VISIBLE_DEVICES");
  unsetenv("CASEBOOK_KERNEL_PLUGIN_DIR");
  EXPECT_EQ(cuda,
            "CUDA_LAUNCH_BLOCKING=1 CUDA_VISIBLE_DEVICES=3 "
            "CASEBOOK_KERNEL_PLUGIN_DIR=/opt/plugins casebook run "
            "'cases/my case.yaml' --backend cuda --isolation strict");
  EXPECT_EQ(cpu,
            "casebook run 'cases/my case.yaml' --backend cpu --isolation "
            "pooled");
}

// A file name is hostile: the rerun line stays one printable line that a
// shell reads back as the same bytes, and a name that starts with `-` is not
// taken for an option.
TEST(VerdictOutput, TheRerunLineQuotesAnyFileNameSoThatItStillWorks) {
  PlannedCase planned;
  planned.loaded.file = "cases/evil\nPASS  x\x1b[2J\xff.yaml";
  EXPECT_EQ(rerun_line(planned, Backend::kCpu, RunOptions{}),
            "casebook run $'cases/evil\\x0aPASS  x\\x1b[2J\\xff.yaml' "
            "--backend cpu --isolation pooled");
  planned.loaded.file = "it's.yaml";
  EXPECT_EQ(rerun_line(planned, Backend::kCpu, RunOptions{}),
            "casebook run 'it'\\''s.yaml' --backend cpu --isolation pooled");
  planned.loaded.file = "-x.yaml";
  EXPECT_EQ(rerun_line(planned, Backend::kCpu, RunOptions{}),
            "casebook run ./-x.yaml --backend cpu --isolation pooled");
  // What bash (whose $'...' the line uses) makes of the quoted word is the
  // file name itself, byte for byte.
  planned.loaded.file = "a\tb\\c'd\x01.yaml";
  const std::string line = rerun_line(planned, Backend::kCpu, RunOptions{});
  const size_t start = std::string("casebook run ").size();
  const std::string word = line.substr(start, line.find(" --backend") - start);
  setenv("CASEBOOK_TEST_COMMAND",
         ("printf %s " + word + " | od -An -tx1").c_str(), 1);
  FILE* shell = popen("bash -c \"$CASEBOOK_TEST_COMMAND\"", "r");
  ASSERT_NE(shell, nullptr);
  char buffer[256] = {};
  const size_t got = fread(buffer, 1, sizeof buffer - 1, shell);
  pclose(shell);
  unsetenv("CASEBOOK_TEST_COMMAND");
  std::string seen(buffer, got);
  seen.erase(std::remove_if(seen.begin(), seen.end(), isspace), seen.end());
  EXPECT_EQ(seen, "6109625c632764012e79616d6c") << line;
}

}  // namespace
}  // namespace casebook
