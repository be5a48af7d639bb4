// `casebook diagnose` on this machine (no GPU needed): real reruns in fresh
// processes, one change at a time, and what it says it could not do.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <regex>
#include <string>

#include "run_command.h"

namespace {

using Result = casebook::testing_support::CommandResult;
using casebook::testing_support::has_line;
using casebook::testing_support::run_casebook;

TEST(Diagnose, Float64ChangesAPrecisionMismatchOnTheCpu) {
  Result run =
      run_casebook("diagnose tests/data/diagnose/matmul_vs_cpu64.yaml");
  ASSERT_EQ(run.status, 0) << run.output;
  const std::string& out = run.output;
  EXPECT_TRUE(has_line(out,
                       "^as written +FAIL mismatch: mismatched elements: "
                       "[0-9]+ / 256"))
      << out;
  EXPECT_TRUE(has_line(out,
                       "^float64 +CHANGED: PASS \\(the outputs match the "
                       "reference\\)$"))
      << out;
  EXPECT_TRUE(has_line(out,
                       "^float32 +not run: every floating input already "
                       "is float32$"))
      << out;
  // The transposed input made contiguous: still the same mismatch.
  EXPECT_TRUE(has_line(out, "^contiguous +same outcome: FAIL mismatch: "))
      << out;
  EXPECT_TRUE(
      has_line(out, "^cpu +not run: the reruns already run on the CPU$"))
      << out;
  EXPECT_TRUE(has_line(out,
                       "^  float64 changed the outcome \\(FAIL -> PASS\\): "
                       "the outcome depends on the precision"))
      << out;
  EXPECT_TRUE(
      has_line(out, "^  a CPU success is a hint, not a CUDA validation"))
      << out;
  EXPECT_TRUE(
      has_line(out, "^  blocking mode is for diagnosis, not for timing"))
      << out;
}

TEST(Diagnose, AnIdUnderCasesAndWhatItCouldNotDoWithoutAGpu) {
  Result run = run_casebook("diagnose cross_entropy/label_out_of_range");
  ASSERT_EQ(run.status, 0) << run.output;
  const std::string& out = run.output;
  EXPECT_TRUE(has_line(out,
                       "^diagnose cross_entropy/label_out_of_range "
                       "\\(cases/cross_entropy/label_out_of_range\\.yaml\\)$"))
      << out;
  EXPECT_TRUE(has_line(out,
                       "^as written +FAIL index_out_of_range: Target 4 is "
                       "out of bounds"))
      << out;
  EXPECT_TRUE(has_line(out, "^float64 +same outcome: FAIL index_out_of_range"))
      << out;
  EXPECT_TRUE(has_line(out, "^  no single change altered the outcome$")) << out;
  if (out.find("reruns on: cpu") == std::string::npos) {
    GTEST_SKIP() << "a GPU is present: the CPU-only conclusions do not apply";
  }
  EXPECT_TRUE(has_line(out, "^launch blocking +not run: no GPU backend here$"))
      << out;
  EXPECT_TRUE(has_line(out, "^could not do here:$")) << out;
  EXPECT_TRUE(has_line(out, "^  the run on cuda: ")) << out;
  EXPECT_TRUE(has_line(out, "^  launch blocking: no GPU backend here$")) << out;
  EXPECT_TRUE(has_line(out, "^  memcheck: no CUDA device here")) << out;
  // Never the NVIDIA variable where no CUDA stack was found.
  EXPECT_EQ(out.find("CUDA_LAUNCH_BLOCKING=1"), std::string::npos) << out;
}

TEST(Diagnose, UnknownCaseAndBackendAreUsageErrors) {
  Result run = run_casebook("diagnose no/such/case");
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.output.find("`no/such/case`: expected a case file or the id of "
                            "a case under cases/"),
            std::string::npos)
      << run.output;
  EXPECT_EQ(
      run_casebook("diagnose cross_entropy/label_out_of_range --backend gpu")
          .status,
      2);
}

}  // namespace
