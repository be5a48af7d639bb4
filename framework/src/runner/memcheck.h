// compute-sanitizer memcheck over one case, for `casebook diagnose`: the
// run, and what it says as a rerun's outcome.
#pragma once

#include <filesystem>
#include <string>

#include "diagnosis/conclusions.h"

namespace casebook {

// compute-sanitizer's path: on PATH, else in $CUDA_HOME/bin or
// /usr/local/cuda/bin; empty when absent.
std::string find_compute_sanitizer();

struct MemcheckResult {
  bool ran = false;
  int errors = 0;       // the sum of every "ERROR SUMMARY: N errors"
  std::string summary;  // one line for a person, with the first error
};

// Execs `compute-sanitizer --tool memcheck --error-exitcode 1 <casebook> run
// <case_file> --backend cuda --isolation strict --evidence ''` with
// PYTORCH_NO_CUDA_MEMORY_CACHING=1: without it an out-of-bounds read lands
// inside a block of PyTorch's caching allocator and memcheck sees 0 errors.
// Killed after `timeout_seconds`.
MemcheckResult run_memcheck(const std::string& sanitizer,
                            const std::filesystem::path& case_file,
                            double timeout_seconds);

// The sum of the "ERROR SUMMARY: N error(s)" lines of compute-sanitizer's
// output (one per process it followed); -1 when there is none.
int memcheck_error_count(const std::string& output);

// The memcheck rerun's outcome: matched when it found no invalid access;
// else illegal_address, with its summary as the message.
RunOutcome memcheck_outcome(const MemcheckResult& memcheck);

}  // namespace casebook
