#include "runner/memcheck.h"

#include <unistd.h>

#include <cstdlib>
#include <regex>
#include <sstream>
#include <vector>

#include "casebook/diagnosis.h"
#include "process/run_to_end.h"

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

RunOutcome memcheck_outcome(const MemcheckResult& memcheck) {
  RunOutcome outcome;
  outcome.ran = memcheck.ran;
  outcome.matched = memcheck.errors == 0;
  outcome.family =
      memcheck.errors == 0 ? Family::kNone : Family::kIllegalAddress;
  outcome.message = memcheck.summary;
  return outcome;
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
  const ChildEnd run = run_child_to_end(
      [&](int output_fd) {
        dup2(output_fd, STDOUT_FILENO);
        dup2(output_fd, STDERR_FILENO);
        setenv("PYTORCH_NO_CUDA_MEMORY_CACHING", "1", 1);
        // compute-sanitizer's launcher starts a thread in each process it
        // follows: the fork rules may not count it (process/fork_rules.h).
        setenv("CASEBOOK_TOOL_THREADS", "1", 1);
        std::vector<char*> argv;
        argv.reserve(arguments.size() + 1);
        for (std::string& argument : arguments) argv.push_back(argument.data());
        argv.push_back(nullptr);
        execv(sanitizer.c_str(), argv.data());
        return 127;
      },
      timeout_seconds);
  const std::string& output = run.output;

  MemcheckResult result;
  result.ran = true;
  result.errors = memcheck_error_count(output);
  if (run.timed_out) {
    result.summary = "no result: compute-sanitizer ran past " +
                     std::to_string(static_cast<int>(timeout_seconds)) + " s";
  } else if (result.errors < 0) {
    result.summary = "no ERROR SUMMARY: compute-sanitizer " +
                     describe_wait_status(run.wait_status);
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
