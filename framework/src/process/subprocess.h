// Child processes of the runner: fork, pipes, process groups, killing.
//
// Children are forked, not exec'ed: LibTorch is loaded once in the runner
// (0.72 s to start a LibTorch process on a 2-core machine; a fork plus a small
// CPU case: 5.4 ms). The runner never initialises CUDA or HIP, so a child may.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

namespace casebook {

struct ChildProcess {
  pid_t pid = -1;
  int from_child = -1;  // the child's reports, one JSON object per line
  int to_child = -1;    // requests to a worker; -1 for one-shot children
};

// Forks a child that leads a process group of its own (so a timeout can kill
// its grandchildren too) and runs `body(report_fd, request_fd)`; the child
// then leaves with _exit(body's return value), running no atexit handler or
// static destructor of the runner's. The file descriptors of the runner's
// other children are closed in the child. The child is killed (SIGKILL) when
// the process that spawned it dies, however it dies. Throws ForkRefused
// (process/fork_rules.h) instead of forking from a process with more than one
// thread or an initialised GPU runtime. Every stdio stream is flushed
// first, so that the child holds no copy of output not yet written.
ChildProcess spawn_child(const std::function<int(int, int)>& body,
                         bool with_requests);

// Runs the program `path` with `argv` (argv[0] first) and this process's
// environment in a child that, like spawn_child's, leads a process group of
// its own and is killed (SIGKILL) when this process dies, however it dies:
// `casebook capture` runs `casebook run` so. Where `output_fd` >= 0, it is the
// program's stdout and stderr. Unlike spawn_child it may be called from a
// process with threads: the child only calls prctl, setpgid, dup2 and execv
// between fork and exec. Returns the pid, or -1 with errno set when it could
// not be started (a failed exec is the child's exit status 127).
pid_t spawn_program(const std::string& path,
                    const std::vector<std::string>& argv, int output_fd = -1);

// Asks the kernel to back this process's anonymous memory with 2 MB pages
// where it can (MADV_COLLAPSE, Linux 6.1), so that a fork copies one entry per
// 2 MB instead of 512. spawn_child does it once before the first fork.
void collapse_anonymous_memory();

// The runner's side of a child just forked (by spawn_child or the fork
// server): sets its process group (the child does too, so a kill right after
// the fork finds it either way), remembers its report pipe as one of the
// runner's child pipes and makes it non-blocking.
ChildProcess adopt_child(pid_t pid, int report_fd);

// SIGKILL to the child's whole process group.
void kill_process_group(pid_t pid);

// Writes all of `text`; false when the reader is gone.
bool write_all(int fd, const std::string& text);

// Reads what is available into `buffer` without blocking; false on EOF.
bool read_available(int fd, std::string* buffer);

// Takes one '\n'-terminated line off the front of `buffer`.
bool take_line(std::string* buffer, std::string* line);

void close_fd(int* fd);

// Marks the descriptor close-on-exec and remembers it as one of the runner's
// child pipes, to be closed in every later child.
void track_child_fd(int fd);
void untrack_child_fd(int fd);

}  // namespace casebook
