// The 1 GiB output: how it travels from the op to the comparison, what it
// costs the runner's memory, and how long it takes.
#pragma once

#include <filesystem>
#include <string>

#include "memory.h"
#include "strategies.h"

namespace casebook::bench {

struct LargeOutputReport {
  bool ran = false;
  std::string why_not;  // when skipped
  // End to end: casebook (strict, two children: the run and its cpu64
  // reference), each writing a 1 GiB file the runner maps and compares.
  Timing end_to_end;
  ResidentSet before, after;
  long peak_growth_kib = 0;    // the runner's VmHWM over the run
  long children_peak_kib = 0;  // RUSAGE_CHILDREN after the run
  // Step by step, in this process: the child's work, then the runner's.
  long long file_bytes = 0;
  double write_s = 0.0;  // inputs, op, and the one copy into the tmpfs file
  ResidentSet mapped;    // after map_tensor_file
  ResidentSet read;      // after reading every element (a sum)
  double read_s = 0.0;
  long compare_peak_growth_kib = 0;  // VmHWM over compare_outputs
  double compare_s = 0.0;
  bool compared_equal = false;
};

// Runs the end-to-end measurement, then the step-by-step one (which forks
// nothing: LibTorch's OpenMP pool is then in use). Skips, saying why, when
// memory or /dev/shm is short.
LargeOutputReport measure_large_output(const std::filesystem::path& root);

void print_large_output(const LargeOutputReport& report);

}  // namespace casebook::bench
