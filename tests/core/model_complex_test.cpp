// Complex dtypes in a case file: elements as [re, im] pairs, {re, im} maps or
// real numbers, kept as re and im in turn; fills; default tolerances; the
// case writer's pairs; and each malformed element's exact load error.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "casebook/case_writer.h"
#include "casebook/loader.h"
#include "model_malformed.h"

namespace casebook {
namespace {

using testing_malformed::Malformed;
using testing_malformed::with_input;

TensorSpec input_of(const std::string& tensor) {
  const LoadedCase loaded = load_case_text(with_input(tensor), "cases/c.yaml");
  for (const CaseError& error : loaded.errors) {
    ADD_FAILURE() << error.to_string();
  }
  if (!loaded.value) return TensorSpec{};
  return loaded.value->inputs.at(0);
}

TEST(ComplexValues, PairsMapsAndRealNumbersAreReAndImInTurn) {
  const TensorSpec spec = input_of(
      "{dtype: complex64, values: [[[1, 2], {re: -0.5, im: 0.25}], [[3, -1], "
      "4]]}");
  EXPECT_EQ(spec.dtype, DType::kComplex64);
  EXPECT_EQ(spec.shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(spec.float_values,
            (std::vector<double>{1, 2, -0.5, 0.25, 3, -1, 4, 0}));
}

TEST(ComplexValues, ALoneElementIsRankZero) {
  EXPECT_EQ(input_of("{dtype: complex128, values: [1, 2]}").shape,
            std::vector<int64_t>{});
  const TensorSpec map =
      input_of("{dtype: complex128, values: {re: 1, im: 2}}");
  EXPECT_EQ(map.shape, std::vector<int64_t>{});
  EXPECT_EQ(map.float_values, (std::vector<double>{1, 2}));
}

TEST(ComplexValues, AFlatListOfPairsTakesTheShapeGiven) {
  const TensorSpec spec =
      input_of("{dtype: complex64, shape: [2, 1], values: [[1, 2], [3, 4]]}");
  EXPECT_EQ(spec.shape, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(spec.float_values, (std::vector<double>{1, 2, 3, 4}));
}

TEST(ComplexValues, FillsTakeAPairForFullAndDrawForNormal) {
  const TensorSpec full =
      input_of("{dtype: complex64, shape: [3], fill: {full: [1, -2]}}");
  EXPECT_EQ(full.fill.kind, Fill::Kind::kFull);
  EXPECT_EQ(full.fill.first, 1.0);
  EXPECT_EQ(full.fill.second, -2.0);
  const TensorSpec map = input_of(
      "{dtype: complex64, shape: [3], fill: {full: {re: 0.5, im: 3}}}");
  EXPECT_EQ(map.fill.second, 3.0);
  EXPECT_EQ(input_of("{dtype: complex128, shape: [3], fill: {normal: {mean: "
                     "0, std: 1}}}")
                .fill.kind,
            Fill::Kind::kNormal);
}

TEST(ComplexValues, DtypesTolerancesAndNames) {
  EXPECT_EQ(parse_dtype("complex64"), DType::kComplex64);
  EXPECT_EQ(dtype_name(DType::kComplex128), "complex128");
  EXPECT_FALSE(is_floating(DType::kComplex64));
  EXPECT_TRUE(is_complex(DType::kComplex128));
  EXPECT_FALSE(is_complex(DType::kFloat64));
  EXPECT_EQ(default_tolerance(DType::kComplex64).rtol, 1.3e-6);
  EXPECT_EQ(default_tolerance(DType::kComplex64).atol, 1e-5);
  EXPECT_EQ(default_tolerance(DType::kComplex128).rtol, 1e-7);
  EXPECT_EQ(default_tolerance(DType::kComplex128).atol, 1e-7);
}

TEST(ComplexValues, TheCaseWriterWritesPairsThatReadBackTheSame) {
  const LoadedCase loaded =
      load_case_text(with_input("{dtype: complex64, values: [[1.5, -2], 3]}") +
                         "outputs: {0: {dtype: complex64, shape: [2], fill: "
                         "{full: [0, 1]}}}\n",
                     "cases/c.yaml");
  ASSERT_TRUE(loaded.value.has_value());
  const std::string written = case_to_yaml(*loaded.value);
  EXPECT_NE(written.find("values: [[1.5, -2], [3, 0]]"), std::string::npos)
      << written;
  EXPECT_NE(written.find("fill: {full: [0, 1]}"), std::string::npos) << written;
  const LoadedCase again = load_case_text(written, "cases/c.yaml");
  ASSERT_TRUE(again.value.has_value()) << written;
  EXPECT_EQ(again.value->inputs.at(0).float_values,
            (std::vector<double>{1.5, -2, 3, 0}));
  EXPECT_EQ(again.value->outputs.at(0).values->fill.second, 1.0);
}

std::vector<Malformed> complex_malformed() {
  const std::string f = "cases/bad.yaml:";
  const std::string what =
      "expected a complex number: a pair [re, im], a map {re: .., im: ..} or "
      "a real number";
  return {
      {"one_part",
       with_input("{dtype: complex64, values: [[1]]}"),
       {f + "5:34: `inputs.x.values[0]`: " + what + "; got a list of 1 entry"}},
      {"three_parts",
       with_input("{dtype: complex64, values: [1, 2, 3]}"),
       {f + "5:33: `inputs.x.values`: " + what + "; got a list of 3 entries"}},
      {"map_without_im",
       with_input("{dtype: complex64, values: [{re: 1}]}"),
       {f + "5:34: `inputs.x.values[0]`: " + what + "; the map lacks `im`"}},
      {"map_unknown_part",
       with_input("{dtype: complex64, values: [{re: 1, imag: 2}]}"),
       {f + "5:42: `inputs.x.values[0].imag`: unknown key `imag`"}},
      {"string_part",
       with_input("{dtype: complex64, values: [[1, two]]}"),
       {f + "5:38: `inputs.x.values[0][1]`: expected a number for complex64; "
            "got `two`"}},
      {"string_element",
       with_input("{dtype: complex128, values: [[[1, 2], abc]]}"),
       {f + "5:44: `inputs.x.values[0][1]`: expected a number for complex128; "
            "got `abc`"}},
      {"ragged_row",
       with_input("{dtype: complex64, values: [[[1, 2], [3, 4]], [5, 6]]}"),
       {f + "5:52: `inputs.x.values[1]`: ragged values: expected a row of 2 "
            "elements like the first; got one complex element"}},
      {"part_not_held",
       with_input("{dtype: complex64, values: [[1, 16777217]]}"),
       {f + "5:38: `inputs.x.values[0][1]`: complex64 cannot hold 16777217 "
            "exactly: it would become 16777216"}},
      {"full_three",
       with_input("{dtype: complex64, shape: [2], fill: {full: [1, 2, 3]}}"),
       {f + "5:50: `inputs.x.fill.full`: " + what + "; got a list"}},
      {"full_without_re",
       with_input("{dtype: complex64, shape: [2], fill: {full: {im: 2}}}"),
       {f + "5:50: `inputs.x.fill.full`: " + what + "; the map lacks `re`"}},
  };
}

class MalformedComplex : public testing::TestWithParam<Malformed> {};

TEST_P(MalformedComplex, GivesExactlyTheseMessages) {
  testing_malformed::expect_messages_start_with(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Loader, MalformedComplex,
                         testing::ValuesIn(complex_malformed()),
                         testing_malformed::name_of);

}  // namespace
}  // namespace casebook
