// What a first-time user trips over on the command line (issue 23): a
// filter that selects nothing, a misspelt backend, `ops` and `new`
// agreeing on the ops a case can name, `check` on a skeleton's TODOs,
// `capture` of an invalid case, `neighbors --write`.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "run_command.h"

namespace casebook {
namespace {

namespace fs = std::filesystem;
using testing_support::has_line;
using testing_support::read_text;
using testing_support::run_casebook;
using testing_support::TempFolder;

TEST(FirstUseCli, AFilterThatSelectsNothingIsAUsageError) {
  for (const char* command : {"run", "test"}) {
    const auto typo = run_casebook(std::string(command) +
                                   " --backend cpu tests/data/e2e --filter "
                                   "'valid_lables'");
    EXPECT_EQ(typo.status, 2) << command << "\n" << typo.output;
    EXPECT_TRUE(has_line(typo.output, "^casebook " + std::string(command) +
                                          ": --filter 'valid_lables' selects "
                                          "none of the [0-9]+ cases found"))
        << typo.output;
  }
  const auto right =
      run_casebook("run --backend cpu tests/data/e2e --filter valid_labels");
  EXPECT_EQ(right.status, 0) << right.output;
}

TEST(FirstUseCli, OpsListsEveryOpACaseCanNameAndNewWritesEach) {
  const auto kernels = run_casebook("ops 'kernels.*'");
  EXPECT_EQ(kernels.status, 0) << kernels.output;
  EXPECT_TRUE(has_line(kernels.output, "^kernels\\.softmax\\(input.*a kernel"))
      << kernels.output;
  const auto validate = run_casebook("ops validate.");
  EXPECT_TRUE(has_line(validate.output,
                       "^validate\\.class_targets\\(target; .*an input "
                       "contract"))
      << validate.output;
  const auto own = run_casebook("ops cross_entropy");
  EXPECT_TRUE(has_line(own.output, "^torch\\.cross_entropy\\(input, target"))
      << own.output;
  TempFolder folder;
  for (const char* op : {"torch.cross_entropy", "kernels.softmax",
                         "validate.class_mapping", "torch.softmax"}) {
    const fs::path file = folder.path() / (std::string(op) + ".yaml");
    const auto made =
        run_casebook(std::string("new ") + op + " " + file.string());
    EXPECT_EQ(made.status, 0) << op << "\n" << made.output;
    EXPECT_NE(read_text(file).find(std::string("\nop: ") + op + "\n"),
              std::string::npos)
        << read_text(file);
  }
}

// A skeleton's argument defaults are the schema's, written as a case writes
// an argument (exact: rrelu's upper bound is 1/3 to the last digit, not
// 0.333333).
TEST(FirstUseCli, NewWritesTheSchemasDefaultsExactly) {
  TempFolder folder;
  const fs::path file = folder.path() / "rrelu.yaml";
  const auto made = run_casebook("new aten::rrelu " + file.string());
  ASSERT_EQ(made.status, 0) << made.output;
  const std::string text = read_text(file);
  EXPECT_TRUE(has_line(text, "^  lower: 0\\.125  # Scalar$")) << text;
  EXPECT_TRUE(has_line(text, "^  upper: 0\\.3333333333333333  # Scalar$"))
      << text;
  EXPECT_TRUE(has_line(text, "^  training: false  # bool$")) << text;
}

TEST(FirstUseCli, CheckRefusesASkeletonsPlaceholdersByName) {
  TempFolder folder;
  const fs::path file = folder.path() / "ce.yaml";
  ASSERT_EQ(run_casebook("new torch.cross_entropy " + file.string()).status, 0);
  const auto check = run_casebook("check " + file.string());
  EXPECT_EQ(check.status, 1) << check.output;
  const std::string placeholder =
      ": `TODO` is a placeholder `casebook new` left here: write the value$";
  EXPECT_TRUE(has_line(check.output, "ce\\.yaml:2:10: `summary`" + placeholder))
      << check.output;
  EXPECT_TRUE(
      has_line(check.output, "`inputs\\.input\\.shape\\[0\\]`" + placeholder))
      << check.output;
  EXPECT_TRUE(
      has_line(check.output, "`inputs\\.target\\.values\\[0\\]`" + placeholder))
      << check.output;
  // Said once, by name: not also as a value of the wrong type.
  EXPECT_EQ(check.output.find("expected an integer"), std::string::npos)
      << check.output;
}

TEST(FirstUseCli, AMisspeltBackendGetsADidYouMean) {
  const auto run = run_casebook("run --backend cpu,cdua tests/data/e2e");
  EXPECT_EQ(run.status, 2) << run.output;
  EXPECT_TRUE(has_line(run.output,
                       "--backend: expected a list of cpu, cuda, hip; got "
                       "`cdua`; did you mean `cuda`\\?$"))
      << run.output;
}

TEST(FirstUseCli, WrittenNeighboursSayWhatTheyExpectWithTheModeline) {
  // A project of its own: its schema where the modeline will point.
  TempFolder project;
  fs::create_directories(project.path() / "schema");
  fs::copy_file(fs::path(CASEBOOK_SOURCE_DIR) / "schema" / "case.schema.json",
                project.path() / "schema" / "case.schema.json");
  const fs::path cases = project.path() / "cases";
  const auto write = run_casebook(
      "neighbors tests/data/neighbors/labels.yaml --write " + cases.string() +
      " --select 'label_limits[C]' --select 'label_limits[0]'");
  ASSERT_EQ(write.status, 0) << write.output;
  const std::string past = read_text(cases / "labels_label_limits_C.yaml");
  EXPECT_EQ(
      past.rfind("# yaml-language-server: $schema=../schema/case.schema.json\n",
                 0),
      0u)
      << past;
  EXPECT_NE(past.find("\nsummary: \"target[0] = 4 (one past the 4 classes): "
                      "expects cpu: error index_out_of_range; cuda: error "
                      "device_assert; hip: error device_assert (neighbour "
                      "label_limits[C] of labels)\"\n"),
            std::string::npos)
      << past;
  const std::string first = read_text(cases / "labels_label_limits_0.yaml");
  EXPECT_NE(first.find(": expects match (neighbour label_limits[0] of "),
            std::string::npos)
      << first;
}

TEST(FirstUseCli, CaptureChecksTheCaseBeforeWritingAnything) {
  TempFolder folder;
  const fs::path cases = folder.path() / "cases";
  const std::string batch =
      std::string(CASEBOOK_TEST_DATA) + "/capture/batch.pt";
  const std::string common =
      " --cases " + cases.string() +
      " --backend cpu --name typo --tensor input=" + batch +
      "#input --tensor target=" + batch + "#target";
  const auto unknown =
      run_casebook("capture --op torch.cross_entropi" + common);
  EXPECT_EQ(unknown.status, 2) << unknown.output;
  EXPECT_TRUE(has_line(unknown.output,
                       "^casebook capture: the case would be invalid, so "
                       "nothing was written:$"))
      << unknown.output;
  EXPECT_TRUE(has_line(unknown.output,
                       "^  unknown op `torch.cross_entropi`.*nearest known: "
                       "torch.cross_entropy"))
      << unknown.output;
  EXPECT_FALSE(fs::exists(cases)) << unknown.output;
  // Never "a reproduced failure": --expect-failure exits 1 on it.
  const auto expected = run_casebook(
      "capture --op torch.cross_entropy --arg ignore_indx=-100 "
      "--expect-failure" +
      common);
  EXPECT_EQ(expected.status, 1) << expected.output;
  EXPECT_TRUE(has_line(expected.output,
                       "has no argument `ignore_indx`; did you mean "
                       "`ignore_index`\\?"))
      << expected.output;
  EXPECT_EQ(expected.output.find("reproduces"), std::string::npos)
      << expected.output;
  EXPECT_FALSE(fs::exists(cases)) << expected.output;
}

TEST(FirstUseCli, CaptureReadsANestedDictOrSaysWhatItHolds) {
  TempFolder folder;
  const std::string nested =
      std::string(CASEBOOK_TEST_DATA) + "/capture/nested.pt";
  const std::string common = " --cases " + (folder.path() / "cases").string() +
                             " --no-run --op torch.cross_entropy";
  const auto read = run_casebook(
      "capture --name nested --tensor input=" + nested +
      "#batch.input --tensor target=" + nested + "#batch.target" + common);
  EXPECT_EQ(read.status, 0) << read.output;
  const std::string text =
      read_text(folder.path() / "cases" / "cross_entropy" / "nested.yaml");
  EXPECT_NE(text.find("values: [0, 2, 4]"), std::string::npos) << text;
  const auto unnamed =
      run_casebook("capture --name all --tensor input=" + nested + common);
  EXPECT_EQ(unnamed.status, 2) << unnamed.output;
  EXPECT_TRUE(has_line(unnamed.output,
                       "holds a dict with 3 tensors \\(batch.input, "
                       "batch.target, step\\); name one with `#KEY`"))
      << unnamed.output;
  const auto inner = run_casebook(
      "capture --name inner --tensor input=" + nested + "#batch" + common);
  EXPECT_EQ(inner.status, 2) << inner.output;
  EXPECT_TRUE(has_line(inner.output,
                       "`batch` is a dict; name one of its "
                       "tensors"))
      << inner.output;
}

}  // namespace
}  // namespace casebook
