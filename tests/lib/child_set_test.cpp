// The runner's children watched at once (process/child_set.h), with real
// processes: each child's lines reach its own handlers whole, however they
// were written; an armed deadline that passes reaches its handler once, and
// ending the child then takes its grandchildren too; a disarmed child has
// none; a handler may end another child in the middle of a dispatch; a
// released child is reaped; the caller's own descriptor wakes the wait.
#include "process/child_set.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "process_state.h"

namespace casebook {
namespace {

using Id = ChildSet::Id;

// What a set's handlers saw, by child.
struct Seen {
  std::map<Id, std::vector<std::string>> lines;
  std::map<Id, int> closed;
  std::map<Id, double> deadline_wall;
};

// Handlers that note what they see; a closed pipe ends its child.
ChildSet::Handlers noting(ChildSet& set, Seen& seen) {
  ChildSet::Handlers handlers;
  handlers.on_line = [&seen](Id id, const std::string& line) {
    seen.lines[id].push_back(line);
  };
  handlers.on_read = [&set, &seen](Id id, bool closed) {
    if (!closed) return;
    seen.closed[id] = set.end(id, /*kill=*/false);
  };
  handlers.on_deadline = [&set, &seen](Id id, double wall) {
    seen.deadline_wall[id] = wall;
    set.end(id, /*kill=*/true);
  };
  return handlers;
}

// Waits and dispatches until `done` or 10 s.
template <typename Done>
void run_until(ChildSet& set, Done done) {
  const auto until =
      std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done() && std::chrono::steady_clock::now() < until) {
    set.wait(-1);
    set.dispatch();
  }
}

// A child that writes `text` in pieces of `piece` bytes, then exits with 3.
ChildProcess writer(const std::string& text, size_t piece) {
  return spawn_child(
      [text, piece](int report_fd, int) {
        for (size_t at = 0; at < text.size(); at += piece) {
          write_all(report_fd, text.substr(at, piece));
          usleep(2000);
        }
        return 3;
      },
      false);
}

TEST(ChildSet, EachChildsLinesReachItsOwnHandlersWhole) {
  ChildSet set;
  Seen seen;
  const Id first = set.add(writer("alpha\nbeta\n", 3), noting(set, seen));
  const Id second = set.add(writer("gamma\n", 1), noting(set, seen));
  run_until(set, [&] { return seen.closed.size() == 2; });
  EXPECT_EQ(seen.lines[first], (std::vector<std::string>{"alpha", "beta"}));
  EXPECT_EQ(seen.lines[second], (std::vector<std::string>{"gamma"}));
  ASSERT_TRUE(WIFEXITED(seen.closed[first]));
  EXPECT_EQ(WEXITSTATUS(seen.closed[first]), 3);
  EXPECT_FALSE(set.contains(first));
  EXPECT_FALSE(set.contains(second));
}

TEST(ChildSet, APassedDeadlineReachesItsHandlerAndEndingTakesTheGroup) {
  ChildSet set;
  Seen seen;
  int pids[2];
  ASSERT_EQ(pipe(pids), 0);
  // The child forks a grandchild in its group, says its pid, and hangs.
  const ChildProcess hanging = spawn_child(
      [&pids](int, int) {
        const pid_t grandchild = fork();
        if (grandchild == 0) {
          while (true) pause();
        }
        write_all(pids[1], std::to_string(grandchild) + "\n");
        while (true) pause();
        return 0;
      },
      false);
  close(pids[1]);
  std::string said;
  char byte = 0;
  while (read(pids[0], &byte, 1) == 1 && byte != '\n') said += byte;
  close(pids[0]);
  const pid_t grandchild = static_cast<pid_t>(std::stol(said));
  const Id id = set.add(hanging, noting(set, seen));
  set.arm(id, ChildSet::Clock::now(), 0.2);
  run_until(set, [&] { return !seen.deadline_wall.empty(); });
  ASSERT_EQ(seen.deadline_wall.count(id), 1U);
  EXPECT_GE(seen.deadline_wall[id], 0.2);
  EXPECT_LT(seen.deadline_wall[id], 5.0);
  EXPECT_FALSE(set.contains(id));
  EXPECT_TRUE(testing_support::process_ends(grandchild))
      << "the grandchild outlived its group's end";
}

TEST(ChildSet, ADisarmedChildHasNoDeadline) {
  ChildSet set;
  Seen seen;
  const Id id = set.add(writer("late\n", 5), noting(set, seen));
  set.arm(id, ChildSet::Clock::now() - std::chrono::seconds(10), 1.0);
  set.disarm(id);
  run_until(set, [&] { return !seen.closed.empty(); });
  EXPECT_TRUE(seen.deadline_wall.empty());
  EXPECT_EQ(seen.lines[id], (std::vector<std::string>{"late"}));
}

TEST(ChildSet, AHandlerMayEndAnotherChildInTheMiddleOfADispatch) {
  ChildSet set;
  Seen seen;
  const Id quiet = set.add(writer("", 1), noting(set, seen));
  ChildSet::Handlers ending = noting(set, seen);
  ending.on_line = [&](Id id, const std::string& line) {
    seen.lines[id].push_back(line);
    if (set.contains(quiet)) seen.closed[quiet] = set.end(quiet, true);
  };
  const Id speaker = set.add(writer("stop the other\n", 64), ending);
  run_until(set, [&] { return seen.closed.count(speaker) != 0; });
  EXPECT_FALSE(set.contains(quiet));
  EXPECT_EQ(seen.lines[speaker], (std::vector<std::string>{"stop the other"}));
  EXPECT_TRUE(seen.lines[quiet].empty());
}

TEST(ChildSet, AReleasedChildIsReapedAndTheCallersDescriptorWakesTheWait) {
  ChildSet set;
  Seen seen;
  const ChildProcess hanging = spawn_child(
      [](int, int) {
        while (true) pause();
        return 0;
      },
      false);
  const Id id = set.add(hanging, noting(set, seen));
  set.release(id);
  EXPECT_FALSE(set.contains(id));
  int wake[2];
  ASSERT_EQ(pipe(wake), 0);
  ASSERT_EQ(write(wake[1], "x", 1), 1);
  EXPECT_TRUE(set.wait(wake[0]));
  set.end_all();  // reaps what was released, waiting
  int status = 0;
  EXPECT_EQ(waitpid(hanging.pid, &status, WNOHANG), -1)
      << "the released child was not reaped";
  close(wake[0]);
  close(wake[1]);
}

}  // namespace
}  // namespace casebook
