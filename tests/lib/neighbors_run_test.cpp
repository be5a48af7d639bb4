// Declared neighbours end to end, through the casebook executable: each a
// run of its own in `run`, `test` (ctest's gtest mode) and JUnit, with its
// own verdict and a rerun line that selects it alone; a neighbour whose
// outcome cannot be derived is an ERROR saying so; a rule that does not
// apply is its file's error and nothing else's; `casebook neighbors` lists
// and writes them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "run_command.h"

namespace {

namespace fs = std::filesystem;

using casebook::testing_support::has_line;
using casebook::testing_support::read_text;
using casebook::testing_support::run_casebook;
using NeighborsRunResult = casebook::testing_support::CommandResult;

const std::string kNeighborsRunFolder = "tests/data/neighbors";
// Ids are the paths under the folder the run names.
const std::string kPath = "tests/data/neighbors/";  // files, as the run names

fs::path scratch(const std::string& name) {
  return fs::temp_directory_path() /
         ("casebook-neighbors-" + name + "-" + std::to_string(getpid()));
}

TEST(NeighborsRun, EachDeclaredNeighbourIsARunWithItsOwnVerdict) {
  const fs::path junit = scratch("junit.xml");
  NeighborsRunResult run = run_casebook(
      "run --verbose " + kNeighborsRunFolder +
      " --backend cpu -j 2 --evidence '' --junit " + junit.string());
  EXPECT_EQ(run.status, 1) << run.output;
  const std::string& out = run.output;
  // The label limits of a failing case: the limits match, C and -1 fail with
  // the base case's family, every label ignored gives NaN.
  for (const char* param :
       {"0", "C-1", "C", "-1", "ignore_index", "all_ignored"}) {
    EXPECT_TRUE(has_line(out, std::string("^PASS +labels~label_limits\\[") +
                                  param + "\\] +cpu$"))
        << param << "\n"
        << out;
  }
  EXPECT_TRUE(has_line(out, "^PASS +labels +cpu$")) << out;
  // Not derivable: said, not guessed; the other neighbours still pass.
  EXPECT_TRUE(has_line(
      out,
      "^ERROR +valid_labels~label_limits\\[C\\] +cpu +invalid_case: the "
      "expected outcome of valid_labels~label_limits\\[C\\] on cpu cannot be "
      "derived: "
      "the base case expects a match on cpu, so the family of a "
      "label outside \\[0, C\\) there is not known: declare it in "
      "`neighbors\\.label_limits\\.errors\\.cpu`$"))
      << out;
  EXPECT_TRUE(has_line(out, "^PASS +valid_labels~label_limits\\[C-1\\] +cpu$"))
      << out;
  // A rule that does not apply: the file's error at its line, alone.
  EXPECT_TRUE(has_line(
      out, "^ERROR +not_applicable +cpu +invalid_case: " + kPath +
               "not_applicable\\.yaml:8:3: `neighbors\\.block_boundaries`: "
               "`block_boundaries` does not apply: op `torch\\.add` declares "
               "no block size"))
      << out;
  EXPECT_TRUE(has_line(out, "^PASS +plain +cpu$")) << out;
  EXPECT_TRUE(has_line(out, "^13 PASS, 3 ERROR \\(16 runs\\)$")) << out;
  // Its rerun line selects the neighbour alone, by exact id.
  EXPECT_TRUE(
      has_line(out, "rerun: \\S*casebook run " + kPath +
                        "valid_labels\\.yaml --backend cpu --isolation "
                        "pooled --id 'valid_labels~label_limits\\[C\\]'$"))
      << out;
  // A JUnit entry of its own.
  const std::string xml = read_text(junit);
  fs::remove(junit);
  EXPECT_NE(xml.find("<testcase classname=\"labels~label_limits[all_ignored]\" "
                     "name=\"cpu\""),
            std::string::npos)
      << xml;
}

// The rerun lines the runner prints, pasted: each runs its own case alone.
// A --filter word would match as a substring, and the base case's id is in
// every neighbour's: `--id` is exact.
TEST(NeighborsRun, TheRerunLineRunsThatNeighbourAlone) {
  NeighborsRunResult one =
      run_casebook("run --verbose " + kNeighborsRunFolder +
                   "/valid_labels.yaml --backend cpu --evidence '' "
                   "--id 'valid_labels~label_limits[C-1]'");
  EXPECT_EQ(one.status, 0) << one.output;
  EXPECT_TRUE(has_line(one.output, "^1 PASS \\(1 runs\\)$")) << one.output;
}

TEST(NeighborsRun, TheBaseCasesRerunLineRunsItWithoutItsNeighbours) {
  NeighborsRunResult all =
      run_casebook("run " + kNeighborsRunFolder +
                   "/labels.yaml --backend cpu --evidence ''");
  EXPECT_FALSE(has_line(all.output, "^1 PASS \\(1 runs\\)$")) << all.output;
  NeighborsRunResult base =
      run_casebook("run --verbose " + kNeighborsRunFolder +
                   "/labels.yaml --backend cpu --evidence '' --id labels");
  EXPECT_TRUE(has_line(base.output, "^\\S+ +labels +cpu")) << base.output;
  EXPECT_TRUE(has_line(base.output, "\\(1 runs\\)$")) << base.output;
}

TEST(NeighborsRun, GtestModeRegistersEachNeighbour) {
  NeighborsRunResult run =
      run_casebook("test " + kNeighborsRunFolder +
                   "/labels.yaml --backend cpu --evidence ''");
  EXPECT_EQ(run.status, 0) << run.output;
  EXPECT_TRUE(
      has_line(run.output, "^\\[       OK \\] labels_label_limits_C_\\.cpu"))
      << run.output;
  EXPECT_TRUE(has_line(run.output, "^\\[  PASSED  \\] 7 tests\\.$"))
      << run.output;
}

TEST(NeighborsCommand, ListsEveryApplicableNeighbourWithItsOutcome) {
  NeighborsRunResult list =
      run_casebook("neighbors " + kNeighborsRunFolder + "/labels.yaml");
  EXPECT_EQ(list.status, 0) << list.output;
  EXPECT_TRUE(has_line(list.output,
                       "^labels~label_limits\\[C\\]  expect: cpu: error "
                       "index_out_of_range; cuda: error device_assert; "
                       "hip: error device_assert  \\[target\\[0\\] = 4 "
                       "\\(one past the 4 classes\\)\\]$"))
      << list.output;
  EXPECT_TRUE(has_line(list.output,
                       "^labels~label_limits\\[all_ignored\\]"
                       "  expect: match; outputs 0: nan  "))
      << list.output;
  EXPECT_TRUE(has_line(list.output,
                       "^labels~dtypes\\[float64\\]  expect: cpu: "
                       "error index_out_of_range;"))
      << list.output;
  EXPECT_TRUE(has_line(list.output,
                       "^  `last_batch` does not apply: needs `dataset_size` "
                       "and `batch_size`"))
      << list.output;
}

TEST(NeighborsCommand, WritesChosenNeighboursAsOrdinaryCases) {
  const fs::path folder = scratch("write");
  fs::remove_all(folder);
  NeighborsRunResult write =
      run_casebook("neighbors " + kNeighborsRunFolder +
                   "/labels.yaml --write " + folder.string() +
                   " --select 'label_limits[C]' --select "
                   "'layouts*'");
  EXPECT_EQ(write.status, 0) << write.output;
  const fs::path past = folder / "labels_label_limits_C.yaml";
  ASSERT_TRUE(fs::exists(past)) << write.output;
  const std::string text = read_text(past);
  EXPECT_EQ(text.find("\nneighbors:"), std::string::npos) << text;
  EXPECT_NE(text.find("target: {dtype: int64, shape: [3], values: [4, 2, 0]}"),
            std::string::npos)
      << text;
  EXPECT_TRUE(fs::exists(folder / "labels_layouts_transposed.yaml"))
      << write.output;
  // Ordinary cases: they run, and pass, as the generated ones do.
  NeighborsRunResult run =
      run_casebook("run " + folder.string() + " --backend cpu --evidence ''");
  EXPECT_EQ(run.status, 0) << run.output;
  EXPECT_TRUE(has_line(run.output, "^3 PASS \\(3 runs\\)$")) << run.output;
  // Never overwritten; never written without a derivable outcome.
  NeighborsRunResult again = run_casebook(
      "neighbors " + kNeighborsRunFolder + "/labels.yaml --write " +
      folder.string() + " --select 'label_limits[C]'");
  EXPECT_EQ(again.status, 1) << again.output;
  EXPECT_TRUE(has_line(again.output, "^not written: .* exists"))
      << again.output;
  NeighborsRunResult underivable = run_casebook(
      "neighbors " + kNeighborsRunFolder + "/valid_labels.yaml --write " +
      folder.string() + " --select 'label_limits[-1]'");
  EXPECT_EQ(underivable.status, 1) << underivable.output;
  EXPECT_TRUE(
      has_line(underivable.output,
               "^not written: valid_labels~label_limits\\[-1\\]: its expected "
               "outcome cannot be derived \\(cpu: the base case "
               "expects a match on cpu"))
      << underivable.output;
  fs::remove_all(folder);
}

}  // namespace
