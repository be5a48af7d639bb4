// Cases of several steps, run for real: the outputs flow from step to step
// in the child, the judge checks the last step's and the named earlier ones,
// a failing step is named, and on a GPU (the simulated device standing in
// for cuda) a rerun that synchronises after every step finds the step that
// launched the failing work, changing no verdict.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "run_command.h"
#include "run_plan.h"
#include "runner/session.h"
#include "simulated_device.h"
#include "test_ops.h"

namespace casebook {
namespace {

namespace fs = std::filesystem;
using testing_support::read_text;
using testing_support::TempFolder;

// The suite's own step cases (cases/steps/), and the one that needs the
// simulated device (tests/data/steps/).
const fs::path kStepCases = fs::path(CASEBOOK_SOURCE_DIR) / "cases" / "steps";
const fs::path kStepsData = fs::path(CASEBOOK_TEST_DATA) / "steps";

std::vector<CaseVerdict> run_folder(const fs::path& folder,
                                    std::vector<Backend> backends,
                                    const OpRegistry* registry = nullptr) {
  testing_support::use_single_thread();
  return testing_support::run_folder(folder, std::move(backends), registry, {},
                                     2)
      .verdicts;
}

std::string describe(const std::vector<CaseVerdict>& verdicts) {
  std::string text;
  for (const CaseVerdict& v : verdicts) {
    text += v.case_id + "/" + std::string(backend_name(v.backend)) + " " +
            std::string(verdict_name(v.verdict)) + ": " + v.message + "\n" +
            v.details + "\n";
  }
  return text;
}

// `file` with `from` replaced by `to`, run on the CPU as case.yaml.
std::vector<CaseVerdict> run_edited(const fs::path& file,
                                    const std::string& from,
                                    const std::string& to) {
  std::string text = read_text(file);
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  TempFolder folder;
  std::ofstream(folder.path() / "case.yaml") << text;
  return run_folder(folder.path(), {Backend::kCpu});
}

// The suite's step cases and advanced indexing ones (a None in a Tensor?[],
// index_put_), each run on the CPU.
TEST(StepsRun, ChainedOpsPassOnTheirOutputs) {
  const std::vector<CaseVerdict> verdicts =
      run_folder(kStepCases, {Backend::kCpu});
  // normalize_gradients brings its last_batch neighbour.
  ASSERT_EQ(verdicts.size(), 7u) << describe(verdicts);
  for (const CaseVerdict& verdict : verdicts) {
    EXPECT_EQ(verdict.verdict, Verdict::kPass) << describe(verdicts);
    EXPECT_TRUE(verdict.step_location.empty());
  }
}

// A wrong expected value of an earlier step's output fails the case: the
// outputs named `logp.0` are judged, not only the last step's.
TEST(StepsRun, AnEarlierStepsOutputIsJudged) {
  const std::vector<CaseVerdict> verdicts = run_edited(
      kStepCases / "log_softmax_nll_loss.yaml",
      "logp.0: {shape: [2, 3], max: 0}", "logp.0: {shape: [2, 3], min: 0}");
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_EQ(verdicts[0].verdict, Verdict::kFail) << describe(verdicts);
  EXPECT_NE(verdicts[0].message.find("logp.0"), std::string::npos)
      << describe(verdicts);
}

// The last step's label out of range: the error is the op's, placed at its
// step; on the CPU nothing is late, so there is no rerun.
TEST(StepsRun, AFailingStepIsNamed) {
  const std::vector<CaseVerdict> verdicts =
      run_edited(kStepCases / "log_softmax_nll_loss.yaml",
                 "labels: {dtype: int64, values: [1, 0]}",
                 "labels: {dtype: int64, values: [1, 3]}\n"
                 "expect:\n  cpu: {error: index_out_of_range}");
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_EQ(verdicts[0].verdict, Verdict::kPass) << describe(verdicts);
  EXPECT_EQ(verdicts[0].step_location,
            "raised at step 2 `loss` (`aten::nll_loss`)");
  EXPECT_NE(verdicts[0].message.find("(raised at step 2 `loss`"),
            std::string::npos);
}

// A step that names an output its op does not have: invalid_case, at the
// line of the source.
TEST(StepsRun, AnOutputAStepDoesNotHaveIsTheCasesFault) {
  const std::vector<CaseVerdict> verdicts =
      run_edited(kStepCases / "normalize.yaml", "inputs: {self: norm}",
                 "inputs: {self: norm.4}");
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_EQ(verdicts[0].verdict, Verdict::kError) << describe(verdicts);
  EXPECT_EQ(verdicts[0].family, Family::kInvalidCase);
  EXPECT_NE(verdicts[0].message.find("case.yaml:12:20: `norm.4`: step `norm` "
                                     "(`aten::linalg_vector_norm`) has no such "
                                     "output; its outputs: 0"),
            std::string::npos)
      << describe(verdicts);
}

// A step whose op or arguments do not resolve is a plan error at its line.
TEST(StepsRun, AStepThatDoesNotResolveIsAnErrorAtItsLine) {
  const std::vector<CaseVerdict> verdicts =
      run_edited(kStepCases / "normalize.yaml", "op: aten::clamp_min",
                 "op: aten::clamp_mni");
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_EQ(verdicts[0].verdict, Verdict::kError);
  EXPECT_NE(verdicts[0].message.find("case.yaml:11:9: unknown op "
                                     "`aten::clamp_mni`"),
            std::string::npos)
      << describe(verdicts);
}

class StepsOnTheSimulatedDevice : public ::testing::Test {
 protected:
  void SetUp() override { simulated_device::install(); }
  void TearDown() override { simulated_device::uninstall(); }
};

// The seed's async lesson (tests/data/steps/async_lesson.yaml): the error
// step 1 launched is raised at step 2; the rerun that synchronises after
// every step, under CUDA_LAUNCH_BLOCKING=1 (the first run is not), places
// its launch at step 1. The verdict and its family are the first run's.
TEST_F(StepsOnTheSimulatedDevice, RaisedAtALaterStepLaunchedByAnEarlierOne) {
  TempFolder folder;
  const fs::path env_log = folder.path() / "env.log";
  std::string text = read_text(kStepsData / "async_lesson.yaml");
  const std::string from = "args: {then: sticky}";
  text.replace(text.find(from), from.size(),
               "args: {then: sticky, env_log: '" + env_log.string() + "'}");
  fs::create_directories(folder.path() / "cases");
  std::ofstream(folder.path() / "cases" / "async.yaml") << text;
  const std::vector<CaseVerdict> verdicts =
      run_folder(folder.path() / "cases", {Backend::kCpu, Backend::kCuda},
                 &simulated_device::registry());
  ASSERT_EQ(verdicts.size(), 2u) << describe(verdicts);
  EXPECT_EQ(verdicts[0].verdict, Verdict::kPass) << describe(verdicts);
  const CaseVerdict& cuda = verdicts[1];
  EXPECT_EQ(cuda.backend, Backend::kCuda);
  EXPECT_EQ(cuda.verdict, Verdict::kPass) << describe(verdicts);
  EXPECT_EQ(cuda.family, Family::kDeviceAssert);
  EXPECT_EQ(cuda.step_location,
            "raised at step 2 `read_back` (`testing.simulated_step`), "
            "launched by step 1 `launch` (`testing.simulated_step`)")
      << describe(verdicts);
  // Step 1 ran three times: the run, its confirming rerun (it poisoned its
  // worker), both without launch blocking; then the locating rerun, with it.
  EXPECT_EQ(read_text(env_log),
            "CUDA_LAUNCH_BLOCKING=(unset)\nCUDA_LAUNCH_BLOCKING=(unset)\n"
            "CUDA_LAUNCH_BLOCKING=1\n");
}

// Where the failing launch and the raise are one step, the rerun says so;
// an error expected elsewhere still FAILs with the placement in its message.
TEST_F(StepsOnTheSimulatedDevice, AnErrorSeenWhereItWasLaunchedIsPlacedThere) {
  TempFolder folder;
  fs::create_directories(folder.path() / "cases");
  std::ofstream(folder.path() / "cases" / "late.yaml")
      << "casebook: 1\nsummary: one step's error, seen after the last step\n"
         "backends: [cuda]\n"
         "steps:\n"
         "  - op: testing.simulated_step\n    inputs: {input: x}\n"
         "  - op: testing.simulated_step\n    inputs: {input: step1}\n"
         "    args: {then: error}\n"
         "inputs:\n  x: {dtype: float32, values: [1]}\n";
  const std::vector<CaseVerdict> verdicts = run_folder(
      folder.path() / "cases", {Backend::kCuda}, &simulated_device::registry());
  ASSERT_EQ(verdicts.size(), 1u) << describe(verdicts);
  EXPECT_EQ(verdicts[0].verdict, Verdict::kFail) << describe(verdicts);
  EXPECT_EQ(verdicts[0].family, Family::kOutOfMemory);
  EXPECT_EQ(verdicts[0].step_location,
            "raised at the synchronisation after the last step (2), launched "
            "by step 2 (`testing.simulated_step`)")
      << describe(verdicts);
}

}  // namespace
}  // namespace casebook
