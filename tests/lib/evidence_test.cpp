// Evidence of a failing mismatch: `casebook run --evidence DIR` writes a
// folder with the inputs, the reference and the actual outputs (.npy), the
// worst elements and the seeds, names it in the failure message, and writes
// nothing for a run that passes.
#include "runner/evidence.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "casebook/loader.h"
#include "run_command.h"
#include "tensors/fixtures.h"
#include "tensors/materialise.h"

namespace {

namespace fs = std::filesystem;
using casebook::materialise;
using casebook::read_npy;
using casebook::testing_support::read_text;

// The output of `casebook <arguments>`, its exit status in *status.
std::string run_casebook(const std::string& arguments, int* status) {
  casebook::testing_support::CommandResult run =
      casebook::testing_support::run_casebook(arguments);
  *status = run.status;
  return run.output;
}

fs::path fresh_folder(const std::string& name) {
  fs::path folder = fs::temp_directory_path() /
                    ("casebook-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(folder);
  return folder;
}

TEST(Evidence, FailingMismatchWritesInputsReferenceActualAndWorstElements) {
  const fs::path root = fresh_folder("evidence");
  int status = 0;
  const std::string out = run_casebook(
      "run --verbose tests/data/diagnose/matmul_vs_cpu64.yaml --backend cpu "
      "--evidence " +
          root.string(),
      &status);
  EXPECT_EQ(status, 1) << out;
  const fs::path folder = root / "matmul_vs_cpu64.cpu";
  std::smatch counted;
  ASSERT_TRUE(std::regex_search(
      out, counted,
      std::regex("FAIL +matmul_vs_cpu64 +cpu +mismatch: "
                 "mismatched elements: ([0-9]+) / 256.*; evidence: " +
                 folder.string() + "\n")))
      << out;

  // The inputs are the case's, as the op saw them.
  const casebook::LoadedCase loaded =
      casebook::load_case_file(fs::path(CASEBOOK_SOURCE_DIR) /
                               "tests/data/diagnose/matmul_vs_cpu64.yaml");
  ASSERT_TRUE(loaded.ok());
  const at::Tensor input = materialise(loaded.value->inputs[0]).view;
  const at::Tensor other = materialise(loaded.value->inputs[1]).view;
  EXPECT_TRUE(at::equal(read_npy(folder / "input_input.npy"), input));
  EXPECT_TRUE(at::equal(read_npy(folder / "input_other.npy"), other));

  // The reference is the float64 product cast to float32; the actual output
  // the float32 product; they differ where the message says they do.
  const at::Tensor reference = read_npy(folder / "reference_0.npy");
  const at::Tensor actual = read_npy(folder / "actual_0.npy");
  ASSERT_EQ(reference.sizes(), (at::IntArrayRef{16, 16}));
  ASSERT_EQ(actual.scalar_type(), at::kFloat);
  EXPECT_TRUE(at::allclose(
      reference,
      at::matmul(input.to(at::kDouble), other.to(at::kDouble)).to(at::kFloat),
      0, 1e-6));
  EXPECT_TRUE(at::allclose(actual, at::matmul(input, other), 1e-5, 1e-5));
  EXPECT_EQ(reference.ne(actual).sum().item<int64_t>(), std::stol(counted[1]));

  // The first worst element is the largest difference, read from the files.
  const std::string worst = read_text(folder / "worst_elements.txt");
  const at::Tensor diff =
      (actual.to(at::kDouble) - reference.to(at::kDouble)).abs();
  const int64_t flat = diff.argmax().item<int64_t>();
  std::ostringstream index;
  index << "\n[" << flat / 16 << ", " << flat % 16 << "]\t";
  EXPECT_NE(worst.find(index.str()), std::string::npos) << worst;
  EXPECT_EQ(worst.find(index.str()), worst.find("\n[")) << worst;
  EXPECT_EQ(std::count(worst.begin(), worst.end(), '\n'),
            3 + std::min<long>(10, std::stol(counted[1])))
      << worst;

  const std::string seeds = read_text(folder / "seeds.txt");
  EXPECT_NE(seeds.find("input `input` float32 [16, 64]: seed 1, fill normal"),
            std::string::npos)
      << seeds;
  EXPECT_NE(seeds.find("input `other` float32 [64, 16]: seed 2"),
            std::string::npos);
  EXPECT_NE(seeds.find("casebook run tests/data/diagnose/matmul_vs_cpu64.yaml "
                       "--backend cpu --isolation pooled"),
            std::string::npos);
  fs::remove_all(root);
}

// Issue 51: an alias (`same_as`) is its target's tensor: its values are in
// the target's file, and the seeds say whose it is.
TEST(Evidence, AnAliasIsToldAsItsTargetsTensorWithNoFileOfItsOwn) {
  const fs::path root = fresh_folder("evidence-alias");
  const fs::path cases = fresh_folder("evidence-alias-cases");
  fs::create_directories(cases);
  std::ofstream(cases / "add_out.yaml")
      << "casebook: 1\nsummary: s\nop: aten::add.out\n"
         "inputs:\n  self: {dtype: float32, values: [1, 2, 3]}\n"
         "  other: {dtype: float32, values: [10, 20, 30]}\n"
         "  out: {same_as: self}\n"
         "outputs:\n  0: {dtype: float32, values: [11, 22, 34]}\n";
  int status = 0;
  const std::string out =
      run_casebook("run " + (cases / "add_out.yaml").string() +
                       " --backend cpu --evidence " + root.string(),
                   &status);
  EXPECT_EQ(status, 1) << out;
  fs::path folder;  // the one run's, however its id was made
  for (const auto& entry : fs::directory_iterator(root)) folder = entry.path();
  EXPECT_TRUE(fs::exists(folder / "input_self.npy")) << out;
  EXPECT_FALSE(fs::exists(folder / "input_out.npy"));
  EXPECT_NE(read_text(folder / "seeds.txt")
                .find("input `out` float32 [3]: input `self` itself (same_as)"),
            std::string::npos)
      << read_text(folder / "seeds.txt");
  fs::remove_all(root);
  fs::remove_all(cases);
}

TEST(Evidence, PassingRunsAndAnEmptyRootWriteNothing) {
  const fs::path root = fresh_folder("no-evidence");
  int status = 0;
  std::string out = run_casebook(
      "run --verbose tests/data/diagnose/passes.yaml --backend cpu "
      "--evidence " +
          root.string(),
      &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_FALSE(fs::exists(root));
  out = run_casebook(
      "run --verbose tests/data/diagnose/matmul_vs_cpu64.yaml --backend cpu "
      "--evidence ''",
      &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_EQ(out.find("evidence:"), std::string::npos) << out;
}

TEST(Evidence, WorstElementsRankOutsideTheToleranceAndNaNFirst) {
  const at::Tensor expected =
      at::tensor({1.0, 2.0, 3.0, 4.0, 5.0}).reshape({5});
  const at::Tensor actual = at::tensor({1.0, 2.5, 3.01, NAN, 5.0});
  casebook::Tolerance tolerance;
  tolerance.atol = 0.1;
  const std::string text =
      casebook::worst_elements_text(expected, actual, tolerance, 3);
  std::istringstream lines(text);
  std::string header1, header2, first, second, third, extra;
  std::getline(lines, header1);
  std::getline(lines, header2);
  std::getline(lines, first);
  std::getline(lines, second);
  std::getline(lines, third);
  EXPECT_EQ(first.substr(0, first.find('\t')), "[3]") << text;
  EXPECT_NE(first.find("outside"), std::string::npos);
  EXPECT_EQ(second, "[1]\t2\t2.5\t0.5\t0.25\toutside") << text;
  EXPECT_EQ(third.substr(0, 4), "[2]\t") << text;
  EXPECT_NE(third.find("within"), std::string::npos) << text;
  EXPECT_FALSE(std::getline(lines, extra)) << text;
}

TEST(Evidence, FolderNamesEscapeTheIdReversibly) {
  EXPECT_EQ(casebook::evidence_folder("ev", "cross_entropy/label-4",
                                      casebook::Backend::kCuda),
            fs::path("ev") / "cross_entropy%2Flabel-4.cuda");
  EXPECT_EQ(casebook::evidence_folder("ev", "../up", casebook::Backend::kCpu),
            fs::path("ev") / "%2E.%2Fup.cpu");
  // Two cases never share a folder (issue 49: `a/b` and `a_b` did, and the
  // second run deleted the first's evidence).
  EXPECT_NE(casebook::evidence_folder("ev", "a/b", casebook::Backend::kCpu),
            casebook::evidence_folder("ev", "a_b", casebook::Backend::kCpu));
  EXPECT_NE(casebook::evidence_folder("ev", "a%2Fb", casebook::Backend::kCpu),
            casebook::evidence_folder("ev", "a/b", casebook::Backend::kCpu));
}

}  // namespace
