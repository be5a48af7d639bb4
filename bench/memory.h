// Memory readings of the benchmark process and its children, in KiB.
#pragma once

#include <string>

namespace casebook::bench {

// The current resident set from /proc/self/status: all of it, the anonymous
// part (heap: copies would land here) and the shared-memory part (mapped
// tmpfs files such as the children's output tensors).
struct ResidentSet {
  long total_kib = 0;  // VmRSS
  long anon_kib = 0;   // RssAnon
  long shmem_kib = 0;  // RssShmem
};

ResidentSet current_resident_set();

// getrusage(RUSAGE_SELF).ru_maxrss: the peak resident set of this process.
long peak_self_kib();
// getrusage(RUSAGE_CHILDREN).ru_maxrss: the largest peak of any child waited
// for.
long peak_children_kib();

// Resets this process's peak resident set (VmHWM, which ru_maxrss reports
// too; /proc/self/clear_refs "5"), so that the next reading is the peak of
// what follows alone.
void reset_peak_self();
// VmHWM: the peak resident set since the last reset (or the start).
long peak_since_reset_kib();

// MemAvailable from /proc/meminfo, and the free bytes of a file system.
long available_memory_kib();
long free_space_kib(const std::string& folder);

// "123.4 MiB" for a KiB count.
std::string mib(long kib);

}  // namespace casebook::bench
