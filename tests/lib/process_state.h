// Whether a process still runs, as the tests of killing ask it: a zombie is
// dead (it only waits for a parent to reap it, which may be no one here).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

namespace casebook::testing_support {

// Running: in /proc and not a zombie.
inline bool process_running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return false;
  const std::string text((std::istreambuf_iterator<char>(stat)), {});
  // The state follows the name, which is in parentheses and may hold any byte.
  const size_t close = text.rfind(')');
  return close != std::string::npos && text.size() > close + 2 &&
         text[close + 2] != 'Z';
}

// Waits up to 5 s for `pid` to stop running; true when it did.
inline bool process_ends(pid_t pid) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (process_running(pid)) {
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

}  // namespace casebook::testing_support
