#include "process/run_to_end.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <system_error>

#include "casebook/number_text.h"
#include "process/subprocess.h"

namespace casebook {
namespace {

using Clock = std::chrono::steady_clock;

// Without a pidfd (Linux before 5.3) the child's exit is looked for this
// often; with one, poll() wakes at the exit itself.
constexpr int kExitCheckMs = 20;

int open_pidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
#else
  (void)pid;
  return -1;
#endif
}

// Has the child exited? It stays a zombie (WNOWAIT), so that its process
// group cannot be reused while it is killed.
bool has_exited(pid_t pid) {
  siginfo_t info{};
  return waitid(P_PID, static_cast<id_t>(pid), &info,
                WEXITED | WNOHANG | WNOWAIT) == 0 &&
         info.si_pid == pid;
}

int reap(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

// Waits for `pid` (this process's child, leader of its own group) to exit and
// for `output_fd` (-1: none) to reach EOF, reading it, until `timeout_seconds`
// from `started`; then kills what is left of the group and reaps the child.
ChildEnd wait_to_end(pid_t pid, int output_fd, Clock::time_point started,
                     double timeout_seconds) {
  ChildEnd end;
  const Clock::time_point deadline =
      started + std::chrono::duration_cast<Clock::duration>(
                    std::chrono::duration<double>(timeout_seconds));
  const int pidfd = open_pidfd(pid);
  bool exited = false;
  int poll_error = 0;
  while (output_fd >= 0 || !exited) {
    const auto left =
        std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now())
            .count();
    if (left <= 0) {
      end.timed_out = true;
      break;
    }
    pollfd fds[2] = {};
    nfds_t count = 0;
    if (output_fd >= 0) fds[count++] = {output_fd, POLLIN, 0};
    const bool watch_pidfd = !exited && pidfd >= 0;
    if (watch_pidfd) fds[count++] = {pidfd, POLLIN, 0};
    int wait_ms = static_cast<int>(std::min<long long>(left, INT_MAX));
    if (!exited && pidfd < 0) wait_ms = std::min(wait_ms, kExitCheckMs);
    if (poll(fds, count, wait_ms) < 0) {
      if (errno == EINTR) continue;
      poll_error = errno;
      break;
    }
    if (output_fd >= 0 && fds[0].revents != 0 &&
        !read_available(output_fd, &end.output)) {
      close_fd(&output_fd);
    }
    if (!exited &&
        (watch_pidfd ? fds[count - 1].revents != 0 : has_exited(pid))) {
      exited = true;
      // The child's end: what it left in its group goes (and lets go of
      // the output, so that EOF comes).
      kill_process_group(pid);
    }
  }
  if (!exited) kill_process_group(pid);
  close_fd(&output_fd);
  if (pidfd >= 0) close(pidfd);
  end.wait_status = reap(pid);
  end.wall_seconds =
      std::chrono::duration<double>(Clock::now() - started).count();
  if (poll_error != 0) {
    throw std::system_error(poll_error, std::generic_category(), "poll");
  }
  return end;
}

}  // namespace

ChildEnd run_child_to_end(const std::function<int(int output_fd)>& body,
                          double timeout_seconds) {
  const Clock::time_point started = Clock::now();
  ChildProcess child = spawn_child(
      [&body](int output_fd, int) { return body(output_fd); }, false);
  return wait_to_end(child.pid, child.from_child, started, timeout_seconds);
}

ChildEnd run_program_to_end(const std::string& path,
                            const std::vector<std::string>& argv,
                            ProgramOutput output, double timeout_seconds) {
  const Clock::time_point started = Clock::now();
  int fds[2] = {-1, -1};
  if (output == ProgramOutput::kCaptured && pipe2(fds, O_CLOEXEC) != 0) {
    throw std::system_error(errno, std::generic_category(), "pipe2");
  }
  const pid_t pid = spawn_program(path, argv, fds[1]);
  const int spawn_errno = errno;
  if (fds[1] >= 0) close(fds[1]);
  if (pid < 0) {
    if (fds[0] >= 0) close(fds[0]);
    throw std::system_error(spawn_errno, std::generic_category(),
                            "fork for " + path);
  }
  if (fds[0] >= 0) {
    fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  }
  return wait_to_end(pid, fds[0], started, timeout_seconds);
}

std::string killed_at_deadline(double timeout_seconds) {
  return "no result after " + yaml_number(timeout_seconds) +
         " s: killed the run's process group";
}

}  // namespace casebook
