#include "cli/memcheck.h"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <regex>
#include <sstream>
#include <vector>

#include "casebook/diagnosis.h"
#include "process/subprocess.h"

namespace casebook {
namespace fs = std::filesystem;

std::string find_compute_sanitizer() {
  std::vector<fs::path> folders;
  if (const char* path = std::getenv("PATH")) {
    std::stringstream list(path);
    std::string folder;
    while (std::getline(list, folder, ':')) {
      if (!folder.empty()) folders.emplace_back(folder);
    }
  }
  if (const char* home = std::getenv("CUDA_HOME")) {
    folders.push_back(fs::path(home) / "bin");
  }
  folders.emplace_back("/usr/local/cuda/bin");
  for (const fs::path& folder : folders) {
    const fs::path candidate = folder / "compute-sanitizer";
    if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return {};
}

int memcheck_error_count(const std::string& output) {
  static const std::regex summary("ERROR SUMMARY: ([0-9]+) error");
  int total = -1;
  for (auto it = std::sregex_iterator(output.begin(), output.end(), summary);
       it != std::sregex_iterator(); ++it) {
    total = std::max(total, 0) + std::stoi((*it)[1].str());
  }
  return total;
}

MemcheckResult run_memcheck(const std::string& sanitizer,
                            const fs::path& case_file, double timeout_seconds) {
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  std::vector<std::string> arguments = {
      sanitizer,    "--tool", "memcheck",    "--error-exitcode",
      "1",          self,     "run",         case_file.string(),
      "--backend",  "cuda",   "--isolation", "strict",
      "--evidence", ""};
  ChildProcess child = spawn_child(
      [&](int report_fd, int) {
        dup2(report_fd, STDOUT_FILENO);
        dup2(report_fd, STDERR_FILENO);
        setenv("PYTORCH_NO_CUDA_MEMORY_CACHING", "1", 1);
        std::vector<char*> argv;
        for (std::string& argument : arguments) argv.push_back(argument.data());
        argv.push_back(nullptr);
        execv(sanitizer.c_str(), argv.data());
        return 127;
      },
      false);
  std::string output;
  const auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(timeout_seconds));
  bool timed_out = false;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd fd{child.from_child, POLLIN, 0};
    poll(&fd, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (fd.revents != 0 && !read_available(child.from_child, &output)) break;
  }
  kill_process_group(child.pid);
  close_fd(&child.from_child);
  int status = 0;
  waitpid(child.pid, &status, 0);

  MemcheckResult result;
  result.ran = true;
  result.errors = memcheck_error_count(output);
  if (timed_out) {
    result.summary = "no result: compute-sanitizer ran past " +
                     std::to_string(static_cast<int>(timeout_seconds)) + " s";
  } else if (result.errors < 0) {
    result.summary =
        "no ERROR SUMMARY: compute-sanitizer " + describe_wait_status(status);
  } else if (result.errors == 0) {
    result.summary = "ERROR SUMMARY: 0 errors (no invalid memory access seen)";
  } else {
    std::istringstream lines(output);
    std::string line;
    std::string first;
    while (std::getline(lines, line)) {
      if (line.find("Invalid") != std::string::npos ||
          line.find("Error") != std::string::npos) {
        first = line;
        break;
      }
    }
    result.summary = "ERROR SUMMARY: " + std::to_string(result.errors) +
                     " errors" + (first.empty() ? "" : "; first: " + first);
  }
  return result;
}

}  // namespace casebook
