#include "process/huge_text.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

namespace casebook {
namespace {

constexpr uintptr_t kHuge = 2u << 20;
constexpr uintptr_t kPage = 4096;

struct Range {
  uintptr_t begin = 0;
  uintptr_t end = 0;
};

// "[always]" or "[madvise]": MADV_HUGEPAGE memory gets huge pages.
bool huge_pages_available(std::string* why_not) {
  std::ifstream mode("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string text;
  std::getline(mode, text);
  if (text.find("[always]") != std::string::npos ||
      text.find("[madvise]") != std::string::npos) {
    return true;
  }
  *why_not = "transparent huge pages are off (" + text + ")";
  return false;
}

// The executable mapping of libtorch_cpu, from /proc/self/maps.
bool find_torch_code(Range* code, std::string* why_not) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    std::istringstream fields(line);
    std::string range, perms, offset, device, inode, path;
    fields >> range >> perms >> offset >> device >> inode >> path;
    if (perms != "r-xp") continue;
    const size_t slash = path.rfind('/');
    if (path.compare(slash + 1, 15, "libtorch_cpu.so") != 0) continue;
    const size_t dash = range.find('-');
    code->begin = std::stoull(range.substr(0, dash), nullptr, 16);
    code->end = std::stoull(range.substr(dash + 1), nullptr, 16);
    return true;
  }
  *why_not = "no executable mapping of libtorch_cpu.so";
  return false;
}

// The 2 MB chunks inside `code` that hold at least one present page, merged
// into runs.
std::vector<Range> hot_chunks(const Range& code) {
  std::vector<Range> runs;
  const uintptr_t first = (code.begin + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t last = code.end & ~(kHuge - 1);
  const int pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (pagemap < 0) return runs;
  std::vector<uint64_t> entries(kHuge / kPage);
  const size_t bytes = entries.size() * sizeof(uint64_t);
  for (uintptr_t chunk = first; chunk < last; chunk += kHuge) {
    const off_t at = static_cast<off_t>(chunk / kPage * sizeof(uint64_t));
    if (pread(pagemap, entries.data(), bytes, at) !=
        static_cast<ssize_t>(bytes)) {
      break;
    }
    bool present = false;
    for (uint64_t entry : entries) present = present || (entry >> 63) != 0;
    if (!present) continue;
    if (!runs.empty() && runs.back().end == chunk) {
      runs.back().end = chunk + kHuge;
    } else {
      runs.push_back({chunk, chunk + kHuge});
    }
  }
  close(pagemap);
  return runs;
}

// Copies `run` onto fresh huge pages and maps the copy over it.
bool move_run(const Range& run) {
  const size_t size = run.end - run.begin;
  // Over-allocate by 2 MB to cut a 2 MB-aligned window out of it.
  void* raw = mmap(nullptr, size + kHuge, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return false;
  const auto raw_begin = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t window = (raw_begin + kHuge - 1) & ~(kHuge - 1);
  if (window > raw_begin) munmap(raw, window - raw_begin);
  const uintptr_t raw_end = raw_begin + size + kHuge;
  if (raw_end > window + size) {
    // NOLINTNEXTLINE(performance-no-int-to-ptr): an address we computed
    munmap(reinterpret_cast<void*>(window + size), raw_end - window - size);
  }
  // NOLINTNEXTLINE(performance-no-int-to-ptr): the aligned window
  void* copy = reinterpret_cast<void*>(window);
  // NOLINTNEXTLINE(performance-no-int-to-ptr): the code being moved
  void* original = reinterpret_cast<void*>(run.begin);
  madvise(copy, size, MADV_HUGEPAGE);
  std::memcpy(copy, original, size);
  // A kernel that forbids executable anonymous memory refuses here, and the
  // code stays where it was.
  if (mprotect(copy, size, PROT_READ | PROT_EXEC) != 0 ||
      mremap(copy, size, size, MREMAP_MAYMOVE | MREMAP_FIXED, original) ==
          MAP_FAILED) {
    munmap(copy, size);
    return false;
  }
  return true;
}

}  // namespace

HugeTextMove move_hot_torch_code_to_huge_pages() {
  HugeTextMove move;
  const char* setting = std::getenv("CASEBOOK_HUGE_TEXT");
  if (setting != nullptr && std::strcmp(setting, "0") == 0) {
    move.why_not = "CASEBOOK_HUGE_TEXT=0";
    return move;
  }
  Range code;
  if (!huge_pages_available(&move.why_not) ||
      !find_torch_code(&code, &move.why_not)) {
    return move;
  }
  for (const Range& run : hot_chunks(code)) {
    if (move_run(run)) {
      move.chunks_moved += static_cast<int>((run.end - run.begin) / kHuge);
    }
  }
  if (move.chunks_moved == 0) move.why_not = "no chunk could be moved";
  return move;
}

}  // namespace casebook
