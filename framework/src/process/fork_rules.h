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
// the GPU device files it holds open (/proc/self/fd: /dev/nvidia*, /dev/kfd)
// and whether the CUDA driver library is mapped (/proc/self/maps:
// libcuda.so, loaded by the runtime's first call).
struct ForkFacts {
  int threads = 1;
  std::vector<std::string> gpu_files;
  bool cuda_driver_loaded = false;
};
ForkFacts read_fork_facts();

// Why forking is unsafe given `facts`; "" when it is safe.
std::string fork_refusal(const ForkFacts& facts);

// Throws ForkRefused ("internal error: refusing to fork <what>: ...") when
// this process may not fork.
void require_safe_to_fork(const std::string& what);

}  // namespace casebook
