#include "process/child_limits.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "casebook/limits.h"

namespace casebook {
namespace {

// VmSize of /proc/self/status, in bytes; 0 when unknown.
uint64_t address_space_now() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmSize:") {
      uint64_t kib = 0;
      status >> kib;
      return kib * 1024;
    }
    status.ignore(4096, '\n');
  }
  return 0;
}

}  // namespace

uint64_t child_memory_budget() {
  if (const char* setting = std::getenv("CASEBOOK_CHILD_MEMORY")) {
    if (auto bytes = parse_byte_count(setting); bytes && *bytes > 0) {
      return *bytes;
    }
  }
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page_size > 0
             ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size)
             : uint64_t{0};
}

std::optional<uint64_t> limit_child_memory() {
  const uint64_t budget = child_memory_budget();
  const uint64_t now = address_space_now();
  if (budget == 0 || now == 0) return std::nullopt;
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) != 0) return std::nullopt;
  const uint64_t wanted = now + budget;
  if (limit.rlim_max != RLIM_INFINITY && wanted > limit.rlim_max) {
    return std::nullopt;  // already stricter than this
  }
  limit.rlim_cur = static_cast<rlim_t>(wanted);
  if (setrlimit(RLIMIT_AS, &limit) != 0) return std::nullopt;
  return wanted;
}

}  // namespace casebook
