#pragma once
// How many elements every check of compare/ reads at a time.
#include <cstdint>

namespace casebook {

// Elements compared at a time: float64 temporaries of 4M elements (32 MiB
// each) bound the runner's memory whatever the output's size; a 1 GiB output
// compared whole took 5.2 GiB of temporaries.
inline constexpr int64_t kCompareChunk = int64_t{1} << 22;

}  // namespace casebook
