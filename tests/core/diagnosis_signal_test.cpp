// Signals and wait statuses of real child processes: a child that exits with
// 3, one that raises SIGSEGV, one that aborts, one killed by SIGKILL, one that
// runs out of CPU time, one that dumps core.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>

#include "casebook/diagnosis.h"

namespace casebook {
namespace {

void set_core_limit(rlim_t limit) {
  rlimit core{};
  getrlimit(RLIMIT_CORE, &core);
  core.rlim_cur = std::min(limit, core.rlim_max);
  setrlimit(RLIMIT_CORE, &core);
}

// Forks, runs `child` in the child (which must not return), waits, and
// returns the wait status.
int wait_status_of(const std::function<void()>& child) {
  const pid_t pid = fork();
  if (pid == 0) {
    child();
    _exit(99);  // the child body should not get here
  }
  EXPECT_GT(pid, 0);
  int status = 0;
  EXPECT_EQ(waitpid(pid, &status, 0), pid);
  return status;
}

TEST(WaitStatus, ExitStatusOfARealChild) {
  const int status = wait_status_of([] { _exit(3); });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(describe_wait_status(status), "exited with status 3");
}

TEST(WaitStatus, SegmentationFaultOfARealChild) {
  const int status = wait_status_of([] {
    set_core_limit(0);
    raise(SIGSEGV);
  });
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(describe_wait_status(status),
            "terminated by signal 11 (SIGSEGV, segmentation fault)");
  EXPECT_EQ(classify_signal(WTERMSIG(status)), Family::kCrash);
}

TEST(WaitStatus, AbortOfARealChild) {
  const int status = wait_status_of([] {
    set_core_limit(0);
    std::abort();
  });
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(describe_wait_status(status), "terminated by signal " +
                                              std::to_string(SIGABRT) +
                                              " (SIGABRT, aborted)");
  EXPECT_EQ(classify_signal(WTERMSIG(status)), Family::kCrash);
}

TEST(WaitStatus, SigkillMentionsTheOutOfMemoryKiller) {
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t pid = fork();
  if (pid == 0) {
    close(ready[0]);
    const char byte = 1;
    (void)!write(ready[1], &byte, 1);
    for (;;) pause();
  }
  close(ready[1]);
  char byte = 0;
  ASSERT_EQ(read(ready[0], &byte, 1), 1);
  close(ready[0]);
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status));
  const std::string text = describe_wait_status(status);
  EXPECT_EQ(text.rfind("terminated by signal 9 (SIGKILL", 0), 0u) << text;
  EXPECT_NE(text.find("out-of-memory killer"), std::string::npos) << text;
  EXPECT_EQ(classify_signal(WTERMSIG(status)), Family::kCrash);
}

TEST(WaitStatus, CpuTimeLimitIsATimeout) {
  const int status = wait_status_of([] {
    set_core_limit(0);
    rlimit cpu{1, 2};  // SIGXCPU after one second of CPU time
    setrlimit(RLIMIT_CPU, &cpu);
    volatile unsigned long spin = 0;
    for (;;) spin = spin + 1;
  });
  ASSERT_TRUE(WIFSIGNALED(status));
  ASSERT_EQ(WTERMSIG(status), SIGXCPU);
  EXPECT_EQ(classify_signal(SIGXCPU), Family::kTimeout);
  EXPECT_NE(describe_wait_status(status).find("CPU time limit exceeded"),
            std::string::npos);
}

// Whether a core is written depends on the machine (core_pattern, limits);
// the text must say "core dumped" exactly when the status says so.
TEST(WaitStatus, CoreDumpIsReportedExactlyWhenItHappened) {
  const std::filesystem::path folder =
      std::filesystem::temp_directory_path() /
      ("casebook_core_" + std::to_string(getpid()));
  std::filesystem::create_directories(folder);
  const int status = wait_status_of([&] {
    set_core_limit(RLIM_INFINITY);
    if (chdir(folder.c_str()) != 0) _exit(98);
    raise(SIGSEGV);
  });
  std::filesystem::remove_all(folder);
  ASSERT_TRUE(WIFSIGNALED(status));
  const std::string text = describe_wait_status(status);
  const bool says_core = text.find(", core dumped") != std::string::npos;
  EXPECT_EQ(says_core, WCOREDUMP(status) != 0) << text;
}

TEST(Signals, DescriptionsNameTheSignal) {
  EXPECT_EQ(describe_signal(SIGBUS), "SIGBUS, bus error");
  EXPECT_EQ(describe_signal(SIGFPE), "SIGFPE, arithmetic exception");
  EXPECT_FALSE(describe_signal(SIGUSR1).empty());
  EXPECT_EQ(classify_signal(SIGBUS), Family::kCrash);
}

}  // namespace
}  // namespace casebook
