// Issue 51: a reference of its own (cpu64) computes from contiguous inputs,
// so that it cannot share a layout bug with the run it judges;
// `reference_layout: kept` gives it the inputs' layouts. No implementation
// here ignores a stride in float64 (the broken softmax twin takes float32
// only), so the op is aten::as_strided, whose result depends on its input's
// layout by definition: it is what a layout-sharing reference hides.
#include <gtest/gtest.h>

#include <string>

#include "run_one_case.h"

namespace casebook {
namespace {

using testing_support::run_one_case;
using testing_support::verdict_text;

std::string as_strided_case(const std::string& reference_layout) {
  return "casebook: 1\n"
         "summary: as_strided of a transposed input against cpu64\n"
         "op: aten::as_strided\n"
         "args: {size: [2, 3], stride: [1, 2]}\n"
         "backends: [cpu]\n"
         "reference: cpu64\n" +
         reference_layout +
         "inputs:\n"
         "  self: {shape: [3, 4], dtype: float32, fill: {arange: {start: 0, "
         "step: 1}}, layout: {transpose: [0, 1]}}\n";
}

TEST(ReferenceLayout, Cpu64ComputesFromContiguousInputsByDefault) {
  const CaseVerdict verdict = run_one_case("contiguous", as_strided_case(""));
  EXPECT_EQ(verdict.verdict, Verdict::kFail) << verdict_text(verdict);
  EXPECT_EQ(verdict.family, Family::kMismatch) << verdict_text(verdict);
  EXPECT_NE(verdict.message.find("against the reference (cpu64)"),
            std::string::npos)
      << verdict_text(verdict);
}

TEST(ReferenceLayout, KeptGivesTheReferenceTheInputsLayouts) {
  const CaseVerdict verdict =
      run_one_case("kept", as_strided_case("reference_layout: kept\n"));
  EXPECT_EQ(verdict.verdict, Verdict::kPass) << verdict_text(verdict);
}

}  // namespace
}  // namespace casebook
