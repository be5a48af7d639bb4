// The memcheck rerun of `casebook diagnose` (runner/memcheck.h): how
// compute-sanitizer's output is read, and what it says as a rerun. No GPU is
// needed: the output is compute-sanitizer's text, as it prints it.
#include "runner/memcheck.h"

#include <gtest/gtest.h>

namespace casebook {
namespace {

TEST(Memcheck, ErrorSummariesOfEveryFollowedProcessAreSummed) {
  EXPECT_EQ(memcheck_error_count("========= ERROR SUMMARY: 0 errors\n"), 0);
  EXPECT_EQ(memcheck_error_count("========= Invalid __global__ read of size 4\n"
                                 "========= ERROR SUMMARY: 3 errors\n"
                                 "========= ERROR SUMMARY: 1 error\n"),
            4);
  EXPECT_EQ(memcheck_error_count("compute-sanitizer: not a CUDA program\n"),
            -1);
}

TEST(Memcheck, AnInvalidAccessIsAnIllegalAddressAndNoneMatches) {
  MemcheckResult found;
  found.ran = true;
  found.errors = 2;
  found.summary = "ERROR SUMMARY: 2 errors; first: Invalid __global__ read";
  const RunOutcome illegal = memcheck_outcome(found);
  EXPECT_TRUE(illegal.ran);
  EXPECT_FALSE(illegal.matched);
  EXPECT_EQ(illegal.family, Family::kIllegalAddress);
  EXPECT_EQ(illegal.message, found.summary);

  MemcheckResult clean;
  clean.ran = true;
  clean.summary = "ERROR SUMMARY: 0 errors";
  const RunOutcome none = memcheck_outcome(clean);
  EXPECT_TRUE(none.matched);
  EXPECT_EQ(none.family, Family::kNone);
}

}  // namespace
}  // namespace casebook
