// The judge's question "does what the run produced agree with what the case
// expects of it?": a run's outputs against the case file's and the
// reference's, its error against the expected one, its count of processed
// entries against the case's. Internal to the judge (runner/judge.cpp), which
// decides which of these steps a run gets.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runner/judge.h"

namespace casebook::judging {

// What one run amounted to, before the expectation is applied.
struct Observed {
  enum class Kind { kOutputs, kError, kTimeout, kSkipped, kInvalid };
  Kind kind = Kind::kError;
  Family family = Family::kNone;
  std::string message;
  std::vector<std::string> consequences;
  std::optional<std::vector<int64_t>> positions;
  std::optional<int64_t> processed;
  // kOutputs: what came out (the run's; it outlives the judging).
  const std::vector<at::Tensor>* outputs = nullptr;
};

Observed observe(const JobResult& result);

std::string family_text(Family family);

void set_failure(CaseVerdict* verdict, Verdict kind, Family family,
                 std::string explanation);

// The verdict of a run expected to match the reference (also the first step
// of an xfail). Leaves PASS or a failure with family and explanation; a value
// mismatch leaves what was compared in `mismatch` for the evidence. An
// InternalError where the reference run is missing or casebook broke making
// it.
void judge_match(const JudgeInputs& in, const Observed& seen,
                 CaseVerdict* verdict, MismatchEvidence* mismatch);

// The verdict of a run expected to fail with `expect`'s family (and its
// positions and message, where the case names them).
void judge_error(const Expectation& expect, const Observed& seen,
                 CaseVerdict* verdict);

// `processed`: after a run judged PASS so far, the count the op reported
// must be the case's. Fewer is a run that skipped entries instead of
// failing (skipped_entries), whatever its outputs; more took entries it
// should have left out (mismatch).
void judge_count(const Expectation& expect, const Observed& seen,
                 CaseVerdict* verdict);

}  // namespace casebook::judging
