// `values`: shape inference, flat values with shape, integers kept exactly,
// NaN and infinities, bool spellings.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "casebook/loader.h"

namespace casebook {
namespace {

// Loads a one-input case whose tensor is `tensor` (a flow map).
TensorSpec load_tensor(const std::string& tensor) {
  const std::string text =
      "casebook: 1\nsummary: values\nop: torch.neg\ninputs:\n  x: " + tensor +
      "\n";
  const LoadedCase loaded = load_case_text(text, "cases/values.yaml");
  std::string errors;
  for (const CaseError& error : loaded.errors) errors += error.to_string();
  EXPECT_TRUE(loaded.ok()) << errors;
  if (!loaded.ok() || loaded.value->inputs.empty()) return TensorSpec{};
  return loaded.value->inputs.front();
}

using Shape = std::vector<int64_t>;

TEST(Values, ShapeIsInferredFromNestedLists) {
  EXPECT_EQ(load_tensor("{dtype: float32, values: [[[1], [2]], [[3], [4]], "
                        "[[5], [6]]]}")
                .shape,
            (Shape{3, 2, 1}));
  EXPECT_EQ(load_tensor("{dtype: int8, values: [1, 2, 3]}").shape, Shape{3});
  EXPECT_EQ(load_tensor("{dtype: int8, values: []}").shape, Shape{0});
  EXPECT_EQ(load_tensor("{dtype: int8, values: [[], []]}").shape,
            (Shape{2, 0}));
  const TensorSpec scalar = load_tensor("{dtype: float64, values: 2.5}");
  EXPECT_TRUE(scalar.shape.empty());
  EXPECT_EQ(scalar.float_values, std::vector<double>{2.5});
}

TEST(Values, NestedValuesAreRowMajor) {
  const TensorSpec spec =
      load_tensor("{dtype: int32, values: [[1, 2, 3], [4, 5, 6]]}");
  EXPECT_EQ(spec.source, TensorSpec::Source::kValues);
  EXPECT_EQ(spec.shape, (Shape{2, 3}));
  EXPECT_EQ(spec.int_values, (std::vector<int64_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_TRUE(spec.float_values.empty());
}

TEST(Values, FlatValuesTakeTheGivenShape) {
  const TensorSpec spec =
      load_tensor("{dtype: float32, shape: [2, 2], values: [1, 2.5, -3, 4]}");
  EXPECT_EQ(spec.shape, (Shape{2, 2}));
  EXPECT_EQ(spec.float_values, (std::vector<double>{1, 2.5, -3, 4}));
  EXPECT_EQ(load_tensor("{dtype: float32, shape: [2, 0], values: []}").shape,
            (Shape{2, 0}));
  EXPECT_EQ(
      load_tensor("{dtype: float32, shape: [1, 2], values: [[1, 2]]}").shape,
      (Shape{1, 2}));
}

TEST(Values, IntegersAreKeptExactly) {
  // 2^53 + 1 is not a double: it must survive as an integer.
  const TensorSpec spec = load_tensor(
      "{dtype: int64, values: [9007199254740993, -9223372036854775808, "
      "9223372036854775807, 0x10, -7]}");
  EXPECT_EQ(spec.int_values,
            (std::vector<int64_t>{
                9007199254740993LL, std::numeric_limits<int64_t>::min(),
                std::numeric_limits<int64_t>::max(), 16, -7}));
}

// The refusals of 1e400 and 1e-400 are in the hostile corpus; what float64
// does hold, the smallest subnormal and the largest finite value, loads.
TEST(Values, TheExtremesFloat64HoldsLoadExactly) {
  const TensorSpec spec = load_tensor(
      "{dtype: float64, values: [4.9406564584124654e-324, "
      "1.7976931348623157e308, -.inf, 0.0]}");
  ASSERT_EQ(spec.float_values.size(), 4u);
  EXPECT_EQ(spec.float_values[0], std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(spec.float_values[1], std::numeric_limits<double>::max());
  EXPECT_TRUE(std::isinf(spec.float_values[2]));
}

TEST(Values, IntegerRangesFollowTheDtype) {
  EXPECT_EQ(load_tensor("{dtype: uint8, values: [0, 255]}").int_values,
            (std::vector<int64_t>{0, 255}));
  EXPECT_EQ(load_tensor("{dtype: int8, values: [-128, 127]}").int_values,
            (std::vector<int64_t>{-128, 127}));
  EXPECT_EQ(load_tensor("{dtype: int32, values: [-2147483648, 2147483647]}")
                .int_values,
            (std::vector<int64_t>{-2147483648LL, 2147483647LL}));
}

TEST(Values, FloatingValuesTakeNanAndInfinities) {
  const TensorSpec spec = load_tensor(
      "{dtype: float32, values: [.nan, .inf, -.inf, .NaN, +.Inf, 1e-3, 7]}");
  ASSERT_EQ(spec.float_values.size(), 7u);
  EXPECT_TRUE(std::isnan(spec.float_values[0]));
  EXPECT_EQ(spec.float_values[1], std::numeric_limits<double>::infinity());
  EXPECT_EQ(spec.float_values[2], -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(spec.float_values[3]));
  EXPECT_EQ(spec.float_values[4], std::numeric_limits<double>::infinity());
  EXPECT_DOUBLE_EQ(spec.float_values[5], 1e-3);
  EXPECT_DOUBLE_EQ(spec.float_values[6], 7.0);
  EXPECT_TRUE(spec.int_values.empty());
}

TEST(Values, BoolTakesTrueFalseZeroOne) {
  const TensorSpec spec =
      load_tensor("{dtype: bool, values: [true, false, 1, 0, True]}");
  EXPECT_EQ(spec.int_values, (std::vector<int64_t>{1, 0, 1, 0, 1}));
}

}  // namespace
}  // namespace casebook
