// The `casebook` command line. Exit status: 0 when every verdict is PASS,
// XFAIL or SKIP; 1 when any is FAIL, XPASS, ERROR, TIMEOUT or NOT RUN; 2 for
// a usage or configuration error.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "casebook/runner.h"

namespace casebook {

constexpr int kExitUsage = 2;
// A file the command was asked to write (a results file, a case, a report)
// or its standard output could not be written: said last, exit 2.
constexpr int kExitNotWritten = 2;
// `run` and `test`: every selected run was SKIP (an absent backend, a
// `skip` expectation) or none was left to run (an empty shard, no case on
// the backends asked for): nothing was tested. ctest's SKIP_RETURN_CODE
// for the cases.* lanes (cases.cuda and cases.hip without a GPU);
// --allow-skipped makes it 0.
constexpr int kExitNothingRan = 77;

struct CommonArguments {
  std::vector<std::string> paths;  // default: cases/
  std::string backends = "cpu,cuda,hip";
  std::vector<std::string> filters;   // --filter, any of them
  std::vector<std::string> excludes;  // --exclude, none of them
  std::string case_id;                // --id: exactly this case id
  // --allow-skipped: exit 0, not kExitNothingRan, when nothing was tested.
  bool allow_skipped = false;
  int jobs = 0;
  std::string isolation = "pooled";
  // Backends that must run (a list like `backends`), joined with those of
  // $CASEBOOK_REQUIRE: absent is then an error.
  std::string require;
  // --shard I/N: this machine's share of the cases (by id, stable).
  std::string shard;
  // run and test: the root of the evidence folders of failing mismatches;
  // empty: none written.
  std::string evidence = "casebook-evidence";
  // Take linked case files and folders that resolve outside the folders
  // named (refused otherwise: a merge request's link).
  bool allow_links_outside = false;
};

// "I/N" (0 <= I < N) into a shard; false for anything else.
bool parse_shard(const std::string& text, int* index, int* count);

// Parses the common arguments into run options; false (with a message on
// stderr) for a usage error.
bool to_run_options(const CommonArguments& arguments, RunOptions* options,
                    std::vector<std::filesystem::path>* paths);

// What `casebook run` writes besides its exit status.
struct RunOutput {
  std::string junit;     // JUnit XML, written as results arrive
  std::string summary;   // Markdown summary ($GITHUB_STEP_SUMMARY)
  std::string json;      // the results as data (runner/json_results.h)
  bool details = true;   // failure blocks with details (false: --brief)
  bool verbose = false;  // a line per case and backend, absent ones too
  bool quiet = false;    // no progress, no table: failures and counts
  // --last-failed: only the runs that failed when last run (cli/last_failed.h)
  bool last_failed = false;
  bool fail_fast = false;  // --fail-fast: RunOptions::fail_fast
  bool table = false;      // --table: a row per case however many
  int durations = 0;       // --durations N: the N slowest runs, listed
  // --ctest-records DIR: each case file's result kept for its ctest test
  // (cli/ctest_records.h); the exit status then says only whether they
  // were written.
  std::string ctest_records;
};

// The exit status of `command` ("casebook run") for `summary`: its own (0 or
// 1), or kExitNothingRan, said on stderr, where every selected run was SKIP
// or none ran, unless `allow_skipped`.
int exit_status_of(const RunSummary& summary, bool allow_skipped,
                   const char* command);

int run_command(const CommonArguments& arguments, const RunOutput& output);
int list_command(const CommonArguments& arguments);
// Loads and checks every case file without running anything; prints every
// problem; exit 1 when any file is invalid.
int check_command(const CommonArguments& arguments);
// gtest mode: each case x backend is a gtest test; `gtest_arguments` are
// passed to InitGoogleTest (--gtest_filter, --gtest_output=xml:...).
int test_command(const CommonArguments& arguments,
                 std::vector<std::string> gtest_arguments);
int explain_command(const std::string& family);

// `casebook ops [GLOB]`: every op a case can name whose name matches GLOB
// (`softmax`, `torch.soft*`, `aten::*_`, `kernels.*`): casebook's registered
// ops (torch.*, kernels.*, validate.*, a downstream program's), then every
// operator of the running LibTorch, each overload with its schema. 1 when
// none matches.
int ops_command(const std::string& glob, bool as_json = false);
// What a registered op is, by its name's family ("a kernel of kernels/"):
// what `ops` lists beside it and `new` writes above it.
std::string registered_kind(const std::string& name);
// `casebook new OP NAME`: writes cases/NAME.yaml (NAME.yaml where NAME ends
// in .yaml) for any op `ops` lists: from a registered op's inputs and
// argument names, else from OP's schema (inputs with TODO shapes, args with
// their defaults). Never overwrites a file.
int new_command(const std::string& op, const std::string& name);
// `casebook new --from-json FILE...`: each FILE (ending in .json), a case
// described in JSON by a program (JSON is YAML's flow style: the loader reads
// it as any case file, errors at file:line:col), written beside it as the
// case file of the same name ending in .yaml by case_to_yaml, with the
// schema modeline; never over a file. Each file is tried; 0 when every one
// was written, 1 when any was not.
int new_from_json_command(const std::vector<std::string>& files);
// The text `new` writes; empty, with the reason in `error`, for an op the
// running LibTorch does not have.
std::string case_skeleton(const std::string& op, std::string* error);

// The case file a CASE argument names: an existing file, else a case id (or
// path without .yaml) under cases/. False, with a message on stderr, when
// none matches.
bool resolve_case_argument(const std::string& argument,
                           std::filesystem::path* file);

// Reruns one case in fresh processes, changing one thing at a time (launch
// blocking, the CPU, float32, float64, contiguous inputs, compute-sanitizer
// memcheck), and prints which change altered the outcome. `backend` empty:
// the first GPU backend of the case that is present, else the CPU.
int diagnose_command(const std::string& kase, const std::string& backend);

// Runs one case file (its declared neighbours too) on `backend` (empty:
// every backend) and writes a scrubbed Markdown request for a targeted
// analysis of one run to `output` (empty: stdout): the first that FAILed,
// ERRORed, XPASSed or timed out, else the first expected error, never a
// SKIP of an absent backend, never casebook's own "cannot be derived"
// ERROR. `id` not empty: only that case (or neighbour) of the file (`kase`
// empty: the file of that id under cases/). `bundle` not empty: that folder
// also gets the case file the report carries, its fixtures, the Python
// reproduction and the report. 2 (kExitUsage) for a case file that does not
// load or an id it does not have; 1 when nothing ran or the bundle cannot be
// written.
int report_command(const std::string& kase, const std::string& id,
                   const std::string& backend, const std::string& output,
                   const std::string& bundle);

// Runs one case on `backend` (empty: cpu) in a child and prints each output:
// shape, dtype, strides, statistics, values (the first 64, all with `full`).
// `write_expected` appends them to the case file as `outputs` (a .npy fixture
// with its sha256 past 64 elements).
int show_command(const std::string& kase, const std::string& backend, bool full,
                 bool write_expected);

// Where ctest's resource allocation gave this test a GPU, make it the only
// one the children see (CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES).
void apply_ctest_gpu_allocation();

// `casebook capture` (issue 14): saved tensors (.pt, .npy, .safetensors) into
// <cases>/<op>/<name>.yaml and content-named fixtures, then the new case run
// on `backends`. 0 when written (1 with expect_failure when every verdict is
// PASS, or when the new case does not run); 2 for bad input.
struct CaptureArguments {
  std::string op, name, cases = "cases", fixtures, summary;
  std::string results_json;  // --json: the run's results kept as FILE
  std::vector<std::string> tensors, args, origin;
  std::string backends = "cpu,cuda,hip";
  bool expect_failure = false;
  bool no_run = false;
  bool accept = false;  // a reproduced failure written as the case's expect
  // A case that does not reproduce its failure kept (else removed).
  bool keep_unreproduced = false;
};
int capture_command(const CaptureArguments& arguments);

// `casebook accept CASE`: runs the case; when its failure is the one its
// origin.first_error reported, writes it into the case as its `expect`
// (cli/capture_run.h). 0 when written, 1 when not reproduced or refused.
int accept_command(const std::string& kase, const std::string& backends);

// `casebook neighbors CASE`: the neighbouring cases every rule can generate
// for CASE (casebook/neighbors.h), one per line with its expected outcome,
// then the rules that do not apply and why. `write_folder` not empty: the
// chosen ones (`select`: ids, `<rule>[<param>]`, rules or globs; empty:
// all) become ordinary case files there. 0 when listed (and written); 1 when
// the case does not load or a chosen neighbour cannot be written.
int neighbors_command(const std::string& kase, const std::string& write_folder,
                      const std::vector<std::string>& select);

int main_entry(int argc, char** argv);

}  // namespace casebook
