// Issue 50: `casebook reduce` from the command line, on a captured batch of
// 512 x 1000 float32 logits whose labels hold one 1000 (classes 0..999),
// its two fixtures of 2 MB and 4 KB as `casebook capture` writes them.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <regex>

#include "casebook/loader.h"
#include "run_command.h"
#include "tensors/fixtures.h"
#include "test_ops.h"

namespace casebook {
namespace {

using testing_support::has_line;
using testing_support::read_text;
using testing_support::run_casebook;
using testing_support::TempFolder;

// <folder>/cases/cross_entropy/batch.yaml and its fixtures: the label of
// row 317 is 1000.
std::filesystem::path write_batch(const std::filesystem::path& folder) {
  testing_support::use_single_thread();
  const std::filesystem::path fixtures = folder / "fixtures" / "cross_entropy";
  std::filesystem::create_directories(fixtures);
  at::Tensor logits = at::arange(512 * 1000, at::kFloat).reshape({512, 1000});
  logits = at::sin(logits);  // no two rows alike, no generator needed
  at::Tensor target = at::arange(512, at::kLong) * 7 % 1000;
  target[317] = 1000;
  write_npy(fixtures / "logits.npy", logits);
  write_npy(fixtures / "target.npy", target);
  const std::filesystem::path file =
      folder / "cases" / "cross_entropy" / "batch.yaml";
  testing_support::write_file(
      file,
      "casebook: 1\nsummary: a captured batch with one label of 1000\n"
      "op: torch.cross_entropy\nargs: {reduction: mean}\ninputs:\n"
      "  input: {dtype: float32, shape: [512, 1000], file: "
      "cross_entropy/logits.npy}\n"
      "  target: {dtype: int64, shape: [512], file: "
      "cross_entropy/target.npy}\n"
      "origin:\n  first_error: \"IndexError: Target 1000 is out of "
      "bounds.\"\n  backend: cpu\n");
  return file;
}

int runs_said(const std::string& output) {
  std::smatch match;
  const std::regex runs(R"(\n  ([0-9]+) runs in )");
  return std::regex_search(output, match, runs) ? std::stoi(match[1]) : -1;
}

// `casebook run`, `neighbors`, `report` and `accept` take the reduced case
// like any other: it fails as the original, and its origin's first_error is
// accepted.
void expect_a_case_like_any_other(const std::filesystem::path& written,
                                  const std::filesystem::path& folder) {
  const auto run = run_casebook("run --backend cpu '" + written.string() + "'");
  EXPECT_EQ(run.status, 1) << run.output;
  EXPECT_NE(run.output.find("index_out_of_range"), std::string::npos);
  EXPECT_NE(run.output.find("Target 1000"), std::string::npos) << run.output;
  const auto neighbors = run_casebook("neighbors '" + written.string() + "'");
  EXPECT_EQ(neighbors.status, 0) << neighbors.output;
  const auto report = run_casebook("report --backend cpu -o '" +
                                   (folder / "report.md").string() + "' '" +
                                   written.string() + "'");
  EXPECT_EQ(report.status, 0) << report.output;
  const auto accept =
      run_casebook("accept --backend cpu '" + written.string() + "'");
  EXPECT_EQ(accept.status, 0) << accept.output;
  EXPECT_NE(read_text(written).find("cpu: {error: index_out_of_range}"),
            std::string::npos)
      << read_text(written);
}

// Done means: the batch reduces to a target of one element, 1000, that
// fails index_out_of_range with `Target 1000`, in at most 40 runs; the file
// is a case like any other (run, accept, neighbors, report).
TEST(ReduceCommand, ABatchWithOneBadLabelReducesToThatLabel) {
  TempFolder folder;
  const std::filesystem::path file = write_batch(folder.path());
  const std::string quoted = "'" + file.string() + "'";
  const auto reduced = run_casebook("reduce " + quoted);
  ASSERT_EQ(reduced.status, 0) << reduced.output;
  const std::filesystem::path written =
      file.parent_path() / "batch.reduced.yaml";
  EXPECT_TRUE(has_line(reduced.output, "^wrote " + written.string() + "$"))
      << reduced.output;
  EXPECT_TRUE(has_line(reduced.output,
                       "^casebook reduce: cross_entropy/batch on cpu: FAIL "
                       "index_out_of_range: Target 1000 is out of bounds"))
      << reduced.output;
  EXPECT_TRUE(has_line(reduced.output, "kept index 317 of 512"))
      << reduced.output;
  EXPECT_TRUE(has_line(reduced.output,
                       "args reduction: mean \\(their "
                       "defaults\\)"))
      << reduced.output;
  const int runs = runs_said(reduced.output);
  EXPECT_GT(runs, 0) << reduced.output;
  EXPECT_LE(runs, 40) << reduced.output;

  const LoadedCase loaded = load_case_file(written);
  ASSERT_TRUE(loaded.ok()) << read_text(written);
  const Case& kase = *loaded.value;
  ASSERT_EQ(kase.inputs.size(), 2u);
  EXPECT_EQ(kase.inputs[1].shape, std::vector<int64_t>{1});
  EXPECT_EQ(kase.inputs[1].int_values, std::vector<int64_t>{1000});
  EXPECT_EQ(kase.inputs[0].source, TensorSpec::Source::kValues);
  EXPECT_TRUE(kase.args.empty());
  const std::string text = read_text(written);
  EXPECT_NE(text.find("  reduced_from:\n    id: \"cross_entropy/batch\"\n"
                      "    sizes: \"input [512, 1000], target [512]\"\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("first_error: \"IndexError: Target 1000"),
            std::string::npos);
  EXPECT_EQ(read_text(file).find("reduced"), std::string::npos);  // untouched

  expect_a_case_like_any_other(written, folder.path());

  // Never over a file: the same reduction again is refused before it runs.
  const auto again = run_casebook("reduce " + quoted);
  EXPECT_EQ(again.status, 2) << again.output;
  EXPECT_TRUE(has_line(again.output,
                       "batch.reduced.yaml exists: casebook "
                       "writes a reduced case over no file"))
      << again.output;
}

// --max-runs: said, and the smallest case verified so far written.
TEST(ReduceCommand, MaxRunsIsSaidAndTheBestCaseSoFarIsWritten) {
  TempFolder folder;
  const std::filesystem::path file = write_batch(folder.path());
  const std::filesystem::path out = folder.path() / "cases" / "early.yaml";
  const auto reduced = run_casebook("reduce --max-runs 4 -o '" + out.string() +
                                    "' '" + file.string() + "'");
  ASSERT_EQ(reduced.status, 0) << reduced.output;
  EXPECT_TRUE(has_line(reduced.output,
                       "^  stopped: --max-runs 4 reached: the case written is "
                       "the smallest verified so far$"))
      << reduced.output;
  EXPECT_EQ(runs_said(reduced.output), 5) << reduced.output;  // + the check
  const LoadedCase loaded = load_case_file(out);
  ASSERT_TRUE(loaded.ok()) << read_text(out);
  // Still 1000 columns of a changed input: a fixture of its own, written
  // where the reduced case finds it.
  EXPECT_EQ(loaded.value->inputs[0].source, TensorSpec::Source::kFile);
  EXPECT_TRUE(has_line(reduced.output,
                       "^fixture .*/fixtures/cross_entropy/"
                       "[0-9a-f]{64}\\.npy$"))
      << reduced.output;
}

// On a terminal (script(1) gives it one) a progress line is rewritten
// after each run: the runs, the sizes kept so far, the seconds.
TEST(ReduceCommand, OnATerminalAProgressLineIsRewrittenAfterEachRun) {
  if (testing_support::run_shell("command -v script").status != 0) {
    GTEST_SKIP() << "no script(1) to give casebook a terminal";
  }
  TempFolder folder;
  const std::filesystem::path file = folder.path() / "label.yaml";
  testing_support::write_file(
      file,
      "casebook: 1\nsummary: label 4 of 4\nop: torch.cross_entropy\n"
      "backends: [cpu]\ninputs:\n"
      "  input: {shape: [4, 4], dtype: float32, fill: {full: 0}}\n"
      "  target: {dtype: int64, values: [0, 4, 1, 2]}\n");
  const auto reduced = testing_support::run_shell(
      "script -qec \"'" + std::string(CASEBOOK_EXECUTABLE) + "' reduce '" +
      file.string() + "'\" /dev/null");
  EXPECT_NE(reduced.output.find("\r\x1b[Kcasebook reduce: 1 runs, input "
                                "[4, 4], target [4], "),
            std::string::npos)
      << reduced.output;
  EXPECT_NE(reduced.output.find("\x1b[Kcasebook reduce: 2 runs, input [2, "
                                "4], target [2], "),
            std::string::npos)
      << reduced.output;
  EXPECT_TRUE(std::filesystem::exists(folder.path() / "label.reduced.yaml"));
}

TEST(ReduceCommand, ACaseThatPassesIsNotWritten) {
  TempFolder folder;
  const std::filesystem::path file = folder.path() / "valid.yaml";
  testing_support::write_file(
      file,
      "casebook: 1\nsummary: valid\nop: torch.cross_entropy\n"
      "backends: [cpu]\ninputs:\n"
      "  input: {shape: [2, 4], dtype: float32, fill: {full: 0}}\n"
      "  target: {dtype: int64, values: [0, 3]}\n");
  const auto reduced = run_casebook("reduce '" + file.string() + "'");
  EXPECT_EQ(reduced.status, 1) << reduced.output;
  EXPECT_TRUE(has_line(reduced.output,
                       "passes \\(PASS\\): there is no "
                       "failure to keep"))
      << reduced.output;
  EXPECT_FALSE(std::filesystem::exists(folder.path() / "valid.reduced.yaml"));
}

}  // namespace
}  // namespace casebook
