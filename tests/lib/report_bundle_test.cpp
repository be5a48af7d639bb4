// `casebook report` on a machine without a GPU reports what ran (the CPU's
// run, a failing neighbour), carries the case file of that run and its
// fixtures, and its bundle reproduces the verdict in a fresh folder: real
// runs of the casebook executable.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "casebook/loader.h"
#include "run_command.h"
#include "tensors/fixtures.h"

namespace {

namespace fs = std::filesystem;
using casebook::testing_support::CommandResult;
using casebook::testing_support::has_line;
using casebook::testing_support::read_text;
using casebook::testing_support::run_casebook;
using casebook::testing_support::run_shell;

class ReportBundle : public testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("casebook-report-bundle-" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "work");
  }
  void TearDown() override { fs::remove_all(root_); }

  fs::path write(const std::string& name, const std::string& text) {
    const fs::path file = root_ / "work" / name;
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text;
    return file;
  }

  // `casebook report ARGS --bundle <root>/bundle`, from `folder`.
  CommandResult report(const std::string& arguments, const fs::path& folder) {
    return run_shell("cd '" + folder.string() + "' && '" + CASEBOOK_EXECUTABLE +
                     "' report " + arguments + " --bundle '" +
                     bundle().string() + "'");
  }

  // The bundle moved to a fresh folder of its own (nothing of the
  // original tree beside it), then its case file run there as the report
  // says.
  CommandResult run_moved_bundle(const std::string& file_name,
                                 const std::string& backend = "cpu") {
    const fs::path fresh = root_ / "elsewhere" / "attached";
    fs::create_directories(fresh.parent_path());
    fs::rename(bundle(), fresh);
    return run_shell("cd '" + fresh.string() + "' && '" + CASEBOOK_EXECUTABLE +
                     "' run " + file_name + " --backend " + backend);
  }

  fs::path bundle() const { return root_ / "bundle"; }
  fs::path root_;
};

// Runs the bundle's reproduce.py where the bundle was moved to
// (run_moved_bundle first), with Debian's Python and its torch 1.13 and
// NumPy, or CASEBOOK_PYTHON: a PyTorch without casebook.
std::string python() {
  const char* chosen = std::getenv("CASEBOOK_PYTHON");
  return chosen != nullptr ? chosen : "/usr/bin/python3";
}
bool python_has_torch() {
  return run_shell(python() + " -c 'import numpy, torch; print(\"ok\")'")
             .output == "ok\n";
}

// The YAML block of a report: the case file it carries.
std::string carried_case_file(const std::string& markdown) {
  const size_t open = markdown.find("```yaml\n");
  if (open == std::string::npos) return "";
  const size_t begin = open + 8;
  const size_t close = markdown.find("\n```\n", begin);
  return markdown.substr(begin, close + 1 - begin);
}

// The README's first example: on this machine cuda and hip are absent, the
// CPU raises the error the case expects; the report is about that run.
TEST_F(ReportBundle, TheReadmeExampleReportsTheCpuRunAndItsBundleReproducesIt) {
  const CommandResult run = report(
      "cases/cross_entropy/label_out_of_range.yaml", CASEBOOK_SOURCE_DIR);
  ASSERT_EQ(run.status, 0) << run.output;
  const std::string& out = run.output;
  if (has_line(out, "^- backend: cuda$")) {
    GTEST_SKIP() << "a GPU is present: the report is about its run";
  }
  EXPECT_FALSE(has_line(out, "Nothing ran")) << out;
  EXPECT_TRUE(has_line(out, "^- backend: cpu$")) << out;
  EXPECT_TRUE(has_line(out,
                       "^Verdict: PASS: the run raised the error its case "
                       "expects \\(`index_out_of_range`\\)"))
      << out;
  EXPECT_TRUE(has_line(out, "^Target 4 is out of bounds\\.$")) << out;
  EXPECT_TRUE(has_line(out,
                       "^- chosen: no run failed; the first run that "
                       "failed as its case expects"))
      << out;
  EXPECT_TRUE(has_line(out,
                       "^casebook run label_out_of_range\\.yaml "
                       "--backend cpu$"))
      << out;
  // The case file is the author's, without the neighbours (runs of their
  // own); the bundle holds the same text.
  const std::string carried = carried_case_file(out);
  EXPECT_NE(carried.find("cause: annotations of one source are numbered"),
            std::string::npos)
      << carried;
  EXPECT_EQ(carried.find("neighbors"), std::string::npos) << carried;
  EXPECT_EQ(read_text(bundle() / "label_out_of_range.yaml"), carried);
  EXPECT_NE(read_text(bundle() / "report.md").find(carried), std::string::npos);

  const CommandResult again = run_moved_bundle("label_out_of_range.yaml");
  EXPECT_EQ(again.status, 0) << again.output;
  EXPECT_TRUE(has_line(again.output, "^label_out_of_range +PASS"))
      << again.output;
  EXPECT_TRUE(has_line(again.output, "^1 PASS \\(1 runs\\)$")) << again.output;

  // The same run with PyTorch alone: the script the report shows, in the
  // bundle, raises the error casebook's run raised.
  EXPECT_TRUE(has_line(out, "^## Reproduce with PyTorch alone$")) << out;
  EXPECT_TRUE(
      has_line(out, "^    return torch\\.nn\\.functional\\.cross_entropy\\($"))
      << out;
  EXPECT_TRUE(has_line(out, "^## Environment as collect_env gives it$")) << out;
  EXPECT_TRUE(has_line(out, "^PyTorch version: [0-9]")) << out;
  EXPECT_TRUE(has_line(out, "^OS: ")) << out;
  EXPECT_TRUE(has_line(out, "^Python version: ")) << out;
  if (!python_has_torch()) GTEST_SKIP() << python() << " has no torch";
  const fs::path moved = root_ / "elsewhere" / "attached";
  const CommandResult script =
      run_shell("cd '" + moved.string() + "' && " + python() + " reproduce.py");
  EXPECT_NE(script.status, 0) << script.output;
  EXPECT_TRUE(
      has_line(script.output, "^IndexError: Target 4 is out of bounds\\.$"))
      << script.output;
  EXPECT_TRUE(has_line(script.output, "^PyTorch [0-9]")) << script.output;
}

// A run's input of more than 64 elements travels as inputs/<name>.npy, its
// transposed layout as the storage viewed again (as_strided); the script
// prints what the op returns and fails the case's check as casebook's run
// does.
TEST_F(ReportBundle, ThePythonReproductionRebuildsLargeStridedInputsAndChecks) {
  // x is [9, 8] of 0..71, transposed in memory: its column sums are
  // 288 + 9 j; the case expects 289 first.
  write("column_sums.yaml",
        "casebook: 1\nsummary: s\nop: torch.sum\n"
        "inputs:\n  x: {dtype: float32, shape: [9, 8], fill: {arange: "
        "{start: 0, step: 1}}, layout: {transpose: [0, 1]}}\n"
        "args: {dim: [0]}\n"
        "outputs:\n  0: {dtype: float32, values: [289, 297, 306, 315, 324, "
        "333, 342, 351]}\n");
  const CommandResult run = report("column_sums.yaml", root_ / "work");
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_TRUE(has_line(run.output, "^Verdict: FAIL\\.")) << run.output;
  EXPECT_TRUE(has_line(run.output, "it loads `inputs/x\\.npy`")) << run.output;
  EXPECT_TRUE(fs::exists(bundle() / "inputs" / "x.npy"));
  EXPECT_TRUE(has_line(read_text(bundle() / "reproduce.py"),
                       "\\.as_strided\\(\\(9, 8\\), \\(1, 9\\), 0\\),$"))
      << read_text(bundle() / "reproduce.py");
  if (!python_has_torch()) GTEST_SKIP() << python() << " has no torch";
  const CommandResult again = run_moved_bundle("column_sums.yaml");
  EXPECT_EQ(again.status, 1) << again.output;
  const CommandResult script =
      run_shell("cd '" + (root_ / "elsewhere" / "attached").string() + "' && " +
                python() + " reproduce.py");
  EXPECT_NE(script.status, 0) << script.output;
  EXPECT_TRUE(has_line(script.output,
                       "^tensor\\(\\[288\\., 297\\., 306\\., 315\\., 324\\., "
                       "333\\., 342\\., 351\\.\\]\\)$"))
      << script.output;
  EXPECT_EQ(script.status, 1) << script.output;
  EXPECT_TRUE(has_line(script.output,
                       "^  output 0: values: Tensor-likes are not close!"))
      << script.output;
}

// An aten:: op through torch.ops (its `self` by position: OpOverload's
// __call__ has a `self` of its own), a complex input, a negative zero, and
// the cpu64 reference the case asks for: the script runs and checks.
TEST_F(ReportBundle, ThePythonReproductionCallsAnAtenOverloadAgainstCpu64) {
  write("add.yaml",
        "casebook: 1\nsummary: s\nop: aten::add.Tensor\nreference: cpu64\n"
        "inputs:\n  self: {dtype: float32, values: [1.5, -0.0, 3.25]}\n"
        "  other: {dtype: complex64, values: [[1, 2], [3, -4], 5]}\n"
        "args: {alpha: 2}\n");
  const CommandResult run = report("add.yaml", root_ / "work");
  ASSERT_EQ(run.status, 0) << run.output;
  const std::string script = read_text(bundle() / "reproduce.py");
  EXPECT_TRUE(
      has_line(script, "^    return torch\\.ops\\.aten\\.add\\.Tensor\\($"))
      << script;
  EXPECT_TRUE(has_line(script, "^        place\\(self, device, floating\\),$"))
      << script;
  EXPECT_NE(script.find("[1.5, -0.0, 3.25]"), std::string::npos) << script;
  EXPECT_NE(script.find("complex(3.0, -4.0)"), std::string::npos) << script;
  EXPECT_TRUE(
      has_line(script, "^reference = run\\(\"cpu\", torch\\.float64\\)$"))
      << script;
  if (!python_has_torch()) GTEST_SKIP() << python() << " has no torch";
  const CommandResult python_run = run_shell(
      "cd '" + bundle().string() + "' && " + python() + " reproduce.py");
  EXPECT_EQ(python_run.status, 0) << python_run.output;
  EXPECT_TRUE(has_line(python_run.output, "^tensor\\(\\[ *3\\.5000\\+4\\.j"))
      << python_run.output;
}

// Issue 51: an input that is another's tensor (`out: {same_as: self}`) is
// placed once in run() and passed twice, so that the call writes self in
// place; every run starts from the inputs as made (the cpu64 reference's
// too, after the run wrote self).
// Its target read from a small fixture, the carried case is written out
// (the fixture inlined), the alias as it was written.
TEST_F(ReportBundle, ThePythonReproductionPassesAnAliasAsTheOneTensor) {
  fs::create_directories(root_ / "work" / "fixtures");
  casebook::write_npy(root_ / "work" / "fixtures" / "self.npy",
                      at::arange(1, 4, at::kFloat));
  write("add_out.yaml",
        "casebook: 1\nsummary: s\nop: aten::add.out\nreference: cpu64\n"
        "inputs:\n  self: {dtype: float32, file: self.npy}\n"
        "  other: {dtype: float32, values: [10, 20, 30]}\n"
        "  out: {same_as: self}\n"
        "outputs:\n  0: {dtype: float32, values: [11, 22, 33]}\n");
  const CommandResult run = report("add_out.yaml", root_ / "work");
  ASSERT_EQ(run.status, 0) << run.output;
  const std::string script = read_text(bundle() / "reproduce.py");
  EXPECT_TRUE(
      has_line(script, "^    self_placed = place\\(self, device, floating\\)$"))
      << script;
  EXPECT_TRUE(has_line(script, "^        self_placed,$")) << script;
  EXPECT_TRUE(has_line(script, "^        out=self_placed\\)$")) << script;
  const std::string carried = read_text(bundle() / "add_out.yaml");
  EXPECT_NE(carried.find("\n  out: {same_as: self}\n"), std::string::npos)
      << carried;
  EXPECT_NE(carried.find("  self: {dtype: float32, shape: [3], values: [1, 2, "
                         "3]}"),
            std::string::npos)
      << carried;
  if (!python_has_torch()) GTEST_SKIP() << python() << " has no torch";
  const CommandResult python_run = run_shell(
      "cd '" + bundle().string() + "' && " + python() + " reproduce.py");
  EXPECT_EQ(python_run.status, 0) << python_run.output << script;
  EXPECT_TRUE(
      has_line(python_run.output, "^tensor\\(\\[11\\., 22\\., 33\\.\\]\\)$"))
      << python_run.output;
}

// The base passes; its float64 neighbour fails on the CPU (the kernels take
// float32, float16 and bfloat16 only): that run is the subject, written out
// as a case of its own, and reproduced from the bundle.
TEST_F(ReportBundle, AFailingNeighbourIsTheSubjectAndItsBundleReproducesIt) {
  write("kernel_sum.yaml",
        "casebook: 1\nsummary: s\nop: kernels.sum\n"
        "inputs:\n  input: {dtype: float32, values: [1, 2, 3]}\n"
        "expect: {cpu: match}\n"
        "neighbors: {dtypes: [float16, float64, bfloat16]}\n");
  const CommandResult run = report("kernel_sum.yaml", root_ / "work");
  ASSERT_EQ(run.status, 0) << run.output;
  const std::string& out = run.output;
  EXPECT_TRUE(has_line(out, "^- case: `kernel_sum~dtypes\\[float64\\]`$"))
      << out;
  EXPECT_TRUE(has_line(out, "^- backend: cpu$")) << out;
  EXPECT_TRUE(has_line(out, "^Verdict: FAIL\\.")) << out;
  EXPECT_TRUE(has_line(out, "^- chosen: the first run that failed")) << out;
  EXPECT_TRUE(has_line(out, "^- other runs that failed: none$")) << out;
  EXPECT_TRUE(has_line(out, "^\\| input \\| float64 \\| \\[3\\] \\|")) << out;
  EXPECT_TRUE(has_line(out,
                       "^`kernel_sum_dtypes_float64\\.yaml`: written out "
                       "from the run: this run is a neighbour"))
      << out;
  EXPECT_TRUE(has_line(out,
                       "^casebook run kernel_sum_dtypes_float64\\.yaml "
                       "--backend cpu$"))
      << out;
  EXPECT_TRUE(has_line(out, "^It gives FAIL on cpu \\(`contract`\\)")) << out;
  EXPECT_FALSE(has_line(out, "--filter")) << out;

  const CommandResult again =
      run_moved_bundle("kernel_sum_dtypes_float64.yaml");
  EXPECT_EQ(again.status, 1) << again.output;
  EXPECT_TRUE(
      has_line(again.output, "^kernel_sum_dtypes_float64 +FAIL contract$"))
      << again.output;
}

// A fixture of at most 64 elements is inlined as `values`; a larger one is
// listed with its sha256 and size and travels in the bundle, which
// reproduces the FAIL where nothing of the original tree is.
TEST_F(ReportBundle, SmallFixturesAreInlinedLargerOnesListedAndBundled) {
  fs::create_directories(root_ / "work" / "fixtures" / "big");
  casebook::write_npy(root_ / "work" / "fixtures" / "big" / "x.npy",
                      at::arange(100, at::kFloat).reshape({10, 10}));
  casebook::write_npy(root_ / "work" / "fixtures" / "small.npy",
                      at::arange(10, at::kFloat));
  const std::string sha =
      casebook::sha256_file(root_ / "work" / "fixtures" / "big" / "x.npy");
  write("cases/two_fixtures.yaml",
        "casebook: 1\nsummary: an add that must fail but returns outputs\n"
        "op: torch.add\n"
        "inputs:\n"
        "  input: {dtype: float32, file: big/x.npy, sha256: " +
            sha +
            "}\n"
            "  other: {dtype: float32, file: small.npy}\n"
            "expect: {cpu: {error: contract}}\n");
  const CommandResult run = report("cases/two_fixtures.yaml", root_ / "work");
  ASSERT_EQ(run.status, 0) << run.output;
  const std::string& out = run.output;
  EXPECT_TRUE(has_line(out, "^\\| input \\| `fixtures/big/x\\.npy` \\| " + sha +
                                " \\| [0-9]+ \\|$"))
      << out;
  EXPECT_TRUE(has_line(out,
                       "fixtures of at most 64 elements inlined as "
                       "`values` \\(other\\)"))
      << out;
  const std::string carried = carried_case_file(out);
  EXPECT_NE(carried.find("values: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]"),
            std::string::npos)
      << carried;
  EXPECT_NE(carried.find("file: \"big/x.npy\""), std::string::npos) << carried;
  EXPECT_TRUE(has_line(out, "and its fixtures under `fixtures/` beside it"))
      << out;
  EXPECT_EQ(casebook::sha256_file(bundle() / "fixtures" / "big" / "x.npy"),
            sha);
  EXPECT_FALSE(fs::exists(bundle() / "fixtures" / "small.npy"));
  // The report's case file loads, with its fixture, as the recipient's
  // casebook reads it.
  const casebook::LoadedCase loaded =
      casebook::load_case_file(bundle() / "two_fixtures.yaml");
  EXPECT_TRUE(loaded.ok()) << loaded.errors.front().to_string();

  const CommandResult again = run_moved_bundle("two_fixtures.yaml");
  EXPECT_EQ(again.status, 1) << again.output;
  EXPECT_TRUE(has_line(again.output, "^two_fixtures +FAIL")) << again.output;
  EXPECT_NE(again.output.find("expected contract, got outputs"),
            std::string::npos)
      << again.output;

  // The Python reproduction loads the carried .npy fixture, inlines the
  // small one, returns what casebook's run returned, and fails as it did:
  // the case expects an error.
  const std::string script =
      read_text(root_ / "elsewhere" / "attached" / "reproduce.py");
  EXPECT_NE(script.find("np.load(\"fixtures/big/x.npy\")"), std::string::npos)
      << script;
  EXPECT_NE(
      script.find(
          "torch.tensor([0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0], "
          "dtype=torch.float32)"),
      std::string::npos)
      << script;
  if (!python_has_torch()) GTEST_SKIP() << python() << " has no torch";
  const CommandResult python_run =
      run_shell("cd '" + (root_ / "elsewhere" / "attached").string() + "' && " +
                python() + " reproduce.py");
  EXPECT_EQ(python_run.status, 1) << python_run.output;
  EXPECT_TRUE(has_line(python_run.output, "\\[ *90\\., +92\\., +94\\."))
      << python_run.output;
  EXPECT_TRUE(has_line(python_run.output,
                       "^  the call returned; the case expects the error "
                       "contract$"))
      << python_run.output;
}

TEST_F(ReportBundle, ABundleNeverOverwritesAndAnAbsentBackendIsNoSubject) {
  write("sum.yaml",
        "casebook: 1\nsummary: s\nop: torch.sum\n"
        "inputs:\n  input: {dtype: float32, values: [1, 2, 3]}\n");
  ASSERT_EQ(report("sum.yaml --backend cpu", root_ / "work").status, 0);
  const CommandResult twice = report("sum.yaml --backend cpu", root_ / "work");
  // A file not written is exit 2, as every command's (README).
  EXPECT_EQ(twice.status, 2) << twice.output;
  EXPECT_NE(twice.output.find("exists (a bundle never overwrites a file)"),
            std::string::npos)
      << twice.output;

  const CommandResult cuda = run_casebook(
      "report cases/cross_entropy/label_out_of_range.yaml --backend cuda");
  if (cuda.status == 0) GTEST_SKIP() << "cuda is present here";
  EXPECT_EQ(cuda.status, 1) << cuda.output;
  EXPECT_TRUE(has_line(cuda.output, "nothing ran to report; cuda absent: "))
      << cuda.output;
  EXPECT_FALSE(has_line(cuda.output, "^Verdict: SKIP")) << cuda.output;
}

}  // namespace
