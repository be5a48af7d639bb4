// The rules for forking in the runner, kept by the library itself (not only
// by the CLI): a process that has more than one thread, or that has
// initialised CUDA or HIP, must not fork children or GPU workers. A thread
// holding a lock (malloc's, OpenMP's) at fork() leaves the child to hang on it
// forever, and a CUDA or HIP context does not survive fork(): the child's
// first GPU call fails or hangs.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace casebook {

// Thrown instead of forking: an internal error of the program that embeds
// the runner, never a verdict.
class ForkRefused : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// What this process shows: its thread count (/proc/self/status, Threads:),
// the threads a tool wrapped around it started (CASEBOOK_TOOL_THREADS: set
// by what runs casebook under compute-sanitizer, whose launcher starts one in
// every process it follows), and the GPU device files it holds open
// (/proc/self/fd) or has mapped (/proc/self/maps): /dev/nvidia*, /dev/kfd.
// A CUDA or HIP runtime opens and maps them when it initialises. The driver
// library alone (libcuda.so mapped, as a CUDA LibTorch may load it at start)
// is no context and no reason to refuse.
struct ForkFacts {
  int threads = 1;
  int tool_threads = 0;
  std::vector<std::string> gpu_files;
  std::vector<std::string> gpu_mappings;
};
ForkFacts read_fork_facts();

// Why forking is unsafe given `facts`; "" when it is safe.
std::string fork_refusal(const ForkFacts& facts);

// Throws ForkRefused ("internal error: refusing to fork <what>: ...") when
// this process may not fork.
void require_safe_to_fork(const std::string& what);

}  // namespace casebook
