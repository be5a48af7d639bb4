// The judge's steps that other tests reach only through a whole run, asked
// directly with fabricated jobs (no child starts): what the probe and the
// expectation in this run decide before the report is read, the reference
// run as the truth, an xfail turned into XPASS, FAIL or XFAIL, and a GPU
// worker's poisoning said in the details.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <string>

#include "casebook/internal_error.h"
#include "casebook/loader.h"
#include "runner/judge.h"

namespace casebook {
namespace {

// A sum of [1, 3] on cpu and cuda, with `expect` appended.
PlannedCase sum_case(const std::string& expect = "") {
  PlannedCase planned;
  planned.loaded = load_case_text(
      "casebook: 1\nsummary: a sum\nop: torch.sum\nbackends: [cpu, cuda]\n"
      "inputs:\n  input: {dtype: float32, values: [1, 3]}\n" +
          expect,
      "cases/sum.yaml");
  for (const CaseError& error : planned.loaded.errors) {
    ADD_FAILURE() << error.to_string();
  }
  return planned;
}

JobResult outputs(float value) {
  JobResult job;
  job.finished = true;
  job.report.status = ChildReport::Status::kOutputs;
  job.outputs = {at::full({}, value)};
  return job;
}

JobResult failed(Family family, const std::string& message) {
  JobResult job;
  job.finished = true;
  job.report.status = ChildReport::Status::kError;
  job.report.family = family;
  job.report.message = message;
  return job;
}

PartReadiness judge_steps_part(Readiness state, const std::string& reason) {
  PartReadiness readiness;
  readiness.state = state;
  readiness.reason = reason;
  return readiness;
}

TEST(JudgeSteps, AnUnfinishedRunIsNotRun) {
  const PlannedCase planned = sum_case();
  const JobResult reference = outputs(4);
  JobResult interrupted = outputs(4);
  interrupted.finished = false;
  for (const JobResult* run : {static_cast<const JobResult*>(nullptr),
                               static_cast<const JobResult*>(&interrupted)}) {
    const CaseVerdict verdict =
        judgement_of(JudgeInputs{planned, Backend::kCuda, run, &reference,
                                 pair_as_loaded(planned, Backend::kCuda)})
            .verdict;
    EXPECT_EQ(verdict.verdict, Verdict::kNotRun);
    EXPECT_EQ(verdict.explanation, "not run: the run was interrupted");
  }
}

// The pair as the planner hands it: expected as loaded, with `needed`.
PairInRun needing(const PlannedCase& planned, const PartReadiness& needed,
                  bool backend_absent = false) {
  PairInRun pair = pair_as_loaded(planned, Backend::kCuda);
  pair.needed = needed;
  pair.backend_absent = backend_absent;
  return pair;
}

TEST(JudgeSteps, TheNeededPartDecidesAndTheWholeBackendSaysWhetherItIsAbsent) {
  const PlannedCase planned = sum_case();
  const JobResult run = outputs(4);
  const CaseVerdict part_absent = judge(JudgeInputs{
      planned, Backend::kCuda, &run, &run,
      needing(planned, judge_steps_part(Readiness::kAbsent, "no plugin"))});
  EXPECT_EQ(part_absent.verdict, Verdict::kSkip);
  EXPECT_FALSE(part_absent.backend_absent);
  EXPECT_EQ(part_absent.explanation, "no plugin");

  const CaseVerdict whole_absent = judge(JudgeInputs{
      planned, Backend::kCuda, &run, &run,
      needing(planned, judge_steps_part(Readiness::kAbsent, "no NVIDIA device"),
              true)});
  EXPECT_EQ(whole_absent.verdict, Verdict::kSkip);
  EXPECT_TRUE(whole_absent.backend_absent);
  EXPECT_EQ(whole_absent.explanation, "no NVIDIA device");

  const CaseVerdict part_broken =
      judge(JudgeInputs{planned, Backend::kCuda, &run, &run,
                        needing(planned, judge_steps_part(Readiness::kBroken,
                                                          "libcuda too old"))});
  EXPECT_EQ(part_broken.verdict, Verdict::kError);
  EXPECT_EQ(part_broken.family, Family::kOpUnavailable);
  EXPECT_EQ(part_broken.explanation, "cuda cannot run: libcuda too old");
}

TEST(JudgeSteps, ALoadedCaseWithoutAnExpectationInThisRunIsInternal) {
  const PlannedCase planned = sum_case();
  const JobResult run = outputs(4);
  const CaseVerdict verdict =
      judge(JudgeInputs{planned, Backend::kCuda, &run, &run, PairInRun{}});
  EXPECT_EQ(verdict.verdict, Verdict::kInternal);
  EXPECT_NE(
      verdict.message.find("no expectation in this run for `sum` on cuda"),
      std::string::npos)
      << verdict.message;
}

TEST(JudgeSteps, TheExpectationInThisRunIsTheOneJudgedAndItsLineDecides) {
  const PlannedCase planned = sum_case();
  const JobResult run = outputs(4);
  Expectation skip;
  skip.kind = Expectation::Kind::kSkip;
  skip.reason = "the device's facts say so";
  skip.where.line = 42;
  const CaseVerdict verdict =
      judge(JudgeInputs{planned, Backend::kCuda, &run, &run, {skip}});
  EXPECT_EQ(verdict.verdict, Verdict::kSkip);
  EXPECT_EQ(verdict.explanation, "the device's facts say so");
  EXPECT_EQ(verdict.expectation_reason, "the device's facts say so");
  EXPECT_EQ(verdict.line, 42);
}

TEST(JudgeSteps, AFailedReferenceLeavesNothingToCompareWith) {
  const PlannedCase planned = sum_case();
  const JobResult run = outputs(4);
  const JobResult reference = failed(Family::kContract, "bad shape\nat line 2");
  const CaseVerdict verdict =
      judgement_of(JudgeInputs{planned, Backend::kCuda, &run, &reference,
                               pair_as_loaded(planned, Backend::kCuda)})
          .verdict;
  EXPECT_EQ(verdict.verdict, Verdict::kFail);
  EXPECT_EQ(verdict.family, Family::kContract);
  EXPECT_EQ(verdict.explanation,
            "no reference to compare with: the reference run failed "
            "(contract): bad shape");
}

TEST(JudgeSteps, AReferenceCasebookBrokeIsInternal) {
  const PlannedCase planned = sum_case();
  const JobResult run = outputs(4);
  JobResult reference =
      failed(Family::kContract, "internal error: lost a file");
  reference.report.internal = true;
  const CaseVerdict verdict =
      judgement_of(JudgeInputs{planned, Backend::kCuda, &run, &reference,
                               pair_as_loaded(planned, Backend::kCuda)})
          .verdict;
  EXPECT_EQ(verdict.verdict, Verdict::kInternal);
  EXPECT_EQ(verdict.family, Family::kNone);
  EXPECT_EQ(verdict.explanation,
            "internal error: the reference run: internal error: lost a file");
}

TEST(JudgeSteps, AnXfailIsXpassFailOrXfailByWhatTheMatchFound) {
  const JobResult reference = outputs(4);
  const JobResult right = outputs(4);
  const JobResult wrong = outputs(3);

  const PlannedCase any = sum_case("expect:\n  cuda: {xfail: a known bug}\n");
  const CaseVerdict xpass =
      judge(JudgeInputs{any, Backend::kCuda, &right, &reference,
                        pair_as_loaded(any, Backend::kCuda)});
  EXPECT_EQ(xpass.verdict, Verdict::kXpass);
  EXPECT_EQ(xpass.family, Family::kNone);
  EXPECT_EQ(xpass.explanation, "");

  const PlannedCase contract =
      sum_case("expect:\n  cuda: {xfail: a known bug, family: contract}\n");
  const Judgement other =
      judgement_of(JudgeInputs{contract, Backend::kCuda, &wrong, &reference,
                               pair_as_loaded(contract, Backend::kCuda)});
  EXPECT_EQ(other.verdict.verdict, Verdict::kFail);
  EXPECT_EQ(other.verdict.family, Family::kMismatch);
  ASSERT_FALSE(other.verdict.first_error.empty());
  EXPECT_EQ(
      other.verdict.explanation,
      "xfail expects contract, got mismatch: " + other.verdict.first_error);
  EXPECT_FALSE(other.mismatch.comparison.equal());  // a failure's evidence

  const PlannedCase mismatch =
      sum_case("expect:\n  cuda: {xfail: a known bug, family: mismatch}\n");
  const Judgement held =
      judgement_of(JudgeInputs{mismatch, Backend::kCuda, &wrong, &reference,
                               pair_as_loaded(mismatch, Backend::kCuda)});
  EXPECT_EQ(held.verdict.verdict, Verdict::kXfail);
  EXPECT_EQ(held.verdict.family, Family::kMismatch);
  EXPECT_EQ(held.verdict.first_error, held.verdict.explanation);
  EXPECT_TRUE(held.mismatch.comparison.equal());  // expected: no evidence
}

TEST(JudgeSteps, AGpuRunThatPoisonedItsWorkerSaysWhetherTheRerunConfirmed) {
  const PlannedCase planned = sum_case();
  const JobResult reference = outputs(4);
  for (const bool confirmed : {true, false}) {
    JobResult run = outputs(3);
    run.first_attempt = ChildReport{};
    run.report.poisoned = confirmed;
    const CaseVerdict verdict =
        judgement_of(JudgeInputs{planned, Backend::kCuda, &run, &reference,
                                 pair_as_loaded(planned, Backend::kCuda)})
            .verdict;
    EXPECT_EQ(verdict.verdict, Verdict::kFail);
    EXPECT_TRUE(verdict.poisoned_worker);
    EXPECT_EQ(verdict.poison_confirmed, confirmed);
    const std::string said =
        std::string(
            "\nthis run poisoned its worker; rerun alone in a fresh "
            "process: ") +
        (confirmed ? "confirmed" : "clean (blame not confirmed)");
    ASSERT_GE(verdict.details.size(), said.size());
    EXPECT_EQ(verdict.details.substr(verdict.details.size() - said.size()),
              said);
  }
  // A timed-out first attempt is not blamed for the worker.
  JobResult timed_out = failed(Family::kTimeout, "ran past 10 s");
  timed_out.timed_out = true;
  timed_out.first_attempt = ChildReport{};
  const CaseVerdict verdict =
      judgement_of(JudgeInputs{planned, Backend::kCuda, &timed_out, &reference,
                               pair_as_loaded(planned, Backend::kCuda)})
          .verdict;
  EXPECT_EQ(verdict.verdict, Verdict::kTimeout);
  EXPECT_FALSE(verdict.poisoned_worker);
}

TEST(JudgeSteps, MoreEntriesThanTheCaseSaysIsAMismatchNamingTheRejected) {
  const PlannedCase planned = sum_case();
  Expectation two;  // a match that processes two entries
  two.processed = 2;
  JobResult run = outputs(4);
  run.report.processed = 3;
  run.report.positions = std::vector<int64_t>{1, 5};
  const CaseVerdict verdict =
      judgement_of(JudgeInputs{planned, Backend::kCpu, &run, &run, {two}})
          .verdict;
  EXPECT_EQ(verdict.verdict, Verdict::kFail);
  EXPECT_EQ(verdict.family, Family::kMismatch);
  EXPECT_EQ(verdict.explanation,
            "processed 3 entries, the case expects `processed: 2`: 1 more "
            "than it should take; rejected positions [1, 5]");
}

}  // namespace
}  // namespace casebook
