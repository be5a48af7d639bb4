// `casebook check` catches what `run` refuses, without running the op, and
// the command line speaks PyTorch (issue 34, parts 5 and 6): a fixture of
// another shape or sha256, `reduction: average`, a neighbour whose outcome
// cannot be derived, a GPU backend without the `expect` the CPU's error
// needs; `F.cross_entropy` and `nn.CrossEntropyLoss`, `casebook diagnos`,
// `casebook neighbours`.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "run_command.h"

namespace casebook {
namespace {

namespace fs = std::filesystem;
using testing_support::has_line;
using testing_support::run_casebook;
using testing_support::TempFolder;

constexpr const char* kHeader =
    "casebook: 1\n"
    "summary: s\n"
    "op: torch.cross_entropy\n";
constexpr const char* kInput =
    "  input: {shape: [3, 4], dtype: float32, fill: {normal: {mean: 0, std: "
    "1}}, seed: 7}\n";

// A project of its own: cases/ and fixtures/ with the 4x5 logits.
class Project {
 public:
  Project() {
    fs::create_directories(cases());
    fs::create_directories(folder_.path() / "fixtures" / "j");
    fs::copy_file(fs::path(CASEBOOK_SOURCE_DIR) / "fixtures" / "cross_entropy" /
                      "logits_4x5.npy",
                  folder_.path() / "fixtures" / "j" / "logits_4x5.npy");
  }
  fs::path cases() const { return folder_.path() / "cases"; }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(cases() / name) << text;
  }

 private:
  TempFolder folder_;
};

TEST(CheckCatchesWhatRunRefuses, FixturesArgumentWordsAndMissingOutcomes) {
  Project project;
  project.write("shape.yaml",
                std::string(kHeader) +
                    "inputs:\n"
                    "  input: {dtype: float32, shape: [3, 5], file: "
                    "j/logits_4x5.npy}\n"
                    "  target: {dtype: int64, values: [4, 0, 2]}\n");
  project.write("sha.yaml", std::string(kHeader) +
                                "inputs:\n"
                                "  input: {dtype: float32, shape: [4, 5], "
                                "file: j/logits_4x5.npy, sha256: " +
                                std::string(64, '0') +
                                "}\n"
                                "  target: {dtype: int64, values: [4, 0, 2, "
                                "1]}\n");
  project.write("average.yaml", std::string(kHeader) +
                                    "args: {reduction: average}\n"
                                    "inputs:\n" +
                                    kInput +
                                    "  target: {dtype: int64, values: [0, 2, "
                                    "1]}\n");
  project.write("underive.yaml", std::string(kHeader) + "inputs:\n" + kInput +
                                     "  target: {dtype: int64, values: [0, 2, "
                                     "1]}\n"
                                     "expect:\n"
                                     "  cpu: {xfail: a known bug}\n"
                                     "neighbors:\n"
                                     "  label_limits: {}\n");
  project.write("nohip.yaml", std::string(kHeader) + "inputs:\n" + kInput +
                                  "  target: {dtype: int64, values: [0, 2, "
                                  "4]}\n"
                                  "expect:\n"
                                  "  cpu: {error: index_out_of_range}\n"
                                  "  cuda: {error: device_assert}\n");
  const auto check = run_casebook("check " + project.cases().string());
  EXPECT_EQ(check.status, 1) << check.output;
  const std::string out = check.output;
  EXPECT_TRUE(has_line(out,
                       "shape\\.yaml:5:10: input `input`: fixture "
                       "`j/logits_4x5\\.npy`: shape expected \\[3, 5\\], "
                       "found \\[4, 5\\]$"))
      << out;
  EXPECT_TRUE(has_line(out,
                       "sha\\.yaml:5:10: input `input`: fixture "
                       "`j/logits_4x5\\.npy`: sha256 expected 0{64}, "
                       "found edd2287212b0"))
      << out;
  EXPECT_TRUE(has_line(out,
                       "average\\.yaml:4:19: `torch\\.cross_entropy`'s "
                       "argument `reduction`: expected one of mean, sum, "
                       "none; got `average`"))
      << out;
  EXPECT_TRUE(has_line(out,
                       "underive\\.yaml:3:5: the expected outcome of "
                       "underive~label_limits\\[C\\] on cpu cannot be "
                       "derived: "))
      << out;
  EXPECT_TRUE(has_line(out, "nohip\\.yaml:.*hip")) << out;
  EXPECT_TRUE(has_line(out, "^5 case files checked, ")) << out;
  // What check refuses, run refuses too (an ERROR before the op).
  const auto run = run_casebook("run --backend cpu --brief --evidence '' " +
                                project.cases().string() + "/average.yaml");
  EXPECT_EQ(run.status, 1) << run.output;
}

// Issue 51: `check` and `run` agree on layouts. A stride 0 (an expanded
// input) is accepted by both; values that differ where elements share
// storage are refused by both, at the input's line.
TEST(CheckCatchesWhatRunRefuses, LayoutsAsRunMakesThem) {
  Project project;
  const std::string target = "  target: {dtype: int64, values: [0, 2, 1]}\n";
  project.write("expanded.yaml",
                std::string(kHeader) + "inputs:\n" +
                    "  input: {dtype: float32, shape: [3, 4], values: [[1, 2, "
                    "3, 4], [1, 2, 3, 4], [1, 2, 3, 4]], layout: {stride: [0, "
                    "1]}}\n" +
                    target);
  project.write("differ.yaml",
                std::string(kHeader) + "inputs:\n" +
                    "  input: {dtype: float32, shape: [3, 4], values: [[1, 2, "
                    "3, 4], [1, 2, 3, 4], [1, 2, 3, 5]], layout: {stride: [0, "
                    "1]}}\n" +
                    target);
  const auto check = run_casebook("check " + project.cases().string());
  EXPECT_EQ(check.status, 1) << check.output;
  EXPECT_TRUE(has_line(check.output,
                       "differ\\.yaml:5:10: input `input`: layout\\.stride "
                       "\\[0, 1\\] puts element \\[2, 3\\] on storage "
                       "element 3, which holds element \\[0, 3\\], and "
                       "their values differ"))
      << check.output;
  EXPECT_FALSE(has_line(check.output, "expanded\\.yaml")) << check.output;
  const std::string run = "run --backend cpu --brief --evidence '' ";
  const auto expanded =
      run_casebook(run + (project.cases() / "expanded.yaml").string());
  EXPECT_EQ(expanded.status, 0) << expanded.output;
  const auto differ =
      run_casebook(run + (project.cases() / "differ.yaml").string());
  EXPECT_EQ(differ.status, 1) << differ.output;
  EXPECT_TRUE(has_line(differ.output, "their values differ")) << differ.output;
}

TEST(SpeakPyTorch, PythonSpellingsOfAnOpSuggestTheCasesName) {
  Project project;
  for (const char* op : {"F.cross_entropy", "nn.CrossEntropyLoss",
                         "torch.nn.functional.cross_entropy"}) {
    project.write(std::string(op) + ".yaml",
                  std::string("casebook: 1\nsummary: s\nop: ") + op +
                      "\ninputs:\n" + kInput +
                      "  target: {dtype: int64, values: [0, 2, 1]}\n");
  }
  const auto check = run_casebook("check " + project.cases().string());
  EXPECT_EQ(check.status, 1) << check.output;
  for (const char* op : {"F\\.cross_entropy", "nn\\.CrossEntropyLoss",
                         "torch\\.nn\\.functional\\.cross_entropy"}) {
    EXPECT_TRUE(has_line(check.output,
                         std::string(op) + "\\.yaml:3:5: .*`" + op +
                             "`; did you mean `torch\\.cross_entropy`\\?$"))
        << op << "\n"
        << check.output;
  }
}

TEST(SpeakPyTorch, AMisspeltCommandGetsTheNearestAndNeighboursIsAccepted) {
  const auto diagnos =
      run_casebook("diagnos cases/cross_entropy/label_out_of_range.yaml");
  EXPECT_EQ(diagnos.status, 2) << diagnos.output;
  EXPECT_TRUE(has_line(diagnos.output,
                       "^casebook: unknown command `diagnos`; did you mean "
                       "`diagnose`\\?"))
      << diagnos.output;
  EXPECT_EQ(diagnos.output.find("A subcommand is required"), std::string::npos);
  const auto british =
      run_casebook("neighbours cases/cross_entropy/label_out_of_range.yaml");
  EXPECT_EQ(british.status, 0) << british.output;
  EXPECT_TRUE(has_line(british.output, "label_limits\\[C\\]"))
      << british.output;
}

}  // namespace
}  // namespace casebook
