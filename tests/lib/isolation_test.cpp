// Each run happens in a process of its own: a child that segfaults, aborts,
// throws or hangs gets the verdict of that run alone, and the others pass.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "casebook/runner.h"
#include "process_state.h"
#include "run_command.h"
#include "test_ops.h"

namespace casebook {
namespace {

namespace fs = std::filesystem;
using testing_support::registry_with_test_ops;

const CaseVerdict& find(const RunSummary& summary, const std::string& id) {
  for (const CaseVerdict& verdict : summary.verdicts) {
    if (verdict.case_id == id) return verdict;
  }
  throw std::runtime_error("no verdict for " + id);
}

RunSummary run_isolation_cases(int jobs, Isolation isolation,
                               bool fork_server = true) {
  testing_support::use_single_thread();
  RunOptions options;
  options.cpu_fork_server = fork_server;
  options.backends = {Backend::kCpu};
  options.jobs = jobs;
  options.isolation = isolation;
  options.registry = &registry_with_test_ops();
  return run_cases({fs::path(CASEBOOK_TEST_DATA) / "isolation"}, options);
}

// With the fork server (the default) and with the runner forking each child
// itself: the same verdicts, one process per run either way.
TEST(Isolation, EachMisbehavingChildGetsItsOwnVerdictAndTheOthersPass) {
  for (bool fork_server : {true, false}) {
    for (int jobs : {1, 2}) {
      SCOPED_TRACE("jobs " + std::to_string(jobs) +
                   (fork_server ? ", fork server" : ", runner forks"));
      RunSummary summary =
          run_isolation_cases(jobs, Isolation::kPooled, fork_server);
      ASSERT_EQ(summary.verdicts.size(), 6u);

      const CaseVerdict& segfault = find(summary, "segfault");
      EXPECT_EQ(segfault.verdict, Verdict::kFail);
      EXPECT_EQ(segfault.family, Family::kCrash);
      EXPECT_NE(segfault.message.find("terminated by signal 11"),
                std::string::npos)
          << segfault.message;

      const CaseVerdict& aborted = find(summary, "abort");
      EXPECT_EQ(aborted.verdict, Verdict::kFail);
      EXPECT_EQ(aborted.family, Family::kCrash);
      EXPECT_NE(aborted.message.find("signal 6"), std::string::npos)
          << aborted.message;

      const CaseVerdict& thrown = find(summary, "throw");
      EXPECT_EQ(thrown.verdict, Verdict::kFail);
      EXPECT_EQ(thrown.family, Family::kContract);
      EXPECT_EQ(thrown.message, "shape [3] is not what this op takes");

      const CaseVerdict& hung = find(summary, "hang");
      EXPECT_EQ(hung.verdict, Verdict::kTimeout);
      EXPECT_EQ(hung.family, Family::kTimeout);
      EXPECT_GE(hung.seconds, 0.5);
      EXPECT_LT(hung.seconds, 5.0);

      EXPECT_EQ(find(summary, "identity").verdict, Verdict::kPass);
      EXPECT_EQ(find(summary, "identity_after").verdict, Verdict::kPass);
      EXPECT_EQ(summary.exit_code(), 1);
    }
  }
}

TEST(Isolation, StrictModeGivesTheSameVerdicts) {
  RunSummary summary = run_isolation_cases(2, Isolation::kStrict);
  EXPECT_EQ(find(summary, "segfault").family, Family::kCrash);
  EXPECT_EQ(find(summary, "hang").verdict, Verdict::kTimeout);
  EXPECT_EQ(find(summary, "identity_after").verdict, Verdict::kPass);
}

TEST(Isolation, ATimeoutKillsTheWholeProcessGroupGrandchildrenToo) {
  testing_support::use_single_thread();
  // Removed however the test ends (an ASSERT returns early).
  const testing_support::TempFolder folder;
  const fs::path& dir = folder.path();
  fs::path pid_file = dir / "grandchild.pid";
  std::ofstream(dir / "hang_with_grandchild.yaml")
      << "casebook: 1\nsummary: a child that forks and hangs\n"
      << "op: testing.hang_with_grandchild\nbackends: [cpu]\ntimeout: 1\n"
      << "args: {pid_file: \"" << pid_file.string() << "\"}\n"
      << "inputs:\n  input: {dtype: float32, values: [1]}\n";
  RunOptions options;
  options.backends = {Backend::kCpu};
  options.registry = &registry_with_test_ops();
  RunSummary summary = run_cases({dir}, options);
  ASSERT_EQ(summary.verdicts.size(), 1u);
  EXPECT_EQ(summary.verdicts[0].verdict, Verdict::kTimeout);
  pid_t grandchild = 0;
  std::ifstream(pid_file) >> grandchild;
  ASSERT_GT(grandchild, 0);
  // SIGKILL is delivered at once, but give the kernel a moment to tear down.
  for (int i = 0; i < 50 && testing_support::process_running(grandchild); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_FALSE(testing_support::process_running(grandchild))
      << "grandchild " << grandchild;
}

}  // namespace
}  // namespace casebook
