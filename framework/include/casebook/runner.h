// Running cases: every case file on every backend asked for, each run in a
// process of its own, and a verdict per case and backend that rests on the
// outputs (docs/architecture.md has the process model).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "casebook/backend.h"
#include "casebook/family.h"
#include "casebook/verdict.h"

namespace casebook {

class OpRegistry;

enum class Isolation {
  kPooled,  // CPU: a fork per run; GPU: a worker per backend, replaced when
            // poisoned
  kStrict,  // every run, GPU ones too, in a fresh process
};

struct RunOptions {
  std::vector<Backend> backends = {Backend::kCpu, Backend::kCuda,
                                   Backend::kHip};
  // --filter: patterns on "<case id>", "<case id>/<backend>" or the case
  // file's path (a glob; a plain word: a part of the id). A run is selected
  // when it matches any of them; none given: every run.
  std::vector<std::string> filters;
  // --exclude: the same patterns; a run that matches any is never selected,
  // whatever `filters` say.
  std::vector<std::string> excludes;
  // Exactly this case id (a base case without its neighbours, or one
  // neighbour); empty: any. What a rerun line selects with `--id`.
  std::string case_id;
  int jobs = 0;  // parallel CPU runs; 0: the number of cores
  Isolation isolation = Isolation::kPooled;
  // Backends among `backends` that must run: absent is then an ERROR for each
  // of their runs (--require, $CASEBOOK_REQUIRE); broken always is.
  std::vector<Backend> required;
  // This machine's share of the cases, for runs spread over several machines
  // (--shard I/N, GoogleTest's GTEST_SHARD_INDEX / GTEST_TOTAL_SHARDS): the
  // cases whose id hashes to shard_index modulo shard_count. By id, so a
  // case stays on its shard as other cases come and go.
  int shard_index = 0;
  int shard_count = 1;
  const OpRegistry* registry = nullptr;  // null: default_registry()
  // Failing mismatches write their inputs, reference, actual outputs and
  // worst elements to a folder under this root; empty: no evidence folders.
  std::filesystem::path evidence_root;
  // Set in every child (setenv after fork, before the backend is opened):
  // `casebook diagnose` reruns with CUDA_LAUNCH_BLOCKING=1 and the like.
  std::vector<std::pair<std::string, std::string>> child_environment;
  // --fail-fast: the first verdict that is not a success (FAIL, XPASS,
  // ERROR, TIMEOUT, INTERNAL) stops the run: children are ended, and every
  // selected run not judged yet is NOT RUN.
  bool fail_fast = false;
  // Linked case files and folders resolving outside the folders named are
  // taken (refused otherwise: each an ERROR, invalid_case).
  bool allow_links_outside = false;
  // CPU runs' children are forked by a fork server, not by the runner (the
  // runner's own memory map made each fork cost it ~4 ms); false only to
  // measure what that saves (bench/).
  bool cpu_fork_server = true;
};

struct CaseVerdict {
  std::string case_id;
  Backend backend = Backend::kCpu;
  Verdict verdict = Verdict::kNotRun;
  Family family = Family::kNone;
  // One line, what the table, JUnit and gtest print: verdict_message() of
  // the fields below, made printable and bounded (casebook/printable.h).
  std::string message;
  // The judge's own sentence: the first error, or why ("expected
  // device_assert, got outputs"); XFAIL and XPASS say it from the fields.
  std::string explanation;
  // The case author's reason for the expected outcome (`xfail`, `skip`);
  // empty where the expectation gives none.
  std::string expectation_reason;
  // What the run showed, first line only: its first error (an expected one
  // too), or a failing mismatch's first line; empty where it showed neither
  // (outputs that passed, or outputs where an error was expected).
  std::string first_error;
  std::vector<std::string> consequences;  // later errors: possible consequences
  std::string details;                    // mismatch report, advice, evidence
  // A case of `steps` whose run failed: where, "raised at step 3
  // (`aten::item`), launched by step 1 (`aten::index_select`)" (the
  // launching step from a rerun that synchronised after every step; GPU
  // backends only). Empty otherwise. The message ends with it too.
  std::string step_location;
  // The name of that step (where it raised; not the launching one): what
  // "the same failure" compares (SeenFailure::step). Empty otherwise.
  std::string failing_step;
  // A failing mismatch's evidence folder (runner/evidence.h), or
  // "not written (<folder>): <why>"; empty: none written.
  std::string evidence_dir;
  // A GPU run whose first attempt poisoned its worker, rerun alone in a
  // fresh process; confirmed when that rerun poisoned its process too
  // (not a verdict: a case that expects device_assert PASSes by poisoning).
  bool poisoned_worker = false;
  bool poison_confirmed = false;
  std::string rerun_command;
  // SKIP because the backend is absent (no device, no runtime): the reason is
  // the backend's, shown once for the run rather than on every line.
  bool backend_absent = false;
  std::filesystem::path file;
  // The line of `file` that decided the verdict: the backend's `expect`
  // entry, else the first `outputs` entry, else `op`; for a file that does
  // not load, its first error's. 0: none known. Where gtest places a failure.
  int line = 0;
  double seconds = 0.0;
};

// CaseVerdict::message from its fields: the explanation, or for XFAIL
// "<reason> (<first error>)" and for XPASS "expected to fail (<reason>) but
// passed: ..."; then "; evidence: <folder>" and " (<step location>)" where
// there are such. Not yet printable or bounded.
std::string verdict_message(const CaseVerdict& verdict);

struct RunSummary {
  std::vector<CaseVerdict> verdicts;  // case order, then cpu, cuda, hip
  bool interrupted = false;
  std::map<Verdict, int> counts() const;
  int exit_code() const;  // 0 all PASS/XFAIL/SKIP, else 1
};

// Whether the case `case_id` belongs to shard `index` of `count` (FNV-1a of
// the id, modulo count); every case belongs to shard 0 of 1.
bool in_shard(const std::string& case_id, int index, int count);

// Loads the case files under `paths` and runs them. Bad case files become
// ERROR verdicts for those cases alone; everything else still runs.
RunSummary run_cases(const std::vector<std::filesystem::path>& paths,
                     const RunOptions& options);

}  // namespace casebook
