// The casebook executable end to end: a folder of good and bad cases gives
// every verdict, the exit status, the JUnit file and the gtest mode; an
// interrupted run leaves no process behind.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "run_command.h"

namespace {

namespace fs = std::filesystem;

using casebook::testing_support::has_line;
using casebook::testing_support::read_text;
using casebook::testing_support::run_casebook;
using EndToEndResult = casebook::testing_support::CommandResult;

const char* kE2e = "tests/data/e2e";

TEST(EndToEnd, EveryVerdictOfAFolderOfGoodAndBadCases) {
  const fs::path junit = fs::temp_directory_path() /
                         ("casebook-e2e-" + std::to_string(getpid()) + ".xml");
  const fs::path evidence = fs::temp_directory_path() /
                            ("casebook-evidence-" + std::to_string(getpid()));
  EndToEndResult run = run_casebook(
      "run --verbose " + std::string(kE2e) + " --backend cpu -j 2 --junit " +
      junit.string() + " --evidence " + evidence.string());
  EXPECT_EQ(run.status, 1) << run.output;
  const std::string& out = run.output;
  // Ids are the paths under the folder the run names (tests/data/e2e).
  const std::string id = "";
  EXPECT_TRUE(has_line(out, "^PASS +" + id + "valid_labels +cpu$")) << out;
  EXPECT_TRUE(has_line(out, "^PASS +" + id + "label_out_of_range +cpu$"))
      << out;
  EXPECT_TRUE(
      has_line(out, "^FAIL +" + id +
                        "wrong_family +cpu +index_out_of_range: expected "
                        "device_assert, got index_out_of_range: Target 4 "
                        "is out of bounds\\."))
      << out;
  EXPECT_TRUE(has_line(out, "^FAIL +" + id +
                                "error_expected_got_outputs +cpu +expected "
                                "index_out_of_range, got outputs: float32 "
                                "\\[\\]: 1\\.38629$"))
      << out;
  EXPECT_TRUE(has_line(out, "^FAIL +" + id +
                                "mismatch_vs_cpu64 +cpu +mismatch: mismatched "
                                "elements: [0-9]+ / 256"))
      << out;
  EXPECT_TRUE(has_line(out, "greatest absolute difference: .* at index \\["))
      << out;
  EXPECT_TRUE(
      fs::exists(evidence / "mismatch_vs_cpu64.cpu" / "worst_elements.txt"))
      << out;
  fs::remove_all(evidence);
  EXPECT_TRUE(has_line(out, "^XFAIL +" + id +
                                "known_bug +cpu +index_out_of_range: "
                                "labels of one source are numbered 1\\.\\.4"))
      << out;
  EXPECT_TRUE(
      has_line(out, "^XPASS +" + id + "fixed_bug +cpu +expected to fail"))
      << out;
  EXPECT_TRUE(has_line(out, "^SKIP +" + id + "skipped +cpu +not relevant"))
      << out;
  EXPECT_TRUE(
      has_line(out, "^ERROR +" + id +
                        "bad_dtype +cpu +invalid_case: tests/data/e2e/"
                        "bad_dtype\\.yaml:5:18: `inputs\\.input\\.dtype`: "
                        "expected one of bool, .*; got `float`"))
      << out;
  EXPECT_TRUE(has_line(out, "^ERROR +" + id +
                                "unknown_op +cpu +invalid_case: .*unknown op "
                                "`torch\\.cross_entropi`: LibTorch .* has no "
                                "operator `aten::cross_entropi`; nearest "
                                "known: torch\\.cross_entropy"))
      << out;
  EXPECT_TRUE(has_line(out, "^TIMEOUT +" + id + "too_slow +cpu +timeout: "))
      << out;
  EXPECT_TRUE(has_line(out,
                       "rerun: \\S*casebook run tests/data/e2e/too_slow\\.yaml "
                       "--backend cpu"))
      << out;
  EXPECT_TRUE(has_line(out,
                       "^2 PASS, 3 FAIL, 1 XFAIL, 1 XPASS, 1 SKIP, 2 ERROR, "
                       "1 TIMEOUT \\(11 runs\\)$"))
      << out;

  std::ifstream file(junit);
  std::string xml((std::istreambuf_iterator<char>(file)), {});
  EXPECT_NE(xml.find("<testsuite name=\"casebook\" tests=\"11\" failures=\"5\" "
                     "errors=\"2\" skipped=\"1\" time="),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("classname=\"wrong_family\" name=\"cpu\""),
            std::string::npos);
  EXPECT_NE(xml.find("<failure type=\"FAIL index_out_of_range\""),
            std::string::npos);
  EXPECT_NE(xml.find("<property name=\"libtorch\""), std::string::npos);
  fs::remove(junit);
}

TEST(EndToEnd, GoodCasesAloneExitZeroAndFilterSelects) {
  EndToEndResult run = run_casebook("run --verbose " + std::string(kE2e) +
                                    " --backend cpu --filter '*label*'");
  EXPECT_EQ(run.status, 0) << run.output;
  EXPECT_TRUE(has_line(run.output, "^2 PASS \\(2 runs\\)$")) << run.output;
}

TEST(EndToEnd, UsageErrorsExitTwo) {
  EXPECT_EQ(run_casebook("run no/such/folder").status, 2);
  EXPECT_EQ(run_casebook("run tests/data/e2e --backend gpu").status, 2);
  EXPECT_EQ(run_casebook("frobnicate").status, 2);
  EndToEndResult help = run_casebook("run --help");
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.output.find("--junit"), std::string::npos);
}

TEST(EndToEnd, ListShowsCasesAndBackendsWithoutRunning) {
  EndToEndResult list =
      run_casebook("list " + std::string(kE2e) + "/valid_labels.yaml");
  EXPECT_EQ(list.status, 0) << list.output;
  EXPECT_EQ(list.output,
            "valid_labels  cpu,cuda,hip  valid labels match the "
            "CPU reference (PASS)\n");
}

TEST(EndToEnd, GtestModeRegistersOneTestPerCaseAndBackend) {
  EndToEndResult run = run_casebook("test " + std::string(kE2e) +
                                    " --backend cpu --evidence ''");
  EXPECT_EQ(run.status, 1) << run.output;
  EXPECT_TRUE(has_line(run.output, "^\\[       OK \\] valid_labels\\.cpu"))
      << run.output;
  EXPECT_TRUE(has_line(run.output, "^\\[  FAILED  \\] wrong_family\\.cpu"))
      << run.output;
  EXPECT_TRUE(has_line(run.output, "^\\[  SKIPPED \\] skipped\\.cpu"))
      << run.output;
  EXPECT_TRUE(has_line(
      run.output, "rerun: \\S*casebook run tests/data/e2e/wrong_family\\.yaml"))
      << run.output;
  // Each failure at the line that decided it: the expectation, the op, the
  // file's first error (an IDE's or CI's annotation points there).
  for (const char* where : {"wrong_family\\.yaml:9", "unknown_op\\.yaml:3",
                            "bad_dtype\\.yaml:5", "too_slow\\.yaml:3"}) {
    EXPECT_TRUE(has_line(
        run.output, std::string("^tests/data/e2e/") + where + ": Failure$"))
        << where << "\n"
        << run.output;
  }
  EndToEndResult one =
      run_casebook("test " + std::string(kE2e) +
                   " --backend cpu --gtest_filter='*valid_labels*'");
  EXPECT_EQ(one.status, 0) << one.output;
  EXPECT_TRUE(has_line(one.output, "^\\[  PASSED  \\] 1 test\\."))
      << one.output;
}

// A file that does not load is one ERROR, not one per backend asked for:
// one row, one JUnit entry; the absent backends are still said.
TEST(EndToEnd, AnInvalidFileIsOneErrorWhateverTheBackends) {
  const fs::path junit = fs::temp_directory_path() /
                         ("casebook-one-error-" + std::to_string(getpid()));
  EndToEndResult run = run_casebook(
      "run tests/data/e2e/bad_dtype.yaml "
      "tests/data/e2e/unknown_op.yaml --backend "
      "cpu,cuda,hip --evidence '' --junit " +
      junit.string());
  EXPECT_EQ(run.status, 1) << run.output;
  EXPECT_TRUE(has_line(run.output, "^2 ERROR \\(2 runs\\)$")) << run.output;
  const std::string xml = read_text(junit);
  fs::remove(junit);
  EXPECT_NE(xml.find("tests=\"2\" failures=\"0\" errors=\"2\""),
            std::string::npos)
      << xml;
}

// Processes of the session a pid leads (children move to process groups of
// their own but stay in the runner's session).
std::vector<pid_t> session_members(pid_t session) {
  std::vector<pid_t> members;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string text((std::istreambuf_iterator<char>(stat)), {});
    auto close = text.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(text.substr(close + 2));
    std::string state;
    long ppid, pgrp, sid;
    fields >> state >> ppid >> pgrp >> sid;
    if (sid == session && state != "Z") members.push_back(std::stoi(name));
  }
  return members;
}

TEST(EndToEnd, InterruptedRunStopsChildrenAndMarksTheRestNotRun) {
  // Removed however the test ends (an ASSERT returns early).
  const casebook::testing_support::TempFolder folder;
  const fs::path& dir = folder.path();
  for (int i = 0; i < 4; ++i) {
    std::ofstream(dir / ("slow" + std::to_string(i) + ".yaml"))
        << "casebook: 1\nsummary: a long matmul\nop: torch.matmul\n"
        << "backends: [cpu]\ninputs:\n"
        << "  input: {shape: [3000, 3000], dtype: float64, fill: {full: 1}}\n"
        << "  other: {shape: [3000, 3000], dtype: float64, fill: {full: 1}}\n";
  }
  const fs::path junit = dir / "junit.xml";
  int out[2];
  ASSERT_EQ(pipe(out), 0);
  pid_t runner = fork();
  if (runner == 0) {
    setsid();  // a session of its own, to find every descendant by it
    dup2(out[1], 1);
    dup2(out[1], 2);
    execl(CASEBOOK_EXECUTABLE, CASEBOOK_EXECUTABLE, "run", dir.c_str(), "-j",
          "2", "--junit", junit.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  // Wait until the runner has children (a busy machine starts it slowly).
  for (int i = 0; i < 300 && session_members(runner).size() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_GE(session_members(runner).size(), 2u) << "children should be running";
  kill(runner, SIGINT);
  std::string output;
  char chunk[4096];
  ssize_t n;
  while ((n = read(out[0], chunk, sizeof chunk)) > 0) output.append(chunk, n);
  close(out[0]);
  int status = 0;
  waitpid(runner, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << output;
  EXPECT_TRUE(has_line(
      output, "^NOT RUN +slow0 +cpu +not run: interrupted by signal 2"))
      << output;
  EXPECT_TRUE(has_line(output, "4 NOT RUN \\(4 runs, interrupted\\)"))
      << output;
  std::ifstream file(junit);
  std::string xml((std::istreambuf_iterator<char>(file)), {});
  // NOT RUN is an error in JUnit, never a skip.
  EXPECT_NE(xml.find("errors=\"4\" skipped=\"0\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("not run: interrupted"), std::string::npos) << xml;
  EXPECT_TRUE(session_members(runner).empty()) << "a process outlived the run";
}

}  // namespace
