#include "process/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "process/fork_rules.h"

namespace casebook {
namespace {

// The runner's open child pipes; a new child must not hold them, or a
// worker's EOF would never arrive while a sibling keeps its write end.
std::set<int>& tracked_fds() {
  static std::set<int> fds;
  return fds;
}

void make_pipe(int fds[2]) {
  if (pipe2(fds, O_CLOEXEC) != 0) {
    throw std::system_error(errno, std::generic_category(), "pipe2");
  }
}

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25  // Linux 6.1
#endif

}  // namespace

// fork() copies the page tables of every anonymous page; LibTorch's start-up
// leaves about 58 MB of them (14,000 pages). Collapsing them into 2 MB huge
// pages once makes every later fork cheaper: fork+exit of a LibTorch process
// went from 9.0 to 5.9 ms on the 2-core CI machine (85 ms once). A child's
// first write to a huge page splits it, so children still copy 4 kB pages.
// Kernels without MADV_COLLAPSE refuse it, and nothing changes.
void collapse_anonymous_memory() {
  constexpr unsigned long kHuge = 2ul << 20;
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    std::istringstream fields(line);
    std::string range, perms, offset, device;
    unsigned long inode = 1;
    fields >> range >> perms >> offset >> device >> inode;
    if (inode != 0 || perms.compare(0, 2, "rw") != 0) continue;
    const size_t dash = range.find('-');
    const unsigned long begin = std::stoul(range.substr(0, dash), nullptr, 16);
    const unsigned long end = std::stoul(range.substr(dash + 1), nullptr, 16);
    const unsigned long first = (begin + kHuge - 1) & ~(kHuge - 1);
    const unsigned long last = end & ~(kHuge - 1);
    if (last > first) {
      // An address read from /proc/self/maps: the cast is the point.
      madvise(
          reinterpret_cast<void*>(first),  // NOLINT(performance-no-int-to-ptr)
          last - first, MADV_COLLAPSE);
    }
  }
}

void track_child_fd(int fd) { tracked_fds().insert(fd); }
void untrack_child_fd(int fd) { tracked_fds().erase(fd); }

void close_fd(int* fd) {
  if (*fd >= 0) {
    untrack_child_fd(*fd);
    close(*fd);
    *fd = -1;
  }
}

pid_t spawn_program(const std::string& path,
                    const std::vector<std::string>& argv, int output_fd) {
  // Everything the child needs is made before the fork: after it, in a
  // process that may have threads, only async-signal-safe calls.
  std::vector<std::string> words = argv;
  std::vector<char*> pointers;
  pointers.reserve(words.size() + 1);
  for (std::string& word : words) pointers.push_back(word.data());
  pointers.push_back(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid != 0) {
    // Both sides set the group, so that a kill right after the fork finds it.
    if (pid > 0) setpgid(pid, pid);
    return pid;
  }
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(70);  // the parent died before prctl
  setpgid(0, 0);
  if (output_fd >= 0) {
    // dup2 clears close-on-exec on the copies; the original closes at exec.
    dup2(output_fd, STDOUT_FILENO);
    dup2(output_fd, STDERR_FILENO);
  }
  execv(path.c_str(), pointers.data());
  _exit(127);
}

ChildProcess spawn_child(const std::function<int(int, int)>& body,
                         bool with_requests) {
  require_safe_to_fork(with_requests ? "a GPU worker" : "a child process");
  static const bool collapsed = (collapse_anonymous_memory(), true);
  (void)collapsed;
  int reports[2];
  int requests[2] = {-1, -1};
  make_pipe(reports);
  if (with_requests) make_pipe(requests);
  const pid_t parent = getpid();
  // Nothing unwritten may reach the child: a child that flushes its stdout
  // (CUDA does, printing a device-side assert's message) would write the
  // runner's pending lines a second time (seen on an H200: verdict lines
  // twice and three times in a piped log).
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    int saved = errno;
    close(reports[0]);
    close(reports[1]);
    if (with_requests) {
      close(requests[0]);
      close(requests[1]);
    }
    throw std::system_error(saved, std::generic_category(), "fork");
  }
  if (pid == 0) {
    // A runner killed outright (kill -9, SIGHUP's default) takes its
    // children with it; a parent gone before this line leaves at once.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(70);
    setpgid(0, 0);
    // The runner's handlers (interruption) are not the child's business.
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    for (int fd : tracked_fds()) close(fd);
    close(reports[0]);
    if (with_requests) close(requests[1]);
    int status = 0;
    try {
      status = body(reports[1], with_requests ? requests[0] : -1);
    } catch (...) {
      status = 70;  // EX_SOFTWARE: the body threw
    }
    _exit(status);
  }
  close(reports[1]);
  ChildProcess child = adopt_child(pid, reports[0]);
  if (with_requests) {
    close(requests[0]);
    child.to_child = requests[1];
    track_child_fd(child.to_child);
  }
  return child;
}

ChildProcess adopt_child(pid_t pid, int report_fd) {
  setpgid(pid, pid);
  ChildProcess child;
  child.pid = pid;
  child.from_child = report_fd;
  track_child_fd(report_fd);
  fcntl(report_fd, F_SETFL, fcntl(report_fd, F_GETFL) | O_NONBLOCK);
  return child;
}

void kill_process_group(pid_t pid) {
  if (pid > 0) kill(-pid, SIGKILL);
}

bool write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

bool read_available(int fd, std::string* buffer) {
  char chunk[65536];
  while (true) {
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n > 0) {
      buffer->append(chunk, static_cast<size_t>(n));
      continue;
    }
    if (n == 0) return false;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK;
  }
}

bool take_line(std::string* buffer, std::string* line) {
  size_t end = buffer->find('\n');
  if (end == std::string::npos) return false;
  *line = buffer->substr(0, end);
  buffer->erase(0, end + 1);
  return true;
}

}  // namespace casebook
