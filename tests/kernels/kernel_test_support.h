// Helpers shared by the kernel tests.
#pragma once

#include <ATen/CPUGeneratorImpl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <string>

#include "casebook/runner.h"
#include "process/fork_rules.h"

namespace casebook::kernel_tests {

inline std::filesystem::path kernel_cases(const std::string& kernel) {
  return std::filesystem::path(CASEBOOK_SOURCE_DIR) / "cases" / "kernels" /
         kernel;
}

// The folder of this test executable: the plugins are built beside it.
inline std::filesystem::path executable_dir() {
  return std::filesystem::read_symlink("/proc/self/exe").parent_path();
}

// A CPU generator of its own: at::manual_seed would seed (and so initialise)
// CUDA in a CUDA LibTorch, and this process forks afterwards.
inline at::Generator cpu_generator(uint64_t seed) {
  return at::detail::createCPUGenerator(seed);
}

// Runs `body` in a forked child and returns the text it produced, so that
// whatever it initialises (a GPU runtime) dies with the child. Under the
// library's fork rules (single-threaded, no GPU runtime here).
inline std::string run_in_child(const std::function<std::string()>& body) {
  require_safe_to_fork("a kernel test's child");
  int fds[2];
  if (pipe(fds) != 0) return "pipe failed";
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const std::string text = body();
    (void)!write(fds[1], text.data(), text.size());
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  char buffer[512];
  ssize_t got = 0;
  while ((got = read(fds[0], buffer, sizeof(buffer))) > 0)
    text.append(buffer, got);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    text += " [child did not exit cleanly]";
  return text;
}

// The verdict of one case on one backend; NOT RUN with a message when absent.
inline CaseVerdict verdict_of(const RunSummary& summary,
                              const std::string& case_id, Backend backend) {
  for (const CaseVerdict& verdict : summary.verdicts) {
    if (verdict.case_id == case_id && verdict.backend == backend)
      return verdict;
  }
  CaseVerdict missing;
  missing.case_id = case_id;
  missing.message = "no verdict for " + case_id;
  return missing;
}

// "kernels/sum/boundaries~block_boundaries[257] cpu FAIL mismatch: ..." for
// every verdict that is not a success, one a line ("" when all are).
inline std::string failures(const RunSummary& summary) {
  std::string text;
  for (const CaseVerdict& verdict : summary.verdicts) {
    if (verdict_is_success(verdict.verdict)) continue;
    text += verdict.case_id + " " + std::string(backend_name(verdict.backend)) +
            " " + std::string(verdict_name(verdict.verdict)) + " " +
            std::string(family_name(verdict.family)) + ": " + verdict.message +
            "\n";
  }
  return text;
}

}  // namespace casebook::kernel_tests
