// A child run to its end with a deadline (process/run_to_end.h), with real
// processes: all of its output comes back, more than a pipe holds; its exit
// status comes back; a child past its deadline is killed with the
// grandchildren in its group, reaped and reported as timed out; a child that
// exits is the end even while a grandchild of its group holds the output; an
// exec'd program is run so too, also from a process with threads.
#include "process/run_to_end.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <future>
#include <string>
#include <thread>

#include "process/subprocess.h"
#include "process_state.h"
#include "run_command.h"

namespace casebook {
namespace {

using testing_support::TempFolder;

bool killed_by_sigkill(int status) {
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

// In a child: forks a grandchild (in the child's process group) that writes
// its pid on `output_fd` and then waits for ever.
void start_hanging_grandchild(int output_fd) {
  const pid_t grandchild = fork();
  if (grandchild == 0) {
    write_all(output_fd, std::to_string(getpid()) + "\n");
    while (true) pause();
  }
}

pid_t first_line_pid(const std::string& output) {
  return static_cast<pid_t>(std::stol(output.substr(0, output.find('\n'))));
}

TEST(RunToEnd, ReturnsAllTheOutputOfAChildThatWritesMoreThanAPipeHolds) {
  const std::string written(1 << 20, 'x');  // 1 MB; a pipe holds 64 kB
  const ChildEnd end = run_child_to_end(
      [&written](int output_fd) {
        return write_all(output_fd, written + "end\n") ? 3 : 1;
      },
      30);
  EXPECT_FALSE(end.timed_out);
  EXPECT_EQ(end.output.size(), written.size() + 4);
  EXPECT_EQ(end.output, written + "end\n");
  ASSERT_TRUE(WIFEXITED(end.wait_status)) << end.wait_status;
  EXPECT_EQ(WEXITSTATUS(end.wait_status), 3);
  EXPECT_GE(end.wall_seconds, 0.0);
}

TEST(RunToEnd, KillsAChildPastItsDeadlineWithItsGrandchildAndReapsIt) {
  const ChildEnd end = run_child_to_end(
      [](int output_fd) {
        start_hanging_grandchild(output_fd);
        while (true) pause();
        return 0;
      },
      0.2);
  EXPECT_TRUE(end.timed_out);
  EXPECT_TRUE(killed_by_sigkill(end.wait_status)) << end.wait_status;
  EXPECT_GE(end.wall_seconds, 0.2);
  EXPECT_LT(end.wall_seconds, 10.0);
  ASSERT_FALSE(end.output.empty()) << "the grandchild said nothing in time";
  EXPECT_TRUE(testing_support::process_ends(first_line_pid(end.output)))
      << "the grandchild lives";
}

// The child's exit is its end: a grandchild left in its group, holding the
// output open, is killed then rather than waited for until the deadline.
TEST(RunToEnd, AChildThatExitsEndsTheRunAndTheGrandchildItLeft) {
  const ChildEnd end = run_child_to_end(
      [](int output_fd) {
        start_hanging_grandchild(output_fd);
        // The grandchild's pid first, so that the test can look for it.
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        write_all(output_fd, "child done\n");
        return 0;
      },
      30);
  EXPECT_FALSE(end.timed_out);
  ASSERT_TRUE(WIFEXITED(end.wait_status)) << end.wait_status;
  EXPECT_EQ(WEXITSTATUS(end.wait_status), 0);
  EXPECT_LT(end.wall_seconds, 10.0);
  EXPECT_NE(end.output.find("child done\n"), std::string::npos) << end.output;
  EXPECT_TRUE(testing_support::process_ends(first_line_pid(end.output)))
      << "the grandchild lives";
}

// A child that closes its output but goes on running has not ended.
TEST(RunToEnd, AChildThatClosesItsOutputStillHasItsDeadline) {
  const ChildEnd end = run_child_to_end(
      [](int output_fd) {
        write_all(output_fd, "closing\n");
        close(output_fd);
        while (true) pause();
        return 0;
      },
      0.2);
  EXPECT_TRUE(end.timed_out);
  EXPECT_TRUE(killed_by_sigkill(end.wait_status)) << end.wait_status;
  EXPECT_EQ(end.output, "closing\n");
}

TEST(RunToEnd, RunsAProgramAndCapturesItsStdoutAndStderr) {
  const ChildEnd end = run_program_to_end(
      "/bin/sh", {"sh", "-c", "echo hi; echo oops >&2; exit 3"},
      ProgramOutput::kCaptured, 30);
  EXPECT_FALSE(end.timed_out);
  EXPECT_EQ(end.output, "hi\noops\n");
  ASSERT_TRUE(WIFEXITED(end.wait_status)) << end.wait_status;
  EXPECT_EQ(WEXITSTATUS(end.wait_status), 3);
}

TEST(RunToEnd, AProgramWithInheritedOutputGivesItsStatus) {
  const ChildEnd end = run_program_to_end("/bin/sh", {"sh", "-c", "exit 4"},
                                          ProgramOutput::kInherited, 30);
  EXPECT_FALSE(end.timed_out);
  EXPECT_EQ(end.output, "");
  ASSERT_TRUE(WIFEXITED(end.wait_status)) << end.wait_status;
  EXPECT_EQ(WEXITSTATUS(end.wait_status), 4);
}

TEST(RunToEnd, AProgramThatCannotStartExitsWith127) {
  const ChildEnd end =
      run_program_to_end("/nonexistent/casebook-no-such-program",
                         {"no-such-program"}, ProgramOutput::kCaptured, 30);
  EXPECT_FALSE(end.timed_out);
  ASSERT_TRUE(WIFEXITED(end.wait_status)) << end.wait_status;
  EXPECT_EQ(WEXITSTATUS(end.wait_status), 127);
}

// Both ways of output: the deadline holds without a pipe to watch too, and
// the program's own children (its group) go with it.
TEST(RunToEnd, KillsAProgramPastItsDeadlineWithItsChildren) {
  for (ProgramOutput output :
       {ProgramOutput::kCaptured, ProgramOutput::kInherited}) {
    TempFolder folder;
    const std::string pid_file = (folder.path() / "sleep.pid").string();
    const ChildEnd end = run_program_to_end(
        "/bin/sh",
        {"sh", "-c", "sleep 30 & echo $! > '" + pid_file + "'; wait"}, output,
        0.3);
    EXPECT_TRUE(end.timed_out);
    EXPECT_TRUE(killed_by_sigkill(end.wait_status)) << end.wait_status;
    EXPECT_LT(end.wall_seconds, 10.0);
    pid_t sleeper = 0;
    std::ifstream(pid_file) >> sleeper;
    ASSERT_GT(sleeper, 0) << "the program did not start its child in time";
    EXPECT_TRUE(testing_support::process_ends(sleeper))
        << "the program's child lives";
  }
}

// `casebook capture` holds threads; spawn_child would refuse to fork there.
TEST(RunToEnd, RunsAProgramFromAProcessWithThreads) {
  std::promise<void> stop;
  std::thread other([done = stop.get_future()]() mutable { done.wait(); });
  const ChildEnd end = run_program_to_end("/bin/sh", {"sh", "-c", "echo hi"},
                                          ProgramOutput::kCaptured, 30);
  stop.set_value();
  other.join();
  EXPECT_EQ(end.output, "hi\n");
  EXPECT_TRUE(WIFEXITED(end.wait_status) && WEXITSTATUS(end.wait_status) == 0)
      << end.wait_status;
}

}  // namespace
}  // namespace casebook
