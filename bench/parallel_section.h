// Parallel runs as a user starts them: the `casebook` executable, `run
// --backend cpu -q --evidence ''`, over 1 and 200 small cases with -j 1 and
// -j 2 taking turns, then one large set with -j 2. Prints:
// - the fixed start: `casebook --version` (the process and LibTorch's load)
//   and a one-case run (that, the plan, the fork server's start, one run);
// - the per-case part, (T(200) - T(1)) / 199 for each -j, and their ratio;
// - the large set: ms per case and the runner's peak resident set (VmHWM),
//   with a tenth of it for comparison (memory flat: the same peak).
#pragma once

#include <filesystem>

namespace casebook::bench {

struct ParallelPlan {
  int small_cases = 200;
  int large_cases = 10000;
  int repeats = 5;  // turns of the 1- and 200-case runs; medians shown
};

// Returns false when a run did not exit 0 or a target was missed: -j 2 at
// least 1.6x faster than -j 1 on the per-case part, at most 3 ms a case over
// the large set with -j 2.
bool run_parallel_section(const std::filesystem::path& root,
                          const std::filesystem::path& casebook,
                          const ParallelPlan& plan);

}  // namespace casebook::bench
