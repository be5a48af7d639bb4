// Issue 48, item 7: a failure block's first check follows what the message
// and the comparison say, not the family's generic advice: a kernel missing
// for a dtype, an output shape the case states wrong, a stated value the
// reference disagrees with (tests/data/first_check/), nothing more run.
#include <gtest/gtest.h>

#include <string>

#include "run_command.h"

namespace {

using casebook::testing_support::has_line;
using casebook::testing_support::run_casebook;

std::string failure_block(const std::string& file) {
  const auto run = run_casebook("run tests/data/first_check/" + file +
                                " --backend cpu --evidence ''");
  EXPECT_EQ(run.status, 1) << run.output;
  return run.output;
}

TEST(FirstCheck, AKernelMissingForADtypeIsSaidSo) {
  const std::string out = failure_block("det_half.yaml");
  EXPECT_TRUE(has_line(out,
                       "^      first check \\(op_unavailable\\): "
                       "`lu_cpu` has no float16 \\('Half'\\) kernel "
                       "on cpu: a kernel missing for this dtype"))
      << out;
  EXPECT_FALSE(has_line(out, "sm_90")) << out;
}

TEST(FirstCheck, AStatedShapeTheReferenceDisagreesWithIsTheFirstSuspect) {
  const std::string out = failure_block("sum_shape.yaml");
  EXPECT_TRUE(has_line(out,
                       "^      first check \\(mismatch\\): output 0 has shape "
                       "\\[\\] where the case states \\[8\\], and the "
                       "reference gives the run's shape: check the stated "
                       "`shape` first"))
      << out;
  EXPECT_FALSE(has_line(out, "tail block")) << out;
}

TEST(FirstCheck, AStatedValueTheReferenceDisagreesWithIsTheFirstSuspect) {
  const std::string out = failure_block("add_wrong_value.yaml");
  EXPECT_TRUE(has_line(out,
                       "^      first check \\(mismatch\\): the run agrees "
                       "with the reference but not with the values the case "
                       "states: check the stated values first"))
      << out;
  EXPECT_FALSE(has_line(out, "tail block")) << out;
}

}  // namespace
