// What `casebook capture` and `casebook accept` learn by running a case:
// each run's verdict and family (from the JSON results of a `casebook run`
// in a fresh process, runner/json_results.h), whether that is the failure the
// case's `origin.first_error` reported, and the `expect` that turns a
// reproduced failure into a regression case.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "casebook/backend.h"
#include "casebook/case.h"
#include "casebook/family.h"
#include "casebook/runner.h"
#include "casebook/verdict.h"

namespace casebook {

// One (case, backend) run as `casebook run` judged it.
struct JudgedRun {
  Backend backend = Backend::kCpu;
  Verdict verdict = Verdict::kPass;
  Family family = Family::kNone;
  std::string message;  // its first message, without the verdict label
};

struct CaseRun {
  int status = 2;                    // `casebook run`'s exit status
  std::vector<std::string> invalid;  // invalid_case messages, each once
  std::vector<JudgedRun> outcomes;   // the base case's runs, by backend
};

// `casebook run` on `case_file` in a fresh process of this executable (the
// caller may hold threads; the runner must not fork from it), its output
// shown; its JSON results read back, from a temporary folder or, where
// `keep_results` names a file, from that file, which stays.
CaseRun run_case(const std::filesystem::path& case_file,
                 const std::string& backends,
                 const std::filesystem::path& keep_results = {});

// The runs of case `id` (nullopt: of every case) in a run's results.
std::vector<JudgedRun> judged_runs(const RunSummary& results,
                                   const std::optional<std::string>& id);

// Whether the case's runs reproduce the failure of its origin.
struct Reproduction {
  enum class Kind {
    kReproduced,  // the same family (and key) on the origin's backend
    kDiffers,     // it fails, otherwise than the origin says
    kPasses,      // every run that ran passed
    kUnknown,     // it fails; no origin.first_error to compare with
    kNotRun,      // no run ran (every backend absent)
  };
  Kind kind = Kind::kNotRun;
  std::string sentence;  // what to print, one or more lines
  // What `accept` writes: each backend's family, where it was seen (or, for
  // the origin's backend absent here, where the origin saw it).
  std::vector<std::pair<Backend, Family>> expect;
  std::vector<Backend> ran;  // the backends that ran here
};
Reproduction judge_reproduction(const Origin& origin, const CaseRun& run);

// Why the case file cannot take an acceptance (it says `expect` or
// `backends` already: a person's decision, not overwritten); empty when it
// can. Asked before anything runs.
std::string acceptance_refusal(const std::filesystem::path& case_file);

// Appends `expect` (and `backends`, narrowed to those with an expectation,
// where a backend of the case has none) to the case file: a GPU backend of
// the case that did not run here expects what the CPU's failure implies
// there (index_out_of_range on the CPU is device_assert on cuda and hip).
// Refuses, saying why in `why`, a case that is not reproduced or whose file
// already says `expect` or `backends` (edit those by hand). Prints what it
// wrote.
bool write_acceptance(const std::filesystem::path& case_file, const Case& kase,
                      const Reproduction& reproduction, std::string* why);

}  // namespace casebook
