// Running a child to its end, with a deadline: the one loop behind the
// backend probe, `casebook show`, `casebook memcheck` and `casebook capture`
// (the runner's scheduler, which watches many children at once, has
// process/child_set.h).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace casebook {

// How a child run to its end ended.
struct ChildEnd {
  std::string output;   // all it wrote (up to the deadline, when timed out)
  int wait_status = 0;  // waitpid()'s; SIGKILL's when the deadline killed it
  bool timed_out = false;
  double wall_seconds = 0;  // from the fork to the reaping
};

// Forks a child with spawn_child (process/subprocess.h: its own process
// group, killed with this process, refused from a process with threads) that
// runs `body(output_fd)` and leaves with its return value; reads everything
// the child writes to `output_fd` with poll(), never spinning. The child's end
// is its exit: any process left in its group is then killed, and the output
// is read to its end (EOF). When `timeout_seconds` pass first, the child's
// whole process group is killed and `timed_out` is set. Either way the child
// is reaped (waitpid retried on EINTR) before this returns, and nothing of it
// is left running in its group.
ChildEnd run_child_to_end(const std::function<int(int output_fd)>& body,
                          double timeout_seconds);

// Where an exec'd program's stdout and stderr go.
enum class ProgramOutput {
  kCaptured,   // both into ChildEnd::output
  kInherited,  // this process's own; ChildEnd::output stays empty
};

// As run_child_to_end, for the program `path` with `argv` (argv[0] first),
// started by spawn_program's fork and exec, so that it may be called from a
// process with threads. A failed exec is exit status 127; throws
// std::system_error when the fork fails.
ChildEnd run_program_to_end(const std::string& path,
                            const std::vector<std::string>& argv,
                            ProgramOutput output, double timeout_seconds);

// What a run killed at its deadline is told, the same wherever it ran (the
// scheduler, a GPU worker, `casebook show`): "no result after 0.3 s: killed
// the run's process group", the seconds as the case file would write them.
std::string killed_at_deadline(double timeout_seconds);

}  // namespace casebook
