// `casebook diagnose` on this machine (no GPU needed): real reruns in fresh
// processes, one change at a time, read by the first run's family, and what
// it could not do said once, with what to run where.
#include <gtest/gtest.h>

#include <string>

#include "run_command.h"

namespace {

using Result = casebook::testing_support::CommandResult;
using casebook::testing_support::has_line;
using casebook::testing_support::run_casebook;

size_t diagnose_count_of(const std::string& text, const std::string& needle) {
  size_t count = 0;
  for (size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

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
                       "^float64 +PASSES: PASS \\(the outputs match the "
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
                       "^  the outcome depends on the precision: in float64 "
                       "\\(float32 -> float64\\) the outputs match"))
      << out;
  // A case for the CPU alone: the GPU reruns do not apply, nothing is
  // missing.
  EXPECT_TRUE(has_line(out,
                       "^launch blocking +not run: the case runs on the CPU "
                       "only$"))
      << out;
  EXPECT_FALSE(has_line(out, "could not run here")) << out;
  EXPECT_FALSE(has_line(out, "^not run here:")) << out;
  EXPECT_TRUE(
      has_line(out, "^  a CPU success is a hint, not a CUDA validation"))
      << out;
}

// The issue's wrong conclusion: a float16 op missing on the CPU "depended
// on the precision". With LibTorch before 2.1 the CPU has no float16 matmul.
TEST(Diagnose, AMissingFloat16KernelIsAMissingKernelNotPrecision) {
  Result run =
      run_casebook("diagnose tests/data/diagnose/matmul_float16_cpu.yaml");
  ASSERT_EQ(run.status, 0) << run.output;
  const std::string& out = run.output;
  if (has_line(out, "^as written +PASS")) {
    GTEST_SKIP() << "this LibTorch has a float16 matmul on the CPU";
  }
  EXPECT_TRUE(has_line(out,
                       "^as written +FAIL op_unavailable: .*not implemented "
                       "for 'Half'"))
      << out;
  EXPECT_TRUE(has_line(out, "^float32 +PASSES: PASS")) << out;
  EXPECT_TRUE(has_line(out,
                       "^  the kernel is missing for the case's dtype on cpu: "
                       "in float32 \\(float16 -> float32\\) the op runs"))
      << out;
  EXPECT_FALSE(has_line(out, "depends on the precision")) << out;
}

// The issue's float64 rerun that fails for another reason was "same
// outcome": it changed the failure, and both are shown. (The sum's `dtype`
// argument keeps its output float32 where the rerun expects float64.)
TEST(Diagnose, ARerunThatFailsOtherwiseChangedTheFailure) {
  Result run =
      run_casebook("diagnose tests/data/diagnose/sum_outputs_float32.yaml");
  ASSERT_EQ(run.status, 0) << run.output;
  const std::string& out = run.output;
  EXPECT_TRUE(has_line(out,
                       "^float64 +CHANGED: FAIL mismatch: output 0: dtype "
                       "differs"))
      << out;
  EXPECT_TRUE(has_line(out,
                       "^  float64 \\(float32 -> float64; expected output 0 as "
                       "float64\\) changed the "
                       "failure without removing it: first mismatch: output "
                       "0: mismatched elements: 1 / 1 .*; now mismatch: "
                       "output 0: dtype differs"))
      << out;
  EXPECT_FALSE(has_line(out, "^float64 +same outcome")) << out;
}

// Issue 34: the float32 and float64 reruns of a bfloat16 case expect its
// output in their dtype (they failed with `dtype differs from the case's:
// expected bfloat16`), the values within bfloat16's tolerance.
TEST(Diagnose, ThePrecisionRerunsExpectTheOutputInTheirDtype) {
  Result run =
      run_casebook("diagnose tests/data/diagnose/softmax_bfloat16.yaml");
  ASSERT_EQ(run.status, 0) << run.output;
  const std::string& out = run.output;
  EXPECT_TRUE(has_line(out, "^as written +PASS")) << out;
  for (const char* name : {"float32", "float64"}) {
    EXPECT_TRUE(has_line(out, std::string("^") + name +
                                  " +same outcome: PASS \\(the outputs match "
                                  "the reference\\)$"))
        << out;
    EXPECT_TRUE(has_line(out, std::string("bfloat16 -> ") + name +
                                  "; expected output 0 as " + name + "\\)$"))
        << out;
  }
  EXPECT_FALSE(has_line(out, "dtype differs")) << out;
}

// Issue 34: NaN and inf in an input are said as a finding, before the
// reruns.
TEST(Diagnose, NonFiniteInputsAreAFinding) {
  Result run = run_casebook("diagnose tests/data/diagnose/nan_input.yaml");
  ASSERT_EQ(run.status, 0) << run.output;
  const std::string& out = run.output;
  EXPECT_TRUE(has_line(out,
                       "^  non-finite input: input `input` holds 1 NaN and "
                       "1 inf among its 6 elements \\(first at \\[0, 1\\]\\)$"))
      << out;
  EXPECT_LT(out.find("findings:"), out.find("as written")) << out;
  Result clean = run_casebook("diagnose tests/data/diagnose/passes.yaml");
  EXPECT_FALSE(has_line(clean.output, "^findings:")) << clean.output;
}

TEST(Diagnose, AnIndexErrorIsRerunWithValidIndicesAndTheMissingGpuSaidOnce) {
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
  // The rerun explain recommends: the offending label replaced by a valid
  // one, the others kept.
  EXPECT_TRUE(has_line(out, "^valid indices +PASSES: PASS")) << out;
  EXPECT_TRUE(has_line(out,
                       "^  with every index in range \\(target\\[2\\]: 4 -> "
                       "0\\) the run passes: the data is at fault"))
      << out;
  EXPECT_FALSE(has_line(out, "no single change altered the outcome")) << out;
  if (out.find("reruns on: cpu") == std::string::npos) {
    GTEST_SKIP() << "a GPU is present: the CPU-only conclusions do not apply";
  }
  EXPECT_TRUE(
      has_line(out, "^launch blocking +not run: needs a GPU \\(below\\)$"))
      << out;
  EXPECT_TRUE(has_line(out,
                       "^  2 reruns could not run here \\(launch blocking, "
                       "memcheck\\) and say nothing either way$"))
      << out;
  EXPECT_TRUE(has_line(out,
                       "^not run here: the GPU reruns \\(launch blocking, "
                       "memcheck\\); the reruns above ran on the CPU$"))
      << out;
  EXPECT_TRUE(has_line(out,
                       "^  on a machine with an NVIDIA GPU: casebook diagnose "
                       "cases/cross_entropy/label_out_of_range\\.yaml "
                       "--backend cuda$"))
      << out;
  // Each absent backend's reason once (it was printed three times).
  EXPECT_EQ(diagnose_count_of(out, "cuda: absent: "), 1u) << out;
  EXPECT_EQ(diagnose_count_of(out, "hip: absent: "), 1u) << out;
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
