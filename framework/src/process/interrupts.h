// SIGINT and SIGTERM for a process that supervises children (the runner):
// the first asks it to stop and report, and wakes its wait (interrupt_fd(),
// polled with the children, process/child_set.h); the second ends the process
// at once, whatever it is busy with (its children follow: PR_SET_PDEATHSIG).
#pragma once

namespace casebook {

// Installs the handlers, also for a signal that comes before a run starts;
// SIGPIPE is ignored (a dead worker's pipe is handled, not fatal).
// Idempotent in a process; a process forked from one that installed them
// gets a pipe of its own when it installs them (until then a signal it gets
// is noted, and wakes nobody's wait).
void install_interrupt_handlers();

// Readable once an interrupting signal came; -1 before the handlers are
// installed.
int interrupt_fd();

// The signal that interrupted this process's runs, or 0.
int last_interrupting_signal();

}  // namespace casebook
