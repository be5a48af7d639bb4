// The GPU part of the benchmark: runs only where casebook's own probe (a
// child process) finds a CUDA device; this process never initialises CUDA.
#pragma once

#include <filesystem>

namespace casebook::bench {

// Prints the GPU table, or why it was skipped. Returns false when a GPU
// target was missed or a check failed.
bool run_gpu_section(const std::filesystem::path& root, int cases);

}  // namespace casebook::bench
