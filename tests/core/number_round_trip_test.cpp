// Numbers exactly, kept (issue 36, part 2): what casebook writes into case
// text reads back as the same number, bit for bit, and what no dtype can
// hold is refused at its line. The shared writers are number_text and
// yaml_number (casebook/number_text.h) and case_to_yaml
// (casebook/case_writer.h), which `casebook neighbors --write` and the case a
// report carries use; `show --write-expected` (tests/lib/number_writers_test)
// writes through yaml_number too.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "casebook/case_writer.h"
#include "casebook/loader.h"
#include "casebook/number_text.h"
#include "loaded_case_checks.h"

namespace casebook {
namespace {

uint64_t bits_of(double value) {
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

double from_bits(uint64_t bits) {
  double value = 0;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// Doubles a writer must keep: the extremes, subnormals, signed zeros, values
// that need all 17 digits, and integers past 2^53.
std::vector<double> hard_doubles() {
  return {0.1,
          1.0 / 3.0,
          -0.0,
          0.0,
          std::numeric_limits<double>::denorm_min(),
          -std::numeric_limits<double>::denorm_min(),
          std::numeric_limits<double>::min(),
          std::nextafter(std::numeric_limits<double>::min(), 0.0),
          std::numeric_limits<double>::max(),
          -std::numeric_limits<double>::max(),
          9007199254740993.0,  // 2^53 + 1 rounds to 2^53 as a double
          1e23,
          5e-324,
          2.2250738585072009e-308,
          0.30000000000000004,
          65504.0,
          3.3895313892515355e38};
}

LoadedCase load_values(const std::string& dtype, const std::string& values,
                       const std::string& where = "inputs") {
  std::string text =
      "casebook: 1\nsummary: numbers\nop: torch.neg\ninputs:\n  input: "
      "{dtype: float64, values: [1.0]}\n";
  const std::string tensor =
      "{dtype: " + dtype + ", values: [" + values + "]}\n";
  if (where == "inputs") {
    text =
        "casebook: 1\nsummary: numbers\nop: torch.neg\ninputs:\n"
        "  input: " +
        tensor;
  } else {
    text += "outputs:\n  0: " + tensor;
  }
  return load_case_text(text, "cases/numbers.yaml");
}

TEST(NumberText, IsTheShortestTextThatReadsBackBitForBit) {
  EXPECT_EQ(number_text(0.1), "0.1");
  EXPECT_EQ(number_text(1.0 / 3.0), "0.3333333333333333");
  EXPECT_EQ(number_text(2.2250738585072009e-308), "2.225073858507201e-308");
  EXPECT_EQ(number_text(std::numeric_limits<double>::denorm_min()), "5e-324");
  EXPECT_EQ(number_text(std::numeric_limits<double>::max()),
            "1.7976931348623157e+308");
  // Powers of two where the nearest N digits do not read back but other N
  // digits do: %.16g gives 5.6843418860808015e-14 (17 digits) for 2^-44.
  EXPECT_EQ(number_text(std::ldexp(1.0, -44)), "5.684341886080802e-14");
  EXPECT_EQ(number_text(std::ldexp(1.0, 89)), "6.189700196426902e+26");
  EXPECT_EQ(number_text(std::ldexp(1.0, -1017)), "7.120236347223045e-307");
  EXPECT_EQ(number_text(1e5), "1e+05");  // laid out as %g lays it out
  EXPECT_EQ(number_text(123456.0), "123456");
  EXPECT_EQ(number_text(-1.5e-7), "-1.5e-07");
  EXPECT_EQ(number_text(0.0001), "0.0001");
  EXPECT_EQ(yaml_number(1e23), "1.0e+23");
  EXPECT_EQ(yaml_number(-0.0), "-0.0");  // `-0` is YAML's integer 0
  EXPECT_EQ(yaml_float(2.0), "2.0");
  EXPECT_EQ(yaml_float(-.5), "-0.5");
  EXPECT_EQ(yaml_float(std::nan("")), ".nan");
  EXPECT_EQ(yaml_float(-INFINITY), "-.inf");
  // Every double of a spread of bit patterns: strtod of the text is the
  // same bits, and one digit fewer would not be.
  uint64_t state = 0x9E3779B97F4A7C15ULL;
  for (int i = 0; i < 20000; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    const double value = from_bits(state);
    if (!std::isfinite(value)) continue;
    const std::string text = yaml_number(value);
    ASSERT_EQ(bits_of(std::strtod(text.c_str(), nullptr)), bits_of(value))
        << text;
  }
  for (double value : hard_doubles()) {
    const std::string text = yaml_number(value);
    EXPECT_EQ(bits_of(std::strtod(text.c_str(), nullptr)), bits_of(value))
        << text;
  }
  for (int exponent = -1074; exponent <= 1023; ++exponent) {
    const double value = std::ldexp(1.0, exponent);
    const std::string text = yaml_number(value);
    ASSERT_EQ(bits_of(std::strtod(text.c_str(), nullptr)), bits_of(value))
        << text;
  }
}

TEST(NumberText, WhatTheWriterWritesTheLoaderReadsBackBitForBit) {
  std::string values;
  for (double value : hard_doubles()) {
    values += (values.empty() ? "" : ", ") + yaml_number(value);
  }
  const LoadedCase loaded = load_values("float64", values);
  ASSERT_TRUE(loaded.ok()) << all_errors(loaded);
  const std::vector<double>& read = loaded.value->inputs[0].float_values;
  ASSERT_EQ(read.size(), hard_doubles().size());
  for (size_t i = 0; i < read.size(); ++i) {
    EXPECT_EQ(bits_of(read[i]), bits_of(hard_doubles()[i]))
        << yaml_number(hard_doubles()[i]);
  }
}

// Issue 51: a NaN keeps its sign bit: `-.nan` reads as NaN with the sign
// set, and the writer writes such a NaN as `-.nan` (before, `-.nan` was
// refused and a negative NaN written as `.nan`).
TEST(NumberText, ANegativeNanKeepsItsSign) {
  const double negative_nan =
      std::copysign(std::numeric_limits<double>::quiet_NaN(), -1.0);
  EXPECT_EQ(yaml_number(negative_nan), "-.nan");
  EXPECT_EQ(yaml_number(std::numeric_limits<double>::quiet_NaN()), ".nan");
  const LoadedCase loaded = load_values("float32", "-.nan, .nan, +.nan");
  ASSERT_TRUE(loaded.ok()) << all_errors(loaded);
  const std::vector<double>& read = loaded.value->inputs[0].float_values;
  ASSERT_EQ(read.size(), 3u);
  EXPECT_TRUE(std::isnan(read[0]) && std::signbit(read[0]));
  EXPECT_TRUE(std::isnan(read[1]) && !std::signbit(read[1]));
  EXPECT_TRUE(std::isnan(read[2]) && !std::signbit(read[2]));
  const std::string written = case_to_yaml(*loaded.value);
  EXPECT_NE(written.find("[-.nan, .nan, .nan]"), std::string::npos) << written;
}

// case_to_yaml: the writer of `neighbors --write` and of a report's carried
// case. Written, loaded and written again: the same text and the same bits.
TEST(CaseWriterNumbers, Int64ExtremesFloat64SubnormalsAndSignedZerosRoundTrip) {
  std::string floats;
  for (double value : hard_doubles()) {
    floats += (floats.empty() ? "" : ", ") + yaml_number(value);
  }
  const std::string text =
      "casebook: 1\nsummary: numbers\nop: torch.add\n"
      "args: {alpha: 2.0}\n"
      "inputs:\n"
      "  input: {dtype: int64, values: [-9223372036854775808, "
      "9223372036854775807, 9007199254740993]}\n"
      "  other: {dtype: float64, values: [" +
      floats +
      "]}\n"
      "  half: {dtype: float16, values: [65504, 6.103515625e-05, "
      "5.9604644775390625e-08, -0.0]}\n"
      "  brain: {dtype: bfloat16, values: [3.3895313892515355e38, "
      "9.183549615799121e-41]}\n"
      "outputs: {0: {dtype: float64, min: 5e-324, max: "
      "1.7976931348623157e308}}\n";
  const LoadedCase first = load_case_text(text, "cases/numbers.yaml");
  ASSERT_TRUE(first.ok()) << all_errors(first);
  const std::string written = case_to_yaml(*first.value);
  const LoadedCase again = load_case_text(written, "cases/numbers.yaml");
  ASSERT_TRUE(again.ok()) << written << all_errors(again);
  EXPECT_EQ(case_to_yaml(*again.value), written);
  const Case& read = *again.value;
  EXPECT_EQ(read.inputs[0].int_values,
            (std::vector<int64_t>{std::numeric_limits<int64_t>::min(),
                                  std::numeric_limits<int64_t>::max(),
                                  9007199254740993LL}));
  for (size_t k = 1; k < read.inputs.size(); ++k) {
    const std::vector<double>& was = first.value->inputs[k].float_values;
    const std::vector<double>& now = read.inputs[k].float_values;
    ASSERT_EQ(now.size(), was.size()) << written;
    for (size_t i = 0; i < now.size(); ++i) {
      EXPECT_EQ(bits_of(now[i]), bits_of(was[i])) << written;
    }
  }
  EXPECT_TRUE(std::signbit(read.inputs[2].float_values[3])) << written;
  EXPECT_EQ(read.outputs[0].min, std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(read.outputs[0].max, std::numeric_limits<double>::max());
  // A float argument stays a float: `alpha: 2` would be an integer Scalar.
  EXPECT_EQ(read.args.at("alpha").kind, ArgValue::Kind::kFloat) << written;
  EXPECT_NE(written.find("alpha: 2.0"), std::string::npos) << written;
}

// What no double holds is refused at its line, in inputs and in expected
// outputs alike, with what to write instead.
TEST(NumberLimits, BeyondFloat64IsRefusedAtItsLine) {
  for (const std::string where : {"inputs", "outputs"}) {
    for (const auto& [value, message] :
         std::vector<std::pair<std::string, std::string>>{
             {"1e400",
              "float64 cannot hold 1e400: it is beyond its range (write "
              ".inf for an infinity)"},
             {"-1e400", "float64 cannot hold -1e400"},
             {"1e-400",
              "float64 cannot hold 1e-400: it is below its smallest "
              "subnormal and would read as 0 (write 0)"}}) {
      const LoadedCase loaded = load_values("float64", "1.0, " + value, where);
      ASSERT_FALSE(loaded.ok()) << where << " " << value;
      const CaseError& error = loaded.errors.front();
      EXPECT_EQ(error.where.line, where == "inputs" ? 5 : 7) << where;
      EXPECT_NE(error.message.find(message), std::string::npos)
          << error.to_string();
    }
  }
}

// A float16 or bfloat16 value past the dtype's largest finite value would
// become an infinity: an input's is refused at its line, naming that value
// (no `rounding: nearest` advice: rounding makes the infinity); a tensor
// that rounds to nearest (expected outputs) keeps version 1's meaning: it
// loads, and is made the infinity.
TEST(NumberLimits, Float16AndBfloat16OverflowIsRefusedAtItsLine) {
  for (const auto& [dtype, value, largest] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"float16", "65520", "65504"},
           {"float16", "-1e5", "65504"},
           {"bfloat16", "3.4e38", "3.3895313892515355e+38"},
           {"bfloat16", "-1e39", "3.3895313892515355e+38"},
           {"float32", "1e39", "3.4028234663852886e+38"}}) {
    const LoadedCase loaded = load_values(dtype, "1.0, " + value);
    ASSERT_FALSE(loaded.ok()) << dtype << " " << value;
    const CaseError& error = loaded.errors.front();
    EXPECT_EQ(error.where.line, 5) << error.to_string();
    EXPECT_EQ(error.message,
              dtype + " cannot hold " + value +
                  ": it is beyond its range, whose largest finite value is " +
                  largest + " (write .inf for an infinity)")
        << error.to_string();
    // Expected outputs round to nearest: version 1's meaning, kept.
    const LoadedCase expected = load_values(dtype, "1.0, " + value, "outputs");
    EXPECT_TRUE(expected.ok()) << all_errors(expected);
  }
  // The largest finite values themselves load, and round-trip.
  for (const std::string where : {"inputs", "outputs"}) {
    EXPECT_TRUE(load_values("float16", "65504, -65504", where).ok()) << where;
    EXPECT_TRUE(load_values("bfloat16", "3.3895313892515355e38", where).ok())
        << where;
  }
}

}  // namespace
}  // namespace casebook
