// Evidence of a failing mismatch: a folder per failing (case, backend) with
// what a person needs to look at the difference without rerunning anything
// (CUTLASS testbed dump files):
//
//   input_<name>.npy       each input as the op saw it (logical values)
//   reference_<i>.npy      each reference output, as compared (a cpu64
//                          reference cast to the run's dtype)
//   actual_<i>.npy         each output of the failing run
//   worst_elements.txt     the ~10 worst elements of the first differing
//                          output: index, expected, actual, abs and rel diff
//   seeds.txt              where each input's numbers came from (seed, fill,
//                          values or file), the reference kind, the rerun
#pragma once

#include <ATen/core/Tensor.h>

#include <filesystem>
#include <string>
#include <vector>

#include "casebook/backend.h"
#include "compare/compare.h"
#include "runner/judge.h"
#include "runner/plan.h"

namespace casebook {

// How many elements worst_elements.txt lists.
constexpr int64_t kWorstElementCount = 10;

// The folder of one (case, backend) under `root`: "<case id>.<backend>", the
// id escaped reversibly (escaped_file_name: "cross_entropy/label-4" on cuda
// is "cross_entropy%2Flabel-4.cuda"), so that two cases never share one
// ("a/b" and "a_b" did).
std::filesystem::path evidence_folder(const std::filesystem::path& root,
                                      const std::string& case_id,
                                      Backend backend);
std::string evidence_folder_name(const std::string& case_id, Backend backend);

// Writes the evidence folder (replacing an older one of the same run; no
// link followed, files/file_writer.h) and returns its path as text, with
// what was left out over the evidence limits (casebook/limits.h) in
// parentheses; a folder that cannot be written yields "not written: <why>"
// instead: evidence never turns a verdict into a crash. `total_written`
// counts the bytes of the whole run's evidence (null: this one alone).
std::string write_mismatch_evidence(const std::filesystem::path& root,
                                    const PlannedCase& planned, Backend backend,
                                    const MismatchEvidence& mismatch,
                                    uint64_t* total_written = nullptr);

// The run's evidence listener (registered by execute_plan when
// RunOptions::evidence_root is set): a judgement with a failing mismatch gets
// its folder written under `root` (write_mismatch_evidence) and named in
// CaseVerdict::evidence_dir, before the verdict is fit to show, so that the
// table, JUnit and the summary name it; any other judgement is left alone.
JudgementListener evidence_listener(const std::filesystem::path& root);

// The worst-elements table of one output pair (same shape), worst first:
// elements outside the tolerance before those inside, then by absolute
// difference (NaN ranks as infinite).
std::string worst_elements_text(const at::Tensor& expected,
                                const at::Tensor& actual,
                                const Tolerance& tolerance, int64_t count);

}  // namespace casebook
