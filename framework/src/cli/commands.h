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

// Where ctest's resource allocation gave this test a GPU, make it the only
// one the children see (CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES).
void apply_ctest_gpu_allocation();

int main_entry(int argc, char** argv);

}  // namespace casebook
