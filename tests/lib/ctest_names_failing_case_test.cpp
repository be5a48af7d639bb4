// Issue 23: plain `ctest` (no --output-on-failure) names the case that
// failed and its file:line, not only `cases.cpu ... Failed`. A project of
// its own in a temporary folder, set up as cases/CMakeLists.txt sets up
// casebook's (casebook_ctest_failures_hook(), a ctest test running
// `casebook test` over a folder), is configured and tested with the cmake
// and ctest on PATH.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "run_command.h"

namespace casebook {
namespace {

namespace fs = std::filesystem;
using testing_support::has_line;
using testing_support::run_shell;
using testing_support::TempFolder;
using testing_support::write_file;

TEST(CtestNamesFailingCase, PlainCtestPrintsTheFailedRunsWithFileAndLine) {
  TempFolder folder;
  const fs::path cases = folder.path() / "cases";
  const fs::path data = fs::path(CASEBOOK_TEST_DATA) / "e2e";
  fs::create_directories(cases);
  // wrong_family expects a device assert where the CPU raises an index
  // error: FAIL, decided by its `expect` entry on line 9.
  fs::copy_file(data / "wrong_family.yaml", cases / "wrong_family.yaml");
  fs::copy_file(data / "valid_labels.yaml", cases / "valid_labels.yaml");
  write_file(folder.path() / "project" / "CMakeLists.txt",
             "cmake_minimum_required(VERSION 3.22)\n"
             "project(ctest_failures NONE)\n"
             "enable_testing()\n"
             "include(\"" CASEBOOK_SOURCE_DIR
             "/cmake/CasebookCtestFailures.cmake\")\n"
             "casebook_ctest_failures_hook()\n"
             "add_test(NAME cases.cpu COMMAND \"" CASEBOOK_EXECUTABLE
             "\" test --backend cpu \"" +
                 cases.string() + "\")\n");
  const std::string build = (folder.path() / "build").string();
  const auto configured =
      run_shell("cmake -S '" + (folder.path() / "project").string() + "' -B '" +
                build + "'");
  ASSERT_EQ(configured.status, 0) << configured.output;
  const auto tested = run_shell(
      "env -u CTEST_OUTPUT_ON_FAILURE ctest --test-dir '" + build + "'");
  EXPECT_EQ(tested.status, 8) << tested.output;  // ctest: a test failed
  EXPECT_TRUE(has_line(tested.output, "^casebook: the runs that did not pass"))
      << tested.output;
  EXPECT_TRUE(has_line(tested.output,
                       "^  cases\\.cpu: FAIL wrong_family cpu "
                       "\\(index_out_of_range\\) at " +
                           cases.string() + "/wrong_family\\.yaml:9$"))
      << tested.output;
  EXPECT_TRUE(has_line(tested.output,
                       "^  cases\\.cpu:   rerun: .*casebook run .*"
                       "wrong_family\\.yaml --backend cpu"))
      << tested.output;
  EXPECT_FALSE(has_line(tested.output, "valid_labels")) << tested.output;
}

}  // namespace
}  // namespace casebook
