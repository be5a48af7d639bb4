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

struct CommonArguments {
  std::vector<std::string> paths;  // default: cases/
  std::string backends = "cpu,cuda,hip";
  std::string filter;
  int jobs = 0;
  std::string isolation = "pooled";
  // run and test: the root of the evidence folders of failing mismatches;
  // empty: none written.
  std::string evidence = "casebook-evidence";
};

// Parses the common arguments into run options; false (with a message on
// stderr) for a usage error.
bool to_run_options(const CommonArguments& arguments, RunOptions* options,
                    std::vector<std::filesystem::path>* paths);

int run_command(const CommonArguments& arguments, const std::string& junit,
                bool verbose);
int list_command(const CommonArguments& arguments);
// gtest mode: each case x backend is a gtest test; `gtest_arguments` are
// passed to InitGoogleTest (--gtest_filter, --gtest_output=xml:...).
int test_command(const CommonArguments& arguments,
                 std::vector<std::string> gtest_arguments);
int explain_command(const std::string& family);

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

// Runs one case and writes a scrubbed Markdown request for a targeted
// analysis of the run on `backend` (empty: the first that does not PASS) to
// `output` (empty: stdout).
int report_command(const std::string& kase, const std::string& backend,
                   const std::string& output);

// Runs one case on `backend` (empty: cpu) in a child and prints each output:
// shape, dtype, strides, statistics, values (the first 64, all with `full`).
// `write_expected` appends them to the case file as `outputs` (a .npy fixture
// with its sha256 past 64 elements).
int show_command(const std::string& kase, const std::string& backend, bool full,
                 bool write_expected);

// Where ctest's resource allocation gave this test a GPU, make it the only
// one the children see (CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES).
void apply_ctest_gpu_allocation();

int main_entry(int argc, char** argv);

}  // namespace casebook
