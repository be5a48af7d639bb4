// The one ATen setting of a process that forks children (the runner, `show`,
// `diagnose`, `report`, a test program): no intra-op thread pool. A thread
// holding a lock (OpenMP's, malloc's) at fork() hangs the child, and
// process/fork_rules.h refuses to fork a process with more than one thread.
#pragma once

namespace casebook {

// Keeps ATen's intra-op work on the calling thread, so that no OpenMP pool
// is ever started in this process. Call it before the first ATen op; calling
// it again is harmless.
void keep_aten_single_threaded();

}  // namespace casebook
