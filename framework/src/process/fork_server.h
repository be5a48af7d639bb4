// The CPU fork server: one process, forked from the runner when a run starts,
// that forks every CPU run's child on the runner's request.
//
// Why not fork from the runner: fork() costs the forking process time in
// proportion to its memory map (Debian's LibTorch brings about 300 libraries,
// 1,500 mappings and 60 MB of anonymous memory), and every page the runner
// writes while a child lives is copied. On the 2-core CI machine that was
// half of the runner's time, on its one thread. The server forks instead and
// otherwise sits idle in recvmsg(), so the runner only judges, and the
// server's heap stays quiet: it has warmed up LibTorch's CPU path once (lazy
// symbol binding, OpenMP and cpuinfo start-up, first-call caches) and
// consolidated its free lists, so a child does not redo any of it.
//
// The children are made with clone(CLONE_PARENT): they are the runner's
// children, not the server's, so the runner waits for them, reads their exit
// status and kills their process groups exactly as for a child it forked.
// Requests carry the child's report pipe as SCM_RIGHTS.
//
// Each child is forked ahead of its request: a spare waits for it in the
// server's process group, so that spawn() is answered without waiting for a
// fork and the next fork overlaps the runner's judging and the run under way
// (bench/: --only-parallel). The spare never used is reaped by the owner's
// destructor, by that group.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>

#include "process/subprocess.h"

namespace casebook {

// What the server is for, given by its owner (child/execute.h makes the CPU
// runs' work): process/ knows how to fork, not what a run does.
struct ForkServerWork {
  // Once, in the server, before it serves: apply the child environment,
  // warm up. May be empty.
  std::function<void()> prepare;
  // In each child: run the request `message` (as spawn() was given it),
  // reporting on `report_fd`; the child's exit status.
  std::function<int(const std::string& message, int report_fd)> run;
};

class ForkServer {
 public:
  // Forks the server. It calls work.prepare, with `huge_text` moves
  // LibTorch's hot code onto huge pages (process/huge_text.h: worth it for
  // runs with many CPU cases), and waits for requests.
  ForkServer(ForkServerWork work, bool huge_text);
  // Closes the request socket (the server then exits and its spare with it)
  // and reaps both.
  ~ForkServer();
  ForkServer(const ForkServer&) = delete;
  ForkServer& operator=(const ForkServer&) = delete;

  // Has the server start a one-shot child for the request `message` (at
  // most 4096 bytes; the child, not the server, decodes it) and
  // returns it; the
  // child is this process's child. Throws std::system_error when the server
  // is gone or could not fork; the caller may then fork the child itself.
  ChildProcess spawn(const std::string& message);

  pid_t pid() const { return server_.pid; }

 private:
  ChildProcess server_;  // to_child is the request socket
};

}  // namespace casebook
