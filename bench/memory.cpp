#include "memory.h"

#include <sys/resource.h>
#include <sys/statvfs.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace casebook::bench {
namespace {

// The number after `key` in a /proc file of "Key:   value kB" lines, or -1.
long proc_field_kib(const char* proc_file, const std::string& key) {
  std::ifstream in(proc_file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, key.size(), key) == 0 && line.size() > key.size() &&
        line[key.size()] == ':') {
      std::istringstream fields(line.substr(key.size() + 1));
      long value = -1;
      fields >> value;
      return value;
    }
  }
  return -1;
}

long peak_kib(int who) {
  rusage usage{};
  getrusage(who, &usage);
  return usage.ru_maxrss;  // Linux: KiB
}

}  // namespace

ResidentSet current_resident_set() {
  ResidentSet set;
  set.total_kib = proc_field_kib("/proc/self/status", "VmRSS");
  set.anon_kib = proc_field_kib("/proc/self/status", "RssAnon");
  set.shmem_kib = proc_field_kib("/proc/self/status", "RssShmem");
  return set;
}

long peak_self_kib() { return peak_kib(RUSAGE_SELF); }
long peak_children_kib() { return peak_kib(RUSAGE_CHILDREN); }

void reset_peak_self() { std::ofstream("/proc/self/clear_refs") << "5"; }

long peak_since_reset_kib() {
  return proc_field_kib("/proc/self/status", "VmHWM");
}

long available_memory_kib() {
  return proc_field_kib("/proc/meminfo", "MemAvailable");
}

long free_space_kib(const std::string& folder) {
  struct statvfs info{};
  if (statvfs(folder.c_str(), &info) != 0) return -1;
  return static_cast<long>(info.f_bavail * info.f_frsize / 1024);
}

std::string mib(long kib) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", kib / 1024.0);
  return text;
}

}  // namespace casebook::bench
