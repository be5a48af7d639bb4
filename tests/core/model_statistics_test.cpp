// `mean` and `std` of an output entry: bounds on the mean and the standard
// deviation of all its elements; their accepted form and exact load errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "casebook/case_writer.h"
#include "casebook/loader.h"
#include "model_malformed.h"

namespace casebook {
namespace {

using testing_malformed::Malformed;
using testing_malformed::with_extra;

TEST(OutputStatistics, MeanAndStdBoundsAreRead) {
  const LoadedCase loaded = load_case_text(
      with_extra("outputs:\n"
                 "  0: {mean: {min: -0.2, max: 0.2}, std: {max: 1.5}}\n"),
      "cases/good.yaml");
  ASSERT_TRUE(loaded.value.has_value())
      << (loaded.errors.empty() ? "" : loaded.errors[0].to_string());
  const OutputExpectation& entry = loaded.value->outputs.at(0);
  ASSERT_TRUE(entry.mean_bounds.has_value());
  EXPECT_EQ(entry.mean_bounds->min, -0.2);
  EXPECT_EQ(entry.mean_bounds->max, 0.2);
  ASSERT_TRUE(entry.std_bounds.has_value());
  EXPECT_FALSE(entry.std_bounds->min.has_value());
  EXPECT_EQ(entry.std_bounds->max, 1.5);
  EXPECT_FALSE(entry.values.has_value());
}

TEST(OutputStatistics, TheCaseWriterKeepsTheBounds) {
  const LoadedCase loaded = load_case_text(
      with_extra("outputs:\n  0: {mean: {min: -0.25}, std: {min: 0.5, max: "
                 "2}}\n"),
      "cases/good.yaml");
  ASSERT_TRUE(loaded.value.has_value());
  const std::string written = case_to_yaml(*loaded.value);
  EXPECT_NE(written.find("mean: {min: -0.25}, std: {min: 0.5, max: 2}}"),
            std::string::npos)
      << written;
  const LoadedCase again = load_case_text(written, "cases/good.yaml");
  ASSERT_TRUE(again.value.has_value());
  EXPECT_EQ(again.value->outputs.at(0).std_bounds->max, 2.0);
}

std::vector<Malformed> statistics_malformed() {
  const std::string f = "cases/bad.yaml:";
  return {
      {"not_a_map",
       with_extra("outputs: {0: {mean: 0.5}}\n"),
       {f + "6:21: `outputs.0.mean`: expected a map {min: A, max: B}; got "
            "`0.5`"}},
      {"unknown_end",
       with_extra("outputs: {0: {std: {low: 1}}}\n"),
       {f + "6:21: `outputs.0.std.low`: unknown key `low`; expected one of "
            "min, max"}},
      {"empty",
       with_extra("outputs: {0: {std: {}}}\n"),
       {f + "6:20: `outputs.0.std`: expected a map {min: A, max: B} with min, "
            "max or both; got an empty map"}},
      {"reversed",
       with_extra("outputs: {0: {mean: {min: 1, max: 0}}}\n"),
       {f + "6:21: `outputs.0.mean.max`: expected max >= min"}},
      {"nan_bound",
       with_extra("outputs: {0: {std: {min: .nan}}}\n"),
       {f + "6:26: `outputs.0.std.min`: expected a number (not .nan)"}},
      {"string_bound",
       with_extra("outputs: {0: {std: {max: big}}}\n"),
       {f + "6:26: `outputs.0.std.max`: expected a number"}},
  };
}

class MalformedStatistics : public testing::TestWithParam<Malformed> {};

TEST_P(MalformedStatistics, GivesExactlyTheseMessages) {
  testing_malformed::expect_messages_start_with(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Loader, MalformedStatistics,
                         testing::ValuesIn(statistics_malformed()),
                         testing_malformed::name_of);

}  // namespace
}  // namespace casebook
