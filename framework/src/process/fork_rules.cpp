#include "process/fork_rules.h"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace casebook {
namespace {

constexpr int kMostToolThreads = 16;

bool is_gpu_device_file(const std::string& file) {
  return file.rfind("/dev/nvidia", 0) == 0 || file == "/dev/kfd";
}

// CASEBOOK_TOOL_THREADS, 0 to kMostToolThreads; anything else counts as 0.
int tool_threads_from_environment() {
  const char* text = std::getenv("CASEBOOK_TOOL_THREADS");
  if (text == nullptr) return 0;
  const char* end = text + std::strlen(text);
  int count = 0;
  const auto [stop, error] = std::from_chars(text, end, count);
  if (error != std::errc() || stop != end || count < 0 ||
      count > kMostToolThreads) {
    return 0;
  }
  return count;
}

}  // namespace

ForkFacts read_fork_facts() {
  ForkFacts facts;
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("Threads:", 0) == 0) {
      facts.threads = std::stoi(line.substr(8));
      break;
    }
  }
  if (DIR* fds = opendir("/proc/self/fd")) {
    while (const dirent* entry = readdir(fds)) {
      if (entry->d_name[0] == '.') continue;
      const std::string link = std::string("/proc/self/fd/") + entry->d_name;
      char target[PATH_MAX];
      const ssize_t length = readlink(link.c_str(), target, sizeof(target) - 1);
      if (length <= 0) continue;
      const std::string file(target, static_cast<size_t>(length));
      if (is_gpu_device_file(file)) {
        facts.gpu_files.push_back(file);
      }
    }
    closedir(fds);
  }
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    const size_t path = line.find(" /dev/");
    if (path == std::string::npos) continue;
    const std::string file = line.substr(path + 1);
    if (is_gpu_device_file(file) &&
        std::find(facts.gpu_mappings.begin(), facts.gpu_mappings.end(), file) ==
            facts.gpu_mappings.end()) {
      facts.gpu_mappings.push_back(file);
    }
  }
  facts.tool_threads = tool_threads_from_environment();
  return facts;
}

std::string fork_refusal(const ForkFacts& facts) {
  if (facts.threads > 1 + facts.tool_threads) {
    const std::string tools =
        facts.tool_threads > 0
            ? " (" + std::to_string(facts.tool_threads) +
                  " of them a tool's, by CASEBOOK_TOOL_THREADS)"
            : "";
    return "the process has " + std::to_string(facts.threads) + " threads" +
           tools +
           " (/proc/self/status); a thread holding a lock at fork() "
           "hangs the child. Call at::set_num_threads(1) before any ATen op "
           "and start no thread in a program that runs cases";
  }
  std::string held;
  if (!facts.gpu_files.empty()) {
    held = facts.gpu_files.front() + " is open";
  } else if (!facts.gpu_mappings.empty()) {
    held = facts.gpu_mappings.front() + " is mapped into its memory";
  }
  if (!held.empty()) {
    return "the process has initialised a GPU runtime (" + held +
           "); a CUDA or HIP context does not survive fork(). Touch "
           "no GPU (not even at::manual_seed, which seeds CUDA too) in the "
           "process that runs cases";
  }
  return {};
}

void require_safe_to_fork(const std::string& what) {
  const std::string why = fork_refusal(read_fork_facts());
  if (!why.empty()) {
    throw ForkRefused("internal error: refusing to fork " + what + ": " + why);
  }
}

}  // namespace casebook
