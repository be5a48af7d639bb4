#include "process/fork_server.h"

#include <fcntl.h>
#include <malloc.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "process/huge_text.h"

namespace casebook {
namespace {

// A request is one encoded RunRequest: about 150 bytes, most of it the output
// folder's path.
constexpr size_t kMaxRequestBytes = 4096;

[[noreturn]] void throw_errno(int error, const char* what) {
  throw std::system_error(error, std::generic_category(), what);
}

// One message and room for one descriptor (SCM_RIGHTS).
struct MessageWithFd {
  iovec data{};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr header{};

  MessageWithFd(void* bytes, size_t size) : data{bytes, size} {
    header.msg_iov = &data;
    header.msg_iovlen = 1;
    header.msg_control = control;
    header.msg_controllen = sizeof control;
  }
  MessageWithFd(const MessageWithFd&) = delete;
  MessageWithFd& operator=(const MessageWithFd&) = delete;
};

void send_with_fd(int socket, std::string_view message, int fd) {
  MessageWithFd packet(const_cast<char*>(message.data()), message.size());
  msghdr& header = packet.header;
  cmsghdr* rights = CMSG_FIRSTHDR(&header);
  rights->cmsg_level = SOL_SOCKET;
  rights->cmsg_type = SCM_RIGHTS;
  rights->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(rights), &fd, sizeof(int));
  while (sendmsg(socket, &header, MSG_NOSIGNAL) < 0) {
    if (errno != EINTR) throw_errno(errno, "fork server: sendmsg");
  }
}

// Receives one message into `buffer` (kMaxRequestBytes) and the descriptor
// that came with it; returns the message's length, 0 on EOF.
size_t receive_with_fd(int socket, char* buffer, int* fd) {
  MessageWithFd packet(buffer, kMaxRequestBytes);
  msghdr& header = packet.header;
  ssize_t received;
  while ((received = recvmsg(socket, &header, MSG_CMSG_CLOEXEC)) < 0) {
    if (errno != EINTR) return 0;
  }
  *fd = -1;
  for (cmsghdr* part = CMSG_FIRSTHDR(&header); part != nullptr;
       part = CMSG_NXTHDR(&header, part)) {
    if (part->cmsg_level == SOL_SOCKET && part->cmsg_type == SCM_RIGHTS) {
      std::memcpy(fd, CMSG_DATA(part), sizeof(int));
    }
  }
  return static_cast<size_t>(received);
}

// fork() that makes the new process a child of this process's parent (the
// runner). glibc's fork() cannot do that; the raw system call skips glibc's
// fork bookkeeping, which is safe here because the server is single-threaded
// and calls it outside any lock (glibc has kept no pid cache since 2.25, and
// raise() asks the kernel for the thread id, so abort() still reaches the
// child itself).
pid_t fork_as_sibling() {
  return static_cast<pid_t>(
      syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, 0, 0, 0));
}

[[noreturn]] void run_child(const ForkServerWork& work,
                            std::string_view message, int report_fd) {
  setpgid(0, 0);
  int status = 0;
  try {
    status = work.run(std::string(message), report_fd);
  } catch (...) {
    status = 70;  // EX_SOFTWARE: the run threw past its own handlers
  }
  _exit(status);
}

// The runner is a child's parent (CLONE_PARENT): killed outright, it takes
// the child with it; a runner gone before this line leaves it alone.
void follow_the_runner(pid_t runner) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != runner) _exit(70);
}

// A spare: a child forked before its request, so that the runner's request
// is answered without waiting for a fork (1.5-3 ms with Debian's LibTorch:
// 1,600 mappings to copy), and the next fork overlaps the runner's judging
// and the child's run. It waits in the server's process group (so that the
// runner reaps it by that group if it is never used) for one request on its
// own socket; EOF there (the server gone or done) ends it.
struct Spare {
  pid_t pid = -1;
  int socket = -1;  // the server's end
};

[[noreturn]] void wait_as_spare(const ForkServerWork& work, int spare_socket,
                                int runner_socket, pid_t runner) {
  follow_the_runner(runner);
  close(runner_socket);
  char message[kMaxRequestBytes];
  int report_fd = -1;
  const size_t length = receive_with_fd(spare_socket, message, &report_fd);
  if (length == 0 || report_fd < 0) _exit(0);
  close(spare_socket);
  run_child(work, std::string_view(message, length), report_fd);
}

Spare fork_spare(const ForkServerWork& work, int runner_socket, pid_t runner) {
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
    return {};
  }
  const pid_t pid = fork_as_sibling();
  if (pid == 0) {
    close(pair[0]);
    wait_as_spare(work, pair[1], runner_socket, runner);
  }
  close(pair[1]);
  if (pid < 0) {
    close(pair[0]);
    return {};
  }
  return {pid, pair[0]};
}

// The pid of the child that runs `message`, or -errno. The spare takes it
// when there is one and it is alive; else a child is forked now.
int32_t start_child(const ForkServerWork& work, Spare* spare,
                    std::string_view message, int report_fd, int runner_socket,
                    pid_t runner) {
  if (spare->pid > 0) {
    const Spare taken = *spare;
    *spare = {};
    bool sent = true;
    try {
      send_with_fd(taken.socket, message, report_fd);
    } catch (const std::system_error&) {
      sent = false;  // a dead spare: the runner reaps it by its group
    }
    close(taken.socket);
    if (sent) return taken.pid;
  }
  const pid_t pid = fork_as_sibling();
  if (pid == 0) {
    follow_the_runner(runner);
    close(runner_socket);
    run_child(work, message, report_fd);
  }
  return pid > 0 ? pid : -errno;
}

// Every page the server writes while a child shares it is copied (and, on a
// VM, its TLB entry flushed on both cores), and every fork shares them all
// again: so the loop writes as little as it can. One static buffer, no heap;
// the child, not the server, decodes the request.
// After malloc_trim(0) a few free chunks of the heap remain, scattered among
// live ones, and a child's first mallocs split and relink exactly those: each
// page they touch is copied from the server (56 of a small case's 150 faults
// on the 2-core CI machine). Taking every such chunk here, for good, leaves
// children the top of the heap: fresh pages, packed together. Bounded by the
// free bytes outside the top chunk, in case the heap is not one brk area.
void take_every_free_chunk() {
  const struct mallinfo2 start = mallinfo2();
  const size_t budget = start.fordblks - start.keepcost + (64u << 10);
  size_t taken = 0;
  for (size_t size = 64u << 10; size >= 16 && taken <= budget; size /= 2) {
    const char* top = static_cast<const char*>(sbrk(0)) - mallinfo2().keepcost;
    while (taken <= budget) {
      void* chunk = malloc(size);
      if (chunk == nullptr) return;
      if (static_cast<const char*>(chunk) >= top) {
        free(chunk);  // carved from the top: no free chunk of this size left
        break;
      }
      taken += size;  // kept: never handed to a child
    }
  }
}

int serve(const ForkServerWork& work, int socket) {
  static char message[kMaxRequestBytes];
  const pid_t runner = getppid();
  Spare spare = fork_spare(work, socket, runner);
  while (true) {
    int report_fd = -1;
    const size_t length = receive_with_fd(socket, message, &report_fd);
    if (length == 0) break;
    int32_t reply = -EPROTO;
    if (report_fd >= 0) {
      reply = start_child(work, &spare, std::string_view(message, length),
                          report_fd, socket, runner);
      close(report_fd);
    }
    if (send(socket, &reply, sizeof reply, MSG_NOSIGNAL) < 0) return 1;
    // After the reply: the runner goes on while the next spare is forked.
    if (spare.pid <= 0) spare = fork_spare(work, socket, runner);
  }
  if (spare.socket >= 0) close(spare.socket);  // EOF: the spare exits
  return 0;
}

}  // namespace

ForkServer::ForkServer(ForkServerWork work, bool huge_text) {
  int sockets[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sockets) != 0) {
    throw_errno(errno, "fork server: socketpair");
  }
  // Tracked before the fork, so that spawn_child closes the runner's end in
  // the server.
  track_child_fd(sockets[0]);
  const pid_t runner = getpid();
  const int server_end = sockets[1];
  try {
    server_ = spawn_child(
        [&work, runner, server_end, huge_text](int report_fd, int) {
          close(report_fd);
          // The server must not outlive a runner that was killed outright.
          prctl(PR_SET_PDEATHSIG, SIGKILL);
          if (getppid() != runner) return 0;
          if (work.prepare) work.prepare();
          if (huge_text) move_hot_torch_code_to_huge_pages();
          // Children's first large malloc would otherwise consolidate every
          // free chunk of this heap, copying each page it touches.
          malloc_trim(0);
          take_every_free_chunk();
          collapse_anonymous_memory();
          return serve(work, server_end);
        },
        false);
  } catch (...) {
    close_fd(&sockets[0]);
    close(server_end);
    throw;
  }
  close(server_end);
  close_fd(&server_.from_child);  // the server reports on the socket
  server_.to_child = sockets[0];
  // A server that does not answer within this (its warm-up included, on a
  // cold page cache) counts as failed: spawn() throws and the runner forks.
  const timeval patience{60, 0};
  setsockopt(server_.to_child, SOL_SOCKET, SO_RCVTIMEO, &patience,
             sizeof patience);
}

ForkServer::~ForkServer() {
  close_fd(&server_.to_child);
  int status = 0;
  while (waitpid(server_.pid, &status, 0) < 0 && errno == EINTR) {
  }
  // The spare never used (and one that died unused) is this process's child
  // in the server's process group; a child that took a request is in a group
  // of its own (adopt_child), so this reaps spares only.
  while (waitpid(-server_.pid, &status, 0) > 0 || errno == EINTR) {
  }
}

ChildProcess ForkServer::spawn(const std::string& message) {
  if (server_.to_child < 0) throw_errno(EPIPE, "fork server");
  int reports[2];
  if (pipe2(reports, O_CLOEXEC) != 0) throw_errno(errno, "pipe2");
  int32_t reply = -EPIPE;
  try {
    send_with_fd(server_.to_child, message, reports[1]);
    ssize_t got;
    while ((got = recv(server_.to_child, &reply, sizeof reply, 0)) < 0 &&
           errno == EINTR) {
    }
    if (got != static_cast<ssize_t>(sizeof reply)) reply = -EPIPE;
  } catch (...) {
    reply = -EPIPE;
  }
  close(reports[1]);
  if (reply <= 0) {
    close(reports[0]);
    // A server that failed once is not asked again.
    if (reply == -EPIPE) close_fd(&server_.to_child);
    throw_errno(-reply, "fork server: fork");
  }
  return adopt_child(reply, reports[0]);
}

}  // namespace casebook
