// The one stopwatch of the benchmark: every figure it prints is measured from
// a steady_clock start with these.
#pragma once

#include <chrono>

namespace casebook::bench {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

inline double microseconds_since(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start)
      .count();
}

}  // namespace casebook::bench
