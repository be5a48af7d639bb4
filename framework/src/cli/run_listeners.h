// The listeners of `casebook run` (runner/run_listener.h), appended in the
// order their output appears: the progress line, then at the end the table,
// JUnit (written as results arrive), the Markdown summary, the JSON results
// and the record for --last-failed.
#pragma once

#include <filesystem>

#include "cli/commands.h"
#include "runner/run_listener.h"

namespace casebook {

struct RunListenerContext {
  const RunOutput& output;
  size_t selected_runs = 0;  // for the progress line's total
  bool terminal = false;     // standard output is a terminal
  bool colour = false;
  std::filesystem::path last_failed_record;
};

RunListeners run_listeners(const RunListenerContext& context);

}  // namespace casebook
