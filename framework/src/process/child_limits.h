// The memory limit of a CPU run's child: a case that allocates without end
// (a shape computed wrong, a leak in a loop) must fail alone with
// out_of_memory, not bring the kernel's OOM killer onto the runner or onto
// another engineer's processes.
#pragma once

#include <cstdint>
#include <optional>

namespace casebook {

// The bytes a CPU child may map beyond what it has mapped when it starts:
// CASEBOOK_CHILD_MEMORY (bytes, or 8G, 512M...) where set and valid, else
// the machine's physical memory. A value that does not read is refused
// before any child starts (limit_variable_errors, casebook/limits.h).
uint64_t child_memory_budget();

// Sets RLIMIT_AS of this process to its current address space plus the
// budget (LibTorch alone maps a few GiB of address space it never touches).
// Only for CPU runs: a CUDA or HIP runtime reserves terabytes of address
// space and would not start. Returns the limit set, nullopt when none was.
std::optional<uint64_t> limit_child_memory();

}  // namespace casebook
