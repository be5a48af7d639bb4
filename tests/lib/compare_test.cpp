// Comparison: the tolerances of torch.testing.assert_close per dtype, NaN,
// shape and dtype differences, and the text of the mismatch report.
#include "compare/compare.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>

#include "compare/value_text.h"

namespace casebook {
namespace {

Comparison compare_one(const at::Tensor& expected, const at::Tensor& actual,
                       ToleranceRule rule = {}) {
  return compare_outputs({expected}, {actual}, rule);
}

// Just inside and just outside atol + rtol*|expected| for each float dtype,
// at an expected value of 1 (exactly representable everywhere).
TEST(Compare, DefaultToleranceOfEachFloatingDtype) {
  struct Row {
    at::ScalarType type;
    double rtol;
    double atol;
  };
  for (Row row :
       {Row{at::kHalf, 1e-3, 1e-5}, Row{at::kBFloat16, 1.6e-2, 1e-5},
        Row{at::kFloat, 1.3e-6, 1e-5}, Row{at::kDouble, 1e-7, 1e-7}}) {
    SCOPED_TRACE(c10::toString(row.type));
    at::Tensor expected = at::ones({4}, at::kDouble).to(row.type);
    const double bound = row.atol + row.rtol;
    // Values of the dtype nearest to 1 + bound/2 (inside) and 1 + 3*bound
    // (outside), computed in the dtype itself.
    at::Tensor inside =
        at::full({4}, 1.0 + bound / 2, at::kDouble).to(row.type);
    at::Tensor outside =
        at::full({4}, 1.0 + 3 * bound, at::kDouble).to(row.type);
    EXPECT_TRUE(compare_one(expected, inside).equal());
    Comparison far = compare_one(expected, outside);
    EXPECT_FALSE(far.equal());
    EXPECT_EQ(far.mismatched, 4);
    EXPECT_DOUBLE_EQ(far.tolerance.rtol, row.rtol);
    EXPECT_DOUBLE_EQ(far.tolerance.atol, row.atol);
  }
}

TEST(Compare, IntegersAndBoolMustBeEqual) {
  at::Tensor expected = at::arange(5, at::kLong);
  at::Tensor actual = expected.clone();
  EXPECT_TRUE(compare_one(expected, actual).equal());
  actual[3] = 4;
  Comparison result = compare_one(expected, actual);
  EXPECT_EQ(result.mismatched, 1);
  EXPECT_EQ(result.max_abs_index, std::vector<int64_t>{3});
  // int64 beyond 2^53 differs by one: float64 could not tell them apart.
  at::Tensor big = at::full({1}, (int64_t{1} << 53) + 1, at::kLong);
  EXPECT_FALSE(compare_one(big, big - 1).equal());
  at::Tensor flags = at::arange(2).eq(0);  // [true, false]
  EXPECT_FALSE(compare_one(flags, flags.logical_not()).equal());
}

TEST(Compare, NanEqualsNanOnlyWithEqualNan) {
  at::Tensor expected = at::tensor({1.0f, NAN});
  at::Tensor actual = at::tensor({1.0f, NAN});
  Comparison strict = compare_one(expected, actual);
  EXPECT_FALSE(strict.equal());
  EXPECT_EQ(strict.mismatched, 1);
  EXPECT_TRUE(compare_one(expected, actual, {std::nullopt, true}).equal());
  // The same infinity is equal, like assert_close.
  at::Tensor inf = at::tensor({INFINITY, -INFINITY});
  EXPECT_TRUE(compare_one(inf, inf.clone()).equal());
}

TEST(Compare, NewNanOrInfIsItsOwnFamily) {
  at::Tensor expected = at::tensor({1.0f, 2.0f});
  Comparison result = compare_one(expected, at::tensor({1.0f, INFINITY}));
  EXPECT_EQ(result.family, Family::kNanOrInf);
  Comparison plain = compare_one(expected, at::tensor({1.0f, 3.0f}));
  EXPECT_EQ(plain.family, Family::kMismatch);
}

TEST(Compare, ShapeDtypeAndCountAreFailuresOfTheirOwn) {
  Comparison shape = compare_one(at::zeros({2, 3}), at::zeros({3, 2}));
  EXPECT_EQ(shape.difference, Comparison::Difference::kShape);
  EXPECT_EQ(shape.report, "shape differs: expected [2, 3], got [3, 2]");
  Comparison dtype = compare_one(at::zeros({2}), at::zeros({2}, at::kDouble));
  EXPECT_EQ(dtype.difference, Comparison::Difference::kDtype);
  EXPECT_EQ(dtype.report, "dtype differs: expected float32, got float64");
  Comparison count = compare_outputs({at::zeros({1})}, {}, {});
  EXPECT_EQ(count.difference, Comparison::Difference::kOutputCount);
  EXPECT_EQ(count.report, "output count differs: expected 1, got 0");
}

TEST(Compare, ReportGivesCountsWorstElementsAndTolerance) {
  at::Tensor expected = at::tensor({1.0, 2.0, 4.0, 0.5}).reshape({2, 2});
  at::Tensor actual = at::tensor({1.0, 2.5, 4.0, 0.25}).reshape({2, 2});
  Comparison result =
      compare_one(expected, actual, {Tolerance{0.0, 0.1}, false});
  EXPECT_EQ(result.report,
            "mismatched elements: 2 / 4 (50 %)\n"
            "greatest absolute difference: 0.5 at index [0, 1] (expected 2, "
            "got 2.5)\n"
            "greatest relative difference: 0.5 at index [1, 1] (expected 0.5, "
            "got 0.25)\n"
            "tolerance: rtol=0, atol=0.1");
  Comparison named =
      compare_outputs({expected}, {actual}, {Tolerance{0.0, 0.1}, false},
                      "the reference (cpu64)");
  EXPECT_EQ(named.report.substr(0, named.report.find('\n')),
            "mismatched elements: 2 / 4 (50 %) against the reference (cpu64)");
}

// A NaN whose sign bit is set (LibTorch 2.13's softmax of [nan, 0] gives
// one on some CPUs) reads `nan`, as every other NaN does, in every report.
TEST(Compare, ANegativeNanReadsNanWhateverItsSignBit) {
  const double negative_nan = std::copysign(std::nan(""), -1.0);
  at::Tensor expected = at::tensor({0.5, 0.25});
  at::Tensor actual = at::tensor({negative_nan, 0.25});
  const Comparison result = compare_one(expected, actual);
  EXPECT_NE(result.report.find("(expected 0.5, got nan)"), std::string::npos)
      << result.report;
  EXPECT_EQ(result.report.find("-nan"), std::string::npos) << result.report;
  at::Tensor complex =
      at::complex(at::tensor({0.5}), at::tensor({negative_nan}));
  EXPECT_EQ(reported_element(complex, 0, 6), "0.5+nanj");
  EXPECT_EQ(reported_number(-negative_nan, 8), "nan");
  EXPECT_EQ(reported_number(-0.25, 8), "-0.25");
}

// Outputs are compared 4M elements at a time: the worst element and the
// count must come out the same as for a whole comparison.
// Issue 51: "expected contract, got outputs" did not say what came out.
TEST(Compare, OutputsAreSaidWithDtypeShapeAndFirstValues) {
  EXPECT_EQ(
      reported_outputs({at::tensor({1.5F, 2.F, NAN, 4.F, 5.F}),
                        at::tensor({7, 8}, at::kLong), at::empty({0, 3})},
                       4),
      "float32 [5]: 1.5, 2, nan, 4, ...; int64 [2]: 7, 8; float32 [0, 3]");
  EXPECT_EQ(reported_outputs({}, 4), "none");
}

TEST(Compare, LargeOutputsAreComparedInChunksWithTheRightWorstElement) {
  const int64_t rows = 2500;
  const int64_t cols = 2000;  // 5M elements: two chunks
  at::Tensor expected = at::zeros({rows, cols});
  at::Tensor actual = expected.clone();
  actual.view({-1})[100] = 0.5f;        // first chunk
  actual.view({-1})[4'500'001] = 2.0f;  // second chunk, the worst
  Comparison result = compare_one(expected, actual);
  EXPECT_EQ(result.total, rows * cols);
  EXPECT_EQ(result.mismatched, 2);
  EXPECT_DOUBLE_EQ(result.max_abs_diff, 2.0);
  EXPECT_EQ(result.max_abs_index, (std::vector<int64_t>{2250, 1}));
}

TEST(Compare, NonContiguousOutputsCompareByValue) {
  at::Tensor base = at::arange(6, at::kFloat).reshape({2, 3});
  EXPECT_TRUE(compare_one(base.t().contiguous(), base.t()).equal());
}

}  // namespace
}  // namespace casebook
