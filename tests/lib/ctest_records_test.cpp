// `casebook run --ctest-records DIR` (issue 47, item 3): the batch test of
// casebook_add_cases keeps each case file's verdicts for that file's own
// ctest test, at the file's path under the folder run; the run then exits 0
// whatever the verdicts, and the records of an earlier run do not outlive it.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "run_command.h"

namespace casebook {
namespace {

namespace fs = std::filesystem;
using testing_support::casebook_in;
using testing_support::CommandResult;
using testing_support::has_line;
using testing_support::read_text;
using testing_support::run_shell;
using testing_support::TempFolder;
using testing_support::write_file;

TEST(CtestRecords, EachFileKeepsItsStatusAndFailureBlockUnderItsPath) {
  TempFolder folder;
  write_file(folder.path() / "cases/a/good.yaml",
             "casebook: 1\nsummary: s\nop: torch.neg\nbackends: [cpu]\n"
             "inputs:\n  input: {dtype: float32, values: [1, 2]}\n");
  write_file(folder.path() / "cases/bad.yaml",
             "casebook: 1\nsummary: s\nop: torch.neg\nbackends: [cpu]\n"
             "inputs:\n  input: {dtype: float32, values: [1, 2]}\n"
             "expect:\n  cpu: {outputs: {0: {dtype: float32, values: [-1, "
             "-3]}}}\n");
  // A record an earlier run left: gone once this run has kept its own.
  write_file(folder.path() / "records/gone.yaml.record", "0\n");
  const CommandResult run = casebook_in(
      folder.path(),
      "run --backend cpu --quiet --evidence '' --ctest-records records "
      "--junit new/folder/out.xml cases");
  EXPECT_EQ(run.status, 0) << run.output;
  EXPECT_TRUE(has_line(run.output, "^1 PASS, 1 FAIL \\(2 runs\\)$"))
      << run.output;
  const std::string good =
      read_text(folder.path() / "records/a/good.yaml.record");
  EXPECT_EQ(good.substr(0, 2), "0\n") << good;
  EXPECT_TRUE(has_line(good, "^PASS +a/good +cpu")) << good;
  const std::string bad = read_text(folder.path() / "records/bad.yaml.record");
  EXPECT_EQ(bad.substr(0, 2), "1\n") << bad;
  EXPECT_TRUE(has_line(bad, "^FAIL +bad +cpu$")) << bad;
  EXPECT_TRUE(has_line(bad, "mismatch: output 0: mismatched elements")) << bad;
  EXPECT_FALSE(fs::exists(folder.path() / "records/gone.yaml.record"));
  // JUnit's folders are made, as every output file's.
  EXPECT_TRUE(fs::is_regular_file(folder.path() / "new/folder/out.xml"));
}

TEST(CtestRecords, TheyNeedOneFolderOfCases) {
  TempFolder folder;
  write_file(folder.path() / "cases/one.yaml",
             "casebook: 1\nsummary: s\nop: torch.neg\nbackends: [cpu]\n"
             "inputs:\n  input: {dtype: float32, values: [1]}\n");
  const CommandResult run =
      casebook_in(folder.path(),
                  "run --backend cpu --ctest-records records cases/one.yaml");
  EXPECT_EQ(run.status, 2) << run.output;
  EXPECT_TRUE(has_line(run.output,
                       "^casebook run: --ctest-records: name one folder of "
                       "cases$"))
      << run.output;
}

}  // namespace
}  // namespace casebook
