// While a run goes. On a terminal: one status line rewritten in place (runs
// done / total, failures so far, elapsed time, the case running longest).
// Elsewhere (CI logs): plain lines, each failure as it lands and a progress
// line at most every 30 s, so a long run never looks hung.
#pragma once

#include <chrono>
#include <map>
#include <ostream>
#include <string>

#include "casebook/runner.h"

namespace casebook {

class Progress {
 public:
  Progress(std::ostream& out, bool terminal, bool colour, size_t total_runs);
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void case_started(const std::string& case_id);
  void verdict_landed(const CaseVerdict& verdict);
  // Clears the status line (terminal) before the table is printed.
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  void draw();
  std::string status_text() const;

  std::ostream& out_;
  bool terminal_;
  bool colour_;
  size_t total_;
  size_t done_ = 0;
  size_t failed_ = 0;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_line_ = Clock::now();
  std::map<std::string, Clock::time_point> running_;
  bool drawn_ = false;
};

}  // namespace casebook
