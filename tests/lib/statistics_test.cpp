// `mean` and `std` bounds of an output (what a random op's values can be
// checked by), through real child runs: bounds that hold pass, a std outside
// its bounds fails naming the std found.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "run_one_case.h"

namespace casebook {
namespace {

using testing_support::run_one_case;
using testing_support::verdict_text;

// 4096 draws of N(0, 1) through aten::clone, with `bounds` on output 0.
std::string normal_clone_case(const std::string& bounds) {
  return "casebook: 1\n"
         "summary: the statistics of normal draws\n"
         "op: aten::clone\n"
         "backends: [cpu]\n"
         "inputs:\n"
         "  self: {shape: [4096], dtype: float32, fill: {normal: {mean: 0, "
         "std: 1}}, seed: 3}\n"
         "outputs:\n"
         "  0: " +
         bounds + "\n";
}

TEST(OutputStatistics, MeanAndStdWithinTheirBoundsPass) {
  const CaseVerdict verdict = run_one_case(
      "within", normal_clone_case("{mean: {min: -0.2, max: 0.2}, std: {min: "
                                  "0.8, max: 1.2}}"));
  EXPECT_EQ(verdict.verdict, Verdict::kPass) << verdict_text(verdict);
}

TEST(OutputStatistics, AStdOutsideItsBoundsFailsNamingTheStdFound) {
  const CaseVerdict verdict = run_one_case(
      "outside", normal_clone_case("{mean: {min: -0.2, max: 0.2}, std: {min: "
                                   "2, max: 3}}"));
  EXPECT_EQ(verdict.verdict, Verdict::kFail) << verdict_text(verdict);
  EXPECT_EQ(verdict.family, Family::kMismatch);
  const std::string text = verdict_text(verdict);
  // The std of these 4096 draws is near 1 (0.98 for seed 3).
  EXPECT_TRUE(std::regex_search(
      text, std::regex("output 0: std 0\\.9[0-9]+ is outside `std: \\{min: 2, "
                       "max: 3\\}` \\(over 4096 elements\\)")))
      << text;
}

TEST(OutputStatistics, AMeanOutsideItsBoundsFails) {
  const CaseVerdict verdict =
      run_one_case("mean", normal_clone_case("{mean: {min: 0.5}}"));
  EXPECT_EQ(verdict.verdict, Verdict::kFail) << verdict_text(verdict);
  EXPECT_NE(verdict_text(verdict).find("is outside `mean: {min: 0.5}`"),
            std::string::npos)
      << verdict_text(verdict);
}

}  // namespace
}  // namespace casebook
