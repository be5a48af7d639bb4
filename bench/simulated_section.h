// The GPU worker pool on the simulated device (tests/support): 100 cases
// with poisoning ones at 10, 50 and 90, pooled and strict. Runs on any
// machine; the simulated device stands in for cuda in this process only.
#pragma once

#include <filesystem>

namespace casebook::bench {

// Prints workers started, confirming reruns and ms per case. Returns false
// when a verdict is not PASS or the pool started more workers than one plus
// two per poisoning case.
bool run_simulated_section(const std::filesystem::path& root);

}  // namespace casebook::bench
