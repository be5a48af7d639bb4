// What diagnose concludes, as a table: the first run's outcome x a rerun's
// change and outcome -> the reading and what it says. Per family, and never
// more than the reruns showed.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "diagnosis/conclusions.h"

namespace casebook {
namespace {

RunOutcome failed(Family family, std::string message) {
  RunOutcome outcome;
  outcome.ran = true;
  outcome.family = family;
  outcome.message = std::move(message);
  return outcome;
}

RunOutcome matched() {
  RunOutcome outcome;
  outcome.ran = true;
  outcome.matched = true;
  return outcome;
}

RunOutcome not_run() { return RunOutcome{}; }

const RunOutcome kHalfMissing = failed(
    Family::kOpUnavailable, "\"addmm_impl_cpu_\" not implemented for 'Half'");
const RunOutcome kMismatch = failed(
    Family::kMismatch, "mismatched elements: 12 / 256 (4.7 %) against cpu64");
const RunOutcome kTarget4 =
    failed(Family::kIndexOutOfRange, "Target 4 is out of bounds.");
const RunOutcome kAssert =
    failed(Family::kDeviceAssert, "CUDA error: device-side assert triggered");

struct Row {
  const char* what;
  RunOutcome first;
  RerunKind change;
  std::string detail;
  RunOutcome rerun;
  RerunReading reading;
  // What the finding must say, and what it must not (empty: no check).
  std::string says;
  std::string never;
};

TEST(DiagnoseConclusions, FirstOutcomeTimesRerunOutcome) {
  const std::vector<Row> table = {
      // op_unavailable: a dtype that runs says a kernel is missing, not
      // precision.
      {"op_unavailable, float32 passes", kHalfMissing, RerunKind::kFloat32,
       "float16 -> float32", matched(), RerunReading::kPasses,
       "the kernel is missing for the case's dtype on cpu: in float32 "
       "(float16 -> float32) the op runs",
       "depends on the precision"},
      {"op_unavailable, float64 passes", kHalfMissing, RerunKind::kFloat64, "",
       matched(), RerunReading::kPasses, "a missing kernel, not precision", ""},
      {"op_unavailable, the CPU has it", kHalfMissing, RerunKind::kCpu, "",
       matched(), RerunReading::kPasses,
       "the CPU has the op: only cuda lacks it", ""},
      {"op_unavailable, float32 misses too", kHalfMissing, RerunKind::kFloat32,
       "",
       failed(Family::kOpUnavailable,
              "\"addmm_impl_cpu_\" not implemented for 'Float'"),
       RerunReading::kChanged,
       "changed the failure without removing it: first op_unavailable: "
       "\"addmm_impl_cpu_\" not implemented for 'Half'; now op_unavailable: "
       "\"addmm_impl_cpu_\" not implemented for 'Float'",
       ""},
      // mismatch: precision where a wider dtype matches.
      {"mismatch, float64 passes", kMismatch, RerunKind::kFloat64,
       "float32 -> float64", matched(), RerunReading::kPasses,
       "the outcome depends on the precision", "kernel is missing"},
      {"mismatch, other counts: the same failure", kMismatch,
       RerunKind::kContiguous, "",
       failed(Family::kMismatch,
              "mismatched elements: 3 / 256 (1.2 %) against cpu64"),
       RerunReading::kSame, "", ""},
      // The float64 rerun that fails for another reason: changed.
      {"mismatch, float64 fails otherwise", kMismatch, RerunKind::kFloat64, "",
       failed(Family::kMismatch, "output 0: dtype float64, expected float32"),
       RerunReading::kChanged,
       "first mismatch: mismatched elements: 12 / 256 (4.7 %) against cpu64; "
       "now mismatch: output 0: dtype float64, expected float32",
       "same outcome"},
      {"mismatch, contiguous passes", kMismatch, RerunKind::kContiguous, "",
       matched(), RerunReading::kPasses, "mishandles strides", ""},
      // index_out_of_range / device_assert: the valid-index rerun says data
      // or kernel.
      {"index, valid indices pass", kTarget4, RerunKind::kValidIndices,
       "target[2]: 4 -> 0", matched(), RerunReading::kPasses,
       "with every index in range (target[2]: 4 -> 0) the run passes: the "
       "data is at fault (the out-of-range values), not the kernel",
       ""},
      {"index, valid indices fail the same way", kTarget4,
       RerunKind::kValidIndices, "",
       failed(Family::kIndexOutOfRange, "Target 3 is out of bounds."),
       RerunReading::kSame,
       "still fails the same way: the out-of-range values are not the cause "
       "alone; look at the kernel",
       "data is at fault"},
      {"index, valid indices fail otherwise", kTarget4,
       RerunKind::kValidIndices, "",
       failed(Family::kNanOrInf, "output 0 holds NaN"), RerunReading::kChanged,
       "the out-of-range values caused the first failure; another problem "
       "remains",
       ""},
      {"index, float64 the same", kTarget4, RerunKind::kFloat64, "",
       failed(Family::kIndexOutOfRange, "Target 4 is out of bounds."),
       RerunReading::kSame, "", ""},
      {"device assert, valid indices pass", kAssert, RerunKind::kValidIndices,
       "", matched(), RerunReading::kPasses, "the data is at fault", ""},
      {"device assert, the CPU passes", kAssert, RerunKind::kCpu, "", matched(),
       RerunReading::kPasses,
       "the same case passes on the CPU: the cuda path differs (a hint where "
       "to look, not a validation of the cuda run)",
       ""},
      {"device assert, blocking launches pass", kAssert,
       RerunKind::kLaunchBlocking, "", matched(), RerunReading::kPasses,
       "depends on asynchronous execution", ""},
      // A rerun that did not run says nothing; a passing case that breaks.
      {"not run", kAssert, RerunKind::kLaunchBlocking, "", not_run(),
       RerunReading::kNotRun, "", ""},
      {"a match that a rerun breaks", matched(), RerunKind::kFloat32, "",
       failed(Family::kMismatch, "mismatched elements: 1 / 4"),
       RerunReading::kBreaks, "float32 makes a run that matched fail", ""},
  };
  for (const Row& row : table) {
    Rerun rerun;
    rerun.change = row.change;
    rerun.detail = row.detail;
    rerun.outcome = row.rerun;
    const std::string backend =
        row.first.family == Family::kDeviceAssert ||
                (row.first.family == Family::kOpUnavailable &&
                 row.change == RerunKind::kCpu)
            ? "cuda"
            : "cpu";
    const RerunConclusion conclusion =
        conclude_rerun(row.first, rerun, backend);
    EXPECT_EQ(conclusion.reading, row.reading) << row.what;
    if (!row.says.empty()) {
      EXPECT_NE(conclusion.finding.find(row.says), std::string::npos)
          << row.what << ": " << conclusion.finding;
    }
    if (!row.never.empty()) {
      EXPECT_EQ(conclusion.finding.find(row.never), std::string::npos)
          << row.what << ": " << conclusion.finding;
    }
  }
}

Rerun rerun_of(RerunKind change, RunOutcome outcome) {
  Rerun rerun;
  rerun.change = change;
  rerun.outcome = std::move(outcome);
  return rerun;
}

// The bottom line on a machine without a GPU: what ran and did not change
// the outcome, and that what could not run says nothing; never "no single
// change altered the outcome".
TEST(DiagnoseConclusions, TheBottomLineClaimsOnlyWhatRan) {
  const std::vector<std::string> lines =
      conclude(kTarget4,
               {rerun_of(RerunKind::kLaunchBlocking, not_run()),
                rerun_of(RerunKind::kFloat64, kTarget4),
                rerun_of(RerunKind::kContiguous, kTarget4)},
               "cpu");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0],
            "none of the 2 reruns that ran changed the outcome (float64, "
            "contiguous)");
  EXPECT_EQ(lines[1],
            "1 rerun could not run here (launch blocking) and says nothing "
            "either way");

  const std::vector<std::string> found =
      conclude(kTarget4,
               {rerun_of(RerunKind::kFloat64, kTarget4),
                rerun_of(RerunKind::kValidIndices, matched())},
               "cpu");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("the data is at fault"), std::string::npos);

  EXPECT_EQ(conclude(kTarget4, {rerun_of(RerunKind::kCpu, not_run())}, "cuda")
                .front(),
            "no rerun could run here");
  // memcheck says what it saw, whatever the first run did.
  const std::vector<std::string> memcheck = conclude(
      kAssert,
      {rerun_of(RerunKind::kMemcheck, failed(Family::kIllegalAddress,
                                             "2 errors: Invalid __global__ "
                                             "read of size 4")),
       rerun_of(RerunKind::kCpu, not_run())},
      "cuda");
  ASSERT_EQ(memcheck.size(), 2u);
  EXPECT_EQ(memcheck[0],
            "memcheck saw invalid accesses: 2 errors: Invalid __global__ read "
            "of size 4");
  EXPECT_EQ(memcheck[1],
            "1 rerun could not run here (cpu) and says nothing either way");
  EXPECT_EQ(conclude(not_run(), {}, "cpu").front(),
            "the case did not run as written: nothing to compare");
  EXPECT_EQ(
      conclude(matched(), {rerun_of(RerunKind::kFloat64, matched())}, "cpu")
          .front(),
      "as written the outputs match the reference on cpu: there is no "
      "failure to explain");
}

}  // namespace
}  // namespace casebook
