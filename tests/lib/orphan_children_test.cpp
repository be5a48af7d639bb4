// Issue 26: a runner killed outright (kill -9, SIGHUP) takes its children
// with it; before, they ran on with no timeout. A harness process, made a
// subreaper so that the orphaned child comes to it, plays the runner's
// parent: the "runner" spawns a child (spawn_child, as every run's child is
// spawned) that would sleep for 20 s, then the harness kills the runner and
// reaps the child, which must have died of SIGKILL at once.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "process/interrupts.h"
#include "process/subprocess.h"
#include "test_ops.h"

namespace casebook {
namespace {

// Exit codes of the harness.
constexpr int kChildKilled = 0;
constexpr int kChildLived = 1;
constexpr int kHarnessBroken = 2;

// The child a "runner" starts: a run's (spawn_child) or a program
// (spawn_program, as `casebook capture` starts `casebook run`); -1: none.
using Spawner = pid_t (*)();

pid_t spawn_sleeping_run() {
  try {
    return spawn_child(
               [](int, int) {
                 sleep(20);
                 return 0;
               },
               false)
        .pid;
  } catch (...) {
    return -1;
  }
}

pid_t spawn_sleeping_program() {
  return spawn_program("/bin/sleep", {"sleep", "20"});
}

// How a child that did not outlive its parent ended: killed by the death
// signal it asked for (PR_SET_PDEATHSIG), or, when the parent was killed
// before the child had asked, leaving at once with status 70 (the check of
// getppid() right after prctl, process/subprocess.cpp). Which one happens
// is a race between the kill and the child's first lines; a child that ran
// on would end by itself, 20 s later, with status 0.
bool died_with_its_parent(int status) {
  return (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) ||
         (WIFEXITED(status) && WEXITSTATUS(status) == 70);
}

int harness(int signal_to_runner, Spawner spawn) {
  if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) return kHarnessBroken;
  int pids[2];
  if (pipe(pids) != 0) return kHarnessBroken;
  const pid_t runner = fork();
  if (runner < 0) return kHarnessBroken;
  if (runner == 0) {
    close(pids[0]);
    const pid_t child = spawn();
    if (child < 0 || write(pids[1], &child, sizeof child) != sizeof child) {
      _exit(3);
    }
    pause();  // until killed
    _exit(0);
  }
  close(pids[1]);
  pid_t child = -1;
  if (read(pids[0], &child, sizeof child) != sizeof child)
    return kHarnessBroken;
  kill(runner, signal_to_runner);
  int status = 0;
  if (waitpid(runner, &status, 0) != runner) return kHarnessBroken;
  // The orphan is now the harness's (subreaper): reap it.
  if (waitpid(child, &status, 0) != child) return kHarnessBroken;
  return died_with_its_parent(status) ? kChildKilled : kChildLived;
}

int run_harness(int signal_to_runner, Spawner spawn = spawn_sleeping_run) {
  testing_support::use_single_thread();
  const pid_t pid = fork();
  if (pid == 0) _exit(harness(signal_to_runner, spawn));
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : kHarnessBroken;
}

TEST(OrphanChildren, ARunnerKilledWithSigkillTakesItsChildWithIt) {
  EXPECT_EQ(run_harness(SIGKILL), kChildKilled);
}

TEST(OrphanChildren, ARunnerEndedBySighupTakesItsChildWithIt) {
  EXPECT_EQ(run_harness(SIGHUP), kChildKilled);
}

// `casebook capture` killed outright takes the `casebook run` it started
// with it (posix_spawn could not ask for that).
TEST(OrphanChildren, AProgramSpawnedDiesWithItsParent) {
  EXPECT_EQ(run_harness(SIGKILL, spawn_sleeping_program), kChildKilled);
}

// A second SIGTERM ends a runner that is busy elsewhere (here: blocked, as
// one stuck in a pattern match or a long comparison would be); the first
// only asks it to stop.
TEST(Interrupts, TheSecondSigtermEndsTheRunnerWhateverItIsDoing) {
  testing_support::use_single_thread();
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t runner = fork();
  if (runner == 0) {
    close(ready[0]);
    install_interrupt_handlers();
    const char byte = 1;
    if (write(ready[1], &byte, 1) != 1) _exit(3);
    for (int i = 0; i < 200; ++i) usleep(100000);  // 20 s, deaf to the pipe
    _exit(0);
  }
  close(ready[1]);
  char byte = 0;
  ASSERT_EQ(read(ready[0], &byte, 1), 1);  // the handlers are in place
  close(ready[0]);
  kill(runner, SIGTERM);
  usleep(200000);
  int status = 0;
  EXPECT_EQ(waitpid(runner, &status, WNOHANG), 0)
      << "the first SIGTERM ended it";
  kill(runner, SIGTERM);
  ASSERT_EQ(waitpid(runner, &status, 0), runner);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM)
      << "status " << status;
}

// A process forked from the runner keeps its handlers but not its wake-up:
// a SIGTERM to the child must not make the runner's interrupt pipe readable
// (it did: the runner's wait then woke at once, for ever, never told to stop).
TEST(Interrupts, AForkedChildsSignalDoesNotWakeTheRunner) {
  testing_support::use_single_thread();
  install_interrupt_handlers();
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  if (child == 0) {
    close(ready[0]);
    const char byte = 1;
    if (write(ready[1], &byte, 1) != 1) _exit(3);
    for (int i = 0; i < 200; ++i) usleep(100000);  // 20 s
    _exit(0);
  }
  close(ready[1]);
  char byte = 0;
  ASSERT_EQ(read(ready[0], &byte, 1), 1);
  close(ready[0]);
  kill(child, SIGTERM);
  pollfd wake{interrupt_fd(), POLLIN, 0};
  EXPECT_EQ(poll(&wake, 1, 300), 0) << "the child's signal woke the runner";
  EXPECT_EQ(last_interrupting_signal(), 0);
  kill(child, SIGKILL);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
}

}  // namespace
}  // namespace casebook
