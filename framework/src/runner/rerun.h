// The command that reruns exactly one run: the executable, the case file,
// the backend, the isolation, and the device and plugin environment
// variables this run had (CUDA_VISIBLE_DEVICES, CASEBOOK_KERNEL_PLUGIN_DIR,
// CUDA_LAUNCH_BLOCKING... and the run's own child environment), so that
// pasting it reproduces the run, not a neighbour of it.
#pragma once

#include <string>

#include "casebook/runner.h"
#include "runner/plan.h"

namespace casebook {

// "CUDA_VISIBLE_DEVICES=1 /opt/casebook/bin/casebook run cases/x.yaml
// --backend cuda --isolation pooled". The executable is the running one when
// it is casebook, else `casebook` (a program that embeds the runner).
std::string rerun_line(const PlannedCase& planned, Backend backend,
                       const RunOptions& options);

// `text` as a POSIX shell reads it back: bare when safe, else single-quoted;
// with a control byte or a byte that is not UTF-8, bash's $'...' escapes.
std::string shell_word(const std::string& text);

// The variables a rerun line names when they are set: those that choose the
// device, the plugin, or how the runtime behaves.
const std::vector<std::string>& rerun_environment_names();

}  // namespace casebook
