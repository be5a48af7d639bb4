// Issue 23: a captured case that only the op finds invalid, when it is
// called (an argument of the wrong kind: the child reports invalid_case), is
// never "a reproduced failure": `--expect-failure` exits 1 on it, the reason
// is printed, and its case file does not stay behind to block the corrected
// capture.
#include <gtest/gtest.h>

#include <filesystem>

#include "run_command.h"

namespace casebook {
namespace {

namespace fs = std::filesystem;
using testing_support::has_line;
using testing_support::run_casebook;
using testing_support::TempFolder;

class CaptureInvalidAtRun : public testing::Test {
 protected:
  // `arg`: K=V.
  std::string capture(const std::string& arg) const {
    const std::string batch =
        std::string(CASEBOOK_TEST_DATA) + "/capture/batch.pt";
    return "capture --op torch.cross_entropy --cases " + cases().string() +
           " --backend cpu --name wrong_kind --tensor input=" + batch +
           "#input --tensor target=" + batch + "#target --arg " + arg;
  }
  fs::path cases() const { return folder_.path() / "cases"; }
  fs::path case_file() const {
    return cases() / "cross_entropy" / "wrong_kind.yaml";
  }

 private:
  TempFolder folder_;
};

TEST_F(CaptureInvalidAtRun, IsNotAReproducedFailureAndExpectFailureExits1) {
  // A word where a number is wanted: only the op's call reads the kind
  // (`reduction: banana`, a word the op lists, is refused before writing).
  const auto invalid =
      run_casebook(capture("label_smoothing=banana") + " --expect-failure");
  EXPECT_EQ(invalid.status, 1) << invalid.output;
  EXPECT_TRUE(
      has_line(invalid.output,
               "^casebook capture: the case is invalid, so it "
               "reproduces nothing \\(removed .*wrong_kind\\.yaml\\):$"))
      << invalid.output;
  EXPECT_TRUE(has_line(invalid.output,
                       "^  .*argument `label_smoothing`: expected a number, "
                       "got .*banana"))
      << invalid.output;
  EXPECT_FALSE(has_line(invalid.output, "reproduces a failure"))
      << invalid.output;
  EXPECT_FALSE(fs::exists(case_file())) << invalid.output;

  // Without --expect-failure it is a usage error, as an invalid case found
  // before writing is; the corrected capture takes the same name.
  const auto plain = run_casebook(capture("label_smoothing=banana"));
  EXPECT_EQ(plain.status, 2) << plain.output;
  const auto corrected =
      run_casebook(capture("reduction=mean") + " --expect-failure");
  EXPECT_EQ(corrected.status, 0) << corrected.output;
  // It fails; with no origin.first_error to compare with, it says so.
  EXPECT_TRUE(has_line(corrected.output,
                       R"(^the capture fails \(cpu: FAIL index_out_of_range)"))
      << corrected.output;
  EXPECT_TRUE(fs::exists(case_file())) << corrected.output;
}

}  // namespace
}  // namespace casebook
