// NaN the case states (an output's `nan` entry) agrees with NaN in the
// reference's output too, through real child runs on the CPU against the
// cpu64 reference. Seen on an H200: torch/log_softmax_nan_row failed on cuda
// with "NaN on both sides" although its NaN positions were stated.
#include <gtest/gtest.h>

#include <string>

#include "run_one_case.h"

namespace casebook {
namespace {

using testing_support::run_one_case;
using testing_support::verdict_text;

// log_softmax over rows, the second row NaN; `entry` is output 0's entry.
std::string nan_row_case(const std::string& entry) {
  return "casebook: 1\n"
         "summary: a NaN row against the cpu64 reference\n"
         "op: torch.log_softmax\n"
         "args: {dim: 1}\n"
         "backends: [cpu]\n"
         "reference: cpu64\n"
         "inputs:\n"
         "  input: {dtype: float32, values: [[0, 1, 2], [.nan, 0, 0]]}\n" +
         (entry.empty() ? "" : "outputs:\n  0: " + entry + "\n");
}

TEST(ReferenceNan, StatedNanPositionsAgreeWithTheReferencesNan) {
  const CaseVerdict verdict = run_one_case(
      "stated", nan_row_case("{shape: [2, 3], nan: [[1, 0], [1, 1], [1, 2]]}"));
  EXPECT_EQ(verdict.verdict, Verdict::kPass) << verdict_text(verdict);
}

TEST(ReferenceNan, NanNotStatedStillDiffersFromTheReferencesNan) {
  const CaseVerdict verdict = run_one_case("unstated", nan_row_case(""));
  EXPECT_EQ(verdict.verdict, Verdict::kFail) << verdict_text(verdict);
  EXPECT_EQ(verdict.family, Family::kMismatch);
  EXPECT_NE(verdict.details.find("NaN on both sides"), std::string::npos)
      << verdict_text(verdict);
}

}  // namespace
}  // namespace casebook
