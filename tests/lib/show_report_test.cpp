// `casebook show` prints what a run produced and writes it back as the
// case's expected outputs; `casebook report` says so when nothing fails,
// labels an XFAIL's reason as the author's expectation, and reports a failing
// neighbour with its own inputs and case file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "run_command.h"

namespace {

namespace fs = std::filesystem;
using casebook::testing_support::has_line;
using casebook::testing_support::read_text;
using casebook::testing_support::run_casebook;

class ShowAndReport : public testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("casebook-show-" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "fixtures");
  }
  void TearDown() override { fs::remove_all(root_); }

  fs::path write(const std::string& name, const std::string& text) {
    std::ofstream(root_ / name) << text;
    return root_ / name;
  }
  fs::path root_;
};

TEST_F(ShowAndReport, ShowPrintsShapeDtypeStridesStatisticsAndValues) {
  const auto run = run_casebook("show tests/data/expect/values_pass.yaml");
  EXPECT_EQ(run.status, 0) << run.output;
  EXPECT_TRUE(has_line(
      run.output, "^output 0: dtype float32, shape \\[\\], strides \\[\\]$"))
      << run.output;
  EXPECT_TRUE(has_line(run.output,
                       "^  elements 1, NaN 0, inf 0, min 3, max 3, mean 3$"))
      << run.output;
  EXPECT_TRUE(has_line(run.output, "^  values \\[3\\]$")) << run.output;
}

// What an op that counts reported, so that an author can write
// `processed` and `positions` from it.
TEST_F(ShowAndReport, ShowPrintsTheCountAndTheRejectedPositions) {
  const auto rejected = run_casebook(
      "show cases/validate/class_mapping_one_based_unshifted.yaml");
  EXPECT_EQ(rejected.status, 1) << rejected.output;
  EXPECT_TRUE(has_line(rejected.output, "^error \\(label_mapping\\): "))
      << rejected.output;
  EXPECT_TRUE(has_line(rejected.output,
                       "^processed: 4 entries, rejected positions \\[3\\]$"))
      << rejected.output;
  const auto counted =
      run_casebook("show cases/kernels/nll_loss/every_target_counted.yaml");
  EXPECT_EQ(counted.status, 0) << counted.output;
  EXPECT_TRUE(has_line(counted.output, "^processed: 5 entries$"))
      << counted.output;
}

// A run past the case's timeout is killed and said to be one, as in a run
// (the case: a 3000x3000 float64 matmul, seconds, with a 0.3 s timeout).
TEST_F(ShowAndReport, ShowStopsARunPastTheCasesTimeout) {
  const auto run = run_casebook("show tests/data/e2e/too_slow.yaml");
  EXPECT_EQ(run.status, 1) << run.output;
  EXPECT_TRUE(has_line(run.output,
                       "^error \\(timeout\\): no result after 0\\.3 s: "
                       "killed the run's process group$"))
      << run.output;
}

TEST_F(ShowAndReport, LargeOutputsAreElidedUnlessFull) {
  const fs::path file = write(
      "big.yaml",
      "casebook: 1\nsummary: s\nop: torch.softmax\nargs: {dim: 0}\n"
      "inputs:\n  input: {dtype: float32, shape: [100], fill: {full: 0}}\n");
  const auto elided = run_casebook("show " + file.string());
  EXPECT_TRUE(
      has_line(elided.output, "^  \\(36 more elided; --full shows all\\)$"))
      << elided.output;
  const auto full = run_casebook("show " + file.string() + " --full");
  EXPECT_FALSE(has_line(full.output, "elided")) << full.output;
}

// A correct run becomes the case's truth: inline values for a small output,
// a .npy fixture with its sha256 for a large one; the case then passes on
// its expected values.
TEST_F(ShowAndReport, WriteExpectedTurnsARunIntoOutputsThatPass) {
  const fs::path small =
      write("small.yaml",
            "casebook: 1\nsummary: s\nop: torch.softmax\nargs: {dim: 0}\n"
            "inputs:\n  input: {dtype: float32, values: [0, 1, 2]}\n");
  const fs::path big = write(
      "big.yaml",
      "casebook: 1\nsummary: s\nop: torch.sum\nargs: {dim: 1}\n"
      "inputs:\n  input: {dtype: float32, shape: [100, 3], fill: {normal: "
      "{mean: 0, std: 1}}, seed: 2}\n");
  for (const fs::path& file : {small, big}) {
    const auto write_run =
        run_casebook("show " + file.string() + " --write-expected");
    EXPECT_EQ(write_run.status, 0) << write_run.output;
    const std::string text = read_text(file);
    EXPECT_TRUE(has_line(text, "^outputs:$")) << text;
    const auto again = run_casebook("run --verbose " + file.string() +
                                    " --backend cpu --evidence ''");
    EXPECT_EQ(again.status, 0) << again.output;
    EXPECT_TRUE(has_line(again.output, "^PASS ")) << again.output;
  }
  EXPECT_TRUE(fs::exists(root_ / "fixtures" / "expected" / "big_output0.npy"));
  // Written once: a second --write-expected refuses to add another block.
  EXPECT_NE(run_casebook("show " + small.string() + " --write-expected").status,
            0);
}

// What show writes reads back as the same values: int64 beyond 2^53 exactly
// (a double would round 2^53 + 1), bool as true/false (the loader refuses
// 1.0 for bool).
TEST_F(ShowAndReport, WriteExpectedKeepsInt64ExactAndBoolAsBool) {
  const fs::path ints =
      write("ints.yaml",
            "casebook: 1\nsummary: s\nop: torch.neg\ninputs:\n  input: "
            "{dtype: int64, values: [9007199254740993, "
            "-9223372036854775807]}\n");
  const fs::path bools =
      write("bools.yaml",
            "casebook: 1\nsummary: s\nop: torch.isnan\ninputs:\n  input: "
            "{dtype: float32, values: [.nan, 1.0]}\n");
  for (const fs::path& file : {ints, bools}) {
    const auto write_run =
        run_casebook("show " + file.string() + " --write-expected");
    EXPECT_EQ(write_run.status, 0) << write_run.output;
  }
  EXPECT_TRUE(has_line(read_text(ints),
                       "values: \\[-9007199254740993, 9223372036854775807\\]"))
      << read_text(ints);
  EXPECT_TRUE(has_line(read_text(bools), "values: \\[true, false\\]"))
      << read_text(bools);
  const auto again =
      run_casebook("run " + ints.string() + " " + bools.string() +
                   " --backend cpu --evidence ''");
  EXPECT_EQ(again.status, 0) << again.output;
  EXPECT_TRUE(has_line(again.output, "^2 PASS \\(2 runs\\)$")) << again.output;
}

TEST_F(ShowAndReport, ReportOnAPassSaysSo) {
  const auto run = run_casebook(
      "report tests/data/expect/values_pass.yaml "
      "--backend cpu");
  EXPECT_EQ(run.status, 0) << run.output;
  EXPECT_TRUE(has_line(run.output, "^Verdict: PASS\\. Nothing fails"))
      << run.output;
  EXPECT_FALSE(has_line(run.output, "One computation fails")) << run.output;
  EXPECT_FALSE(has_line(run.output, "taken as the cause")) << run.output;
}

TEST_F(ShowAndReport, ReportLabelsAnXfailReasonAsTheAuthorsExpectation) {
  const fs::path file =
      write("known.yaml",
            "casebook: 1\nsummary: s\nop: torch.sum\n"
            "inputs:\n  input: {dtype: float32, values: [1, 2]}\n"
            "outputs: {0: {dtype: float32, values: 4}}\n"
            "expect: {cpu: {xfail: the sum is wrong on purpose}}\n"
            "origin: {source: 'https://example.org/issues/9'}\n");
  const auto run = run_casebook("report " + file.string() + " --backend cpu");
  EXPECT_EQ(run.status, 0) << run.output;
  EXPECT_TRUE(has_line(run.output,
                       "^Verdict: XFAIL, a known failure\\. The author's "
                       "expectation: the sum is wrong on purpose\\."))
      << run.output;
  EXPECT_TRUE(
      has_line(run.output, "^Reported at: https://example.org/issues/9$"))
      << run.output;
  EXPECT_TRUE(has_line(run.output,
                       "^The first error \\(the author expects this failure"))
      << run.output;
  EXPECT_TRUE(has_line(run.output, "^output 0: mismatched elements: 1 / 1 "))
      << run.output;
}

TEST_F(ShowAndReport, AFailingNeighbourIsReportedWithItsOwnInputsAndCase) {
  // The base passes; its float64 neighbour fails (the kernels take float32,
  // float16 and bfloat16 only).
  const fs::path file =
      write("kernel_sum.yaml",
            "casebook: 1\nsummary: s\nop: kernels.sum\n"
            "inputs:\n  input: {dtype: float32, values: [1, 2, 3]}\n"
            "expect: {cpu: match}\n"
            "neighbors: {dtypes: [float64]}\n");
  const auto run = run_casebook("report " + file.string() + " --backend cpu");
  EXPECT_EQ(run.status, 0) << run.output;
  EXPECT_TRUE(
      has_line(run.output, "^- case: `.*kernel_sum~dtypes\\[float64\\]`$"))
      << run.output;
  EXPECT_TRUE(has_line(run.output, "^\\| input \\| float64 \\| \\[3\\] \\|"))
      << run.output;
  EXPECT_FALSE(has_line(run.output, "^\\| input \\| float32 ")) << run.output;
  // The case file in the report is the neighbour, written out: it
  // reproduces the failure alone.
  EXPECT_TRUE(has_line(run.output, "^  input: .*dtype: float64")) << run.output;
  EXPECT_FALSE(has_line(run.output, "^neighbors:")) << run.output;
}

}  // namespace
