// What `casebook diagnose`'s reruns show, as a pure function of their
// outcomes (internal to the diagnosis; no LibTorch, so that the table of
// first outcome x rerun outcome -> conclusion is unit-tested alone).
//
// A rerun changes one thing. What its outcome means depends on the family
// of the first run: a float32 rerun that passes says "the kernel is missing
// for float16" after op_unavailable and "the precision" after a mismatch; a
// rerun with every index in range says whether the data or the kernel is at
// fault. A conclusion never claims more than the reruns showed: a rerun
// that fails with another family or message "changed" the failure (both
// are shown), and what did not run says nothing.
#pragma once

#include <string>
#include <vector>

#include "casebook/family.h"

namespace casebook {

// What one run did. Every rerun expects the outputs to match the
// reference, so this is what happened, not a verdict against the case.
struct RunOutcome {
  bool ran = false;
  bool matched = false;  // the outputs matched the reference
  Family family = Family::kNone;
  std::string message;  // the first line of the first error
};

// The one thing a rerun changes.
enum class RerunKind {
  kLaunchBlocking,  // CUDA_LAUNCH_BLOCKING=1 (HIP: AMD_SERIALIZE_KERNEL=3)
  kCpu,             // the same case on the CPU
  kFloat32,         // floating inputs as float32, the case's own numbers
  kFloat64,         // ... as float64
  kContiguous,      // every input contiguous
  kValidIndices,    // the offending index values replaced by valid ones
  // compute-sanitizer memcheck over the case: its outcome is whether it
  // found invalid accesses (matched: none; else kIllegalAddress and its
  // summary), not a comparison with the first run.
  kMemcheck,
};

enum class RerunReading {
  kNotRun,
  kSame,     // the same family and message (numbers aside)
  kPasses,   // the outputs match where the first run failed
  kChanged,  // it fails too, with another family or message
  kBreaks,   // the first run matched; this one fails
};

struct Rerun {
  RerunKind change = RerunKind::kCpu;
  // What changed, in words: "float16 -> float32", "target[2]: 4 -> 0".
  std::string detail;
  RunOutcome outcome;
};

struct RerunConclusion {
  RerunReading reading = RerunReading::kNotRun;
  // What this rerun shows, one sentence; empty for kSame and kNotRun
  // (nothing shown) except a valid-index rerun, whose sameness is a finding.
  std::string finding;
};

// How `rerun` compares with `first`: messages are compared on their first
// line with every number masked ("Target 4" and "Target -1" agree, "dtype
// differs" and "mismatched elements" do not).
RerunReading read_rerun(const RunOutcome& first, const RunOutcome& rerun);

// What one rerun shows, given the first run on `backend` ("cpu", "cuda").
RerunConclusion conclude_rerun(const RunOutcome& first, const Rerun& rerun,
                               const std::string& backend);

// The bottom line, one line each: the findings of the reruns that showed
// something, else what the reruns that ran did not change and that those
// that could not run say nothing.
std::vector<std::string> conclude(const RunOutcome& first,
                                  const std::vector<Rerun>& reruns,
                                  const std::string& backend);

// "float64", "every input contiguous", ...: the change's name in a table.
std::string rerun_change_name(RerunKind change);

}  // namespace casebook
