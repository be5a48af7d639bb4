#include "process/interrupts.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include "process/subprocess.h"

namespace casebook {
namespace {

int g_signal_pipe[2] = {-1, -1};
// The process that made the pipe: a process forked from it shares the pipe
// and must not write into it (its signal would wake the runner's wait for
// ever, the runner never having been signalled).
pid_t g_pipe_owner = -1;
volatile sig_atomic_t g_last_signal = 0;
volatile sig_atomic_t g_signals_seen = 0;

void on_interrupt(int signal) {
  g_signals_seen = g_signals_seen + 1;
  if (g_signals_seen >= 2) {
    ::signal(signal, SIG_DFL);
    raise(signal);
    return;
  }
  g_last_signal = signal;
  const char byte = 1;
  if (g_signal_pipe[1] >= 0 && getpid() == g_pipe_owner) {
    (void)!write(g_signal_pipe[1], &byte, 1);
  }
}

}  // namespace

void install_interrupt_handlers() {
  if (g_signal_pipe[0] >= 0 && g_pipe_owner == getpid()) return;
  // A pipe inherited from the process this one was forked from is its own.
  for (int& end : g_signal_pipe) close_fd(&end);
  if (pipe2(g_signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0) return;
  g_pipe_owner = getpid();
  track_child_fd(g_signal_pipe[0]);
  track_child_fd(g_signal_pipe[1]);
  struct sigaction action{};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  signal(SIGPIPE, SIG_IGN);
}

int interrupt_fd() { return g_signal_pipe[0]; }

int last_interrupting_signal() { return g_last_signal; }

}  // namespace casebook
