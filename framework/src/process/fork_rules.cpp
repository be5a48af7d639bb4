#include "process/fork_rules.h"

#include <dirent.h>
#include <unistd.h>

#include <climits>
#include <fstream>

namespace casebook {

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
      if (file.rfind("/dev/nvidia", 0) == 0 || file == "/dev/kfd") {
        facts.gpu_files.push_back(file);
      }
    }
    closedir(fds);
  }
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    if (line.find("/libcuda.so") != std::string::npos) {
      facts.cuda_driver_loaded = true;
      break;
    }
  }
  return facts;
}

std::string fork_refusal(const ForkFacts& facts) {
  if (facts.threads > 1) {
    return "the process has " + std::to_string(facts.threads) +
           " threads (/proc/self/status); a thread holding a lock at fork() "
           "hangs the child. Call at::set_num_threads(1) before any ATen op "
           "and start no thread in a program that runs cases";
  }
  if (!facts.gpu_files.empty()) {
    return "the process has initialised a GPU runtime (" +
           facts.gpu_files.front() +
           " is open); a CUDA or HIP context does not survive fork(). Touch "
           "no GPU (not even at::manual_seed, which seeds CUDA too) in the "
           "process that runs cases";
  }
  if (facts.cuda_driver_loaded) {
    return "the process has loaded the CUDA driver (libcuda.so is mapped); "
           "a CUDA context does not survive fork(). Touch no GPU (not even "
           "at::manual_seed) in the process that runs cases";
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
