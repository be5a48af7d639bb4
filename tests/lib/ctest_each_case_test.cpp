// A ctest test per case file (issue 34, part 7): `ctest -R label_4` runs
// that case and no other, and a case file added later is picked up by the
// build with no CMake edit. The whole ctest runs the folder once, in its
// batch test, and each file's test shows what the batch kept for it (issue
// 47, item 3). A project of its own, configured with
// cmake/CasebookAddCases.cmake and this build's casebook.
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

// A hand-written expected value that is wrong: FAIL, a mismatch.
constexpr const char* kWrongValue =
    "casebook: 1\n"
    "summary: a wrong stated value\n"
    "op: torch.add\n"
    "backends: [cpu]\n"
    "inputs:\n"
    "  input: {dtype: float32, values: [1, 2]}\n"
    "  other: {dtype: float32, values: [3, 4]}\n"
    "expect:\n"
    "  cpu: {outputs: {0: {dtype: float32, values: [4, 7]}}}\n";

constexpr const char* kCase =
    "casebook: 1\n"
    "summary: valid labels\n"
    "op: torch.cross_entropy\n"
    "backends: [cpu]\n"
    "inputs:\n"
    "  input:  {shape: [2, 4], dtype: float32, fill: {full: 0.5}}\n"
    "  target: {dtype: int64, values: [0, 3]}\n";

TEST(CtestEachCase, ARegexSelectsOneCaseFileAndNewFilesArePickedUp) {
  TempFolder project;
  const fs::path source = project.path() / "source";
  const fs::path build = project.path() / "build";
  fs::create_directories(source / "cases" / "ce");
  std::ofstream(source / "cases" / "ce" / "label_4.yaml") << kCase;
  std::ofstream(source / "cases" / "ce" / "label_40.yaml") << kCase;
  std::ofstream(source / "cases" / "ce" / "other.yaml") << kCase;
  std::ofstream(source / "cases" / "ce" / "wrong.yaml") << kWrongValue;
  std::ofstream(source / "CMakeLists.txt")
      << "cmake_minimum_required(VERSION 3.22)\n"
         "project(each_case NONE)\n"
         "enable_testing()\n"
         "add_executable(casebook::casebook IMPORTED)\n"
         "set_target_properties(casebook::casebook PROPERTIES "
         "IMPORTED_LOCATION \"" CASEBOOK_EXECUTABLE
         "\")\n"
         "include(\"" CASEBOOK_SOURCE_DIR
         "/cmake/CasebookAddCases.cmake\")\n"
         "casebook_add_cases(DIRECTORY cases BACKENDS cpu cuda EACH_CASE ON)\n";
  const auto configure = run_shell("cmake -S '" + source.string() + "' -B '" +
                                   build.string() + "' -G Ninja");
  ASSERT_EQ(configure.status, 0) << configure.output;
  const auto listed = run_shell("ctest --test-dir '" + build.string() + "' -N");
  EXPECT_TRUE(has_line(listed.output, "Test +#[0-9]+: cases\\.cpu/ce/label_4$"))
      << listed.output;
  EXPECT_TRUE(has_line(listed.output, "Test +#[0-9]+: cases\\.cuda$"))
      << listed.output;
  EXPECT_FALSE(has_line(listed.output, "cases\\.cpu$")) << listed.output;

  // The whole ctest: the batch runs the folder once and passes; each file's
  // test shows its record (no LibTorch start: no gtest lines) and fails or
  // passes by it; every record is read once.
  const auto all = run_shell("ctest --test-dir '" + build.string() +
                             "' -j2 --output-on-failure");
  EXPECT_NE(all.status, 0) << all.output;
  EXPECT_TRUE(has_line(all.output, "cases\\.cpu\\.batch .*Passed"))
      << all.output;
  EXPECT_TRUE(has_line(all.output, "cases\\.cpu/ce/other .*Passed"))
      << all.output;
  EXPECT_TRUE(has_line(all.output, "cases\\.cpu/ce/wrong .*Failed"))
      << all.output;
  EXPECT_TRUE(has_line(all.output, "^FAIL +ce/wrong +cpu$")) << all.output;
  EXPECT_TRUE(has_line(all.output, "mismatch: output 0: mismatched elements"))
      << all.output;
  EXPECT_FALSE(has_line(all.output, "\\[ RUN +\\] ce_wrong")) << all.output;
  EXPECT_TRUE(has_line(all.output, " 1 tests failed out of 6$")) << all.output;
  const auto left = run_shell("find '" + build.string() +
                              "/casebook-records' -name '*.record'");
  EXPECT_EQ(left.output, "") << left.output;

  const auto one = run_shell("ctest --test-dir '" + build.string() +
                             "' -R 'label_4$' --output-on-failure");
  EXPECT_EQ(one.status, 0) << one.output;
  EXPECT_TRUE(has_line(one.output, "^100% tests passed.* out of 1$"))
      << one.output;
  // Run as one case of the folder: its id is the folder's, not the file's.
  EXPECT_TRUE(has_line(one.output, "cases\\.cpu/ce/label_4 .*Passed"))
      << one.output;

  // A new file: the build re-globs (CONFIGURE_DEPENDS), no CMake edit.
  std::ofstream(source / "cases" / "ce" / "label_5.yaml") << kCase;
  const auto rebuilt = run_shell("cmake --build '" + build.string() + "'");
  ASSERT_EQ(rebuilt.status, 0) << rebuilt.output;
  const auto again =
      run_shell("ctest --test-dir '" + build.string() + "' -R 'label_5$'");
  EXPECT_EQ(again.status, 0) << again.output;
  EXPECT_TRUE(has_line(again.output, "out of 1$")) << again.output;
}

}  // namespace
}  // namespace casebook
