// Evidence is written by a listener of the run, not by the judge (issue 25):
// judging touches no file, and the evidence listener writes a failing
// mismatch's folder and names it in the verdict before it is shown.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "casebook/runner.h"
#include "run_command.h"
#include "runner/evidence.h"
#include "runner/judge.h"

namespace casebook {
namespace {

namespace fs = std::filesystem;
using testing_support::TempFolder;

// A cuda run of torch.sum that gave 3 where its CPU reference gave 4, made
// here rather than by a child: the judge sees only the jobs' results.
class JudgedMismatch : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(cases_.path() / "sum.yaml")
        << "casebook: 1\nsummary: a sum the device gets wrong\n"
           "op: torch.sum\nbackends: [cpu, cuda]\ninputs:\n"
           "  input: {dtype: float32, values: [1, 3]}\n";
    planned_.loaded = load_case_file(cases_.path() / "sum.yaml");
    ASSERT_TRUE(planned_.loaded.ok());
    reference_ = finished_with(4.0f);
    options_.evidence_root = evidence_.path();
  }

  static JobResult finished_with(float value) {
    JobResult job;
    job.finished = true;
    job.report.status = ChildReport::Status::kOutputs;
    job.outputs = {at::full({}, value)};
    return job;
  }

  JudgeInputs inputs(const JobResult& run) const {
    return JudgeInputs{planned_,
                       Backend::kCuda,
                       &run,
                       &reference_,
                       pair_as_loaded(planned_, Backend::kCuda),
                       options_};
  }

  bool evidence_root_is_empty() const { return fs::is_empty(evidence_.path()); }

  TempFolder cases_;
  TempFolder evidence_;
  PlannedCase planned_;
  JobResult reference_;
  RunOptions options_;
};

TEST_F(JudgedMismatch, TheJudgeWritesNoFile) {
  const JobResult run = finished_with(3.0f);
  const CaseVerdict verdict = judge(inputs(run));
  ASSERT_EQ(verdict.verdict, Verdict::kFail) << verdict.message;
  EXPECT_EQ(verdict.family, Family::kMismatch);
  EXPECT_TRUE(verdict.evidence_dir.empty()) << verdict.evidence_dir;
  EXPECT_EQ(verdict.message.find("evidence"), std::string::npos)
      << verdict.message;
  // It hands on what the evidence needs instead.
  const Judgement judged = judgement_of(inputs(run));
  EXPECT_FALSE(judged.mismatch.comparison.equal());
  EXPECT_EQ(judged.mismatch.actual.size(), 1u);
  EXPECT_TRUE(evidence_root_is_empty());
}

TEST_F(JudgedMismatch, TheEvidenceListenerWritesTheFolderAndNamesIt) {
  const JobResult run = finished_with(3.0f);
  Judgement judged = judgement_of(inputs(run));
  evidence_listener(evidence_.path())(planned_, judged);
  const fs::path folder = evidence_.path() / "sum.cuda";
  EXPECT_EQ(judged.verdict.evidence_dir, folder.string());
  for (const char* file : {"input_input.npy", "reference_0.npy", "actual_0.npy",
                           "worst_elements.txt", "seeds.txt"}) {
    EXPECT_TRUE(fs::is_regular_file(folder / file)) << file;
  }
  // Named in the message as the judge named it before: after the listener.
  const CaseVerdict shown = fit_to_show(judged.verdict);
  const std::string ending = "; evidence: " + folder.string();
  ASSERT_GE(shown.message.size(), ending.size());
  EXPECT_EQ(shown.message.substr(shown.message.size() - ending.size()), ending)
      << shown.message;
}

TEST_F(JudgedMismatch, TheListenerLeavesAPassAlone) {
  const JobResult run = finished_with(4.0f);
  Judgement judged = judgement_of(inputs(run));
  ASSERT_EQ(judged.verdict.verdict, Verdict::kPass);
  evidence_listener(evidence_.path())(planned_, judged);
  EXPECT_TRUE(judged.verdict.evidence_dir.empty());
  EXPECT_TRUE(evidence_root_is_empty());
}

}  // namespace
}  // namespace casebook
