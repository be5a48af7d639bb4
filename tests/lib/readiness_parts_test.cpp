// Readiness is decided once per backend part, and `--require` applies to the
// part a case needs (issue 25): the simulated device is a cuda whose kernel
// plugin is ready and whose LibTorch device is absent, so a torch.* case
// there skips (the part is absent) unless cuda is required, when it is an
// ERROR, while a case on the plugin runs and passes either way. Real runner,
// real children.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <utility>

#include "casebook/runner.h"
#include "run_command.h"
#include "run_plan.h"
#include "runner/session.h"
#include "simulated_device.h"
#include "test_ops.h"

namespace casebook {
namespace {

using testing_support::TempFolder;

class ReadinessParts : public ::testing::Test {
 protected:
  void SetUp() override {
    testing_support::use_single_thread();
    simulated_device::install();
    std::ofstream(folder_.path() / "on_torch.yaml")
        << "casebook: 1\nsummary: a LibTorch op\nop: torch.neg\n"
        << "backends: [cpu, cuda]\n"
        << "inputs:\n  input: {dtype: float32, values: [1, 2]}\n";
    std::ofstream(folder_.path() / "on_plugin.yaml")
        << "casebook: 1\nsummary: an op of the plugin\n"
        << "op: testing.simulated_step\nbackends: [cpu, cuda]\n"
        << "inputs:\n  input: {dtype: float32, values: [1, 2]}\n";
  }
  void TearDown() override { simulated_device::uninstall(); }

  RunSummary run(std::vector<Backend> required) {
    return testing_support::run_folder(
        folder_.path(), {Backend::kCpu, Backend::kCuda},
        &simulated_device::registry(), std::move(required));
  }

  static const CaseVerdict& on_cuda(const RunSummary& summary,
                                    const std::string& id) {
    for (const CaseVerdict& verdict : summary.verdicts) {
      if (verdict.case_id == id && verdict.backend == Backend::kCuda) {
        return verdict;
      }
    }
    throw std::runtime_error("no cuda verdict for " + id);
  }

  TempFolder folder_;
};

TEST_F(ReadinessParts, AnAbsentPartSkipsItsCasesWhileTheBackendRunsOthers) {
  const RunSummary summary = run({});
  const CaseVerdict& torch = on_cuda(summary, "on_torch");
  EXPECT_EQ(torch.verdict, Verdict::kSkip) << torch.message;
  // cuda ran a case here: its skip is not an absent backend's.
  EXPECT_FALSE(torch.backend_absent);
  EXPECT_NE(torch.message.find("LibTorch"), std::string::npos) << torch.message;
  const CaseVerdict& plugin = on_cuda(summary, "on_plugin");
  EXPECT_EQ(plugin.verdict, Verdict::kPass) << plugin.message;
}

TEST_F(ReadinessParts, RequiredTheAbsentPartIsAnErrorAndTheReadyPartRuns) {
  const RunSummary summary = run({Backend::kCuda});
  const CaseVerdict& torch = on_cuda(summary, "on_torch");
  EXPECT_EQ(torch.verdict, Verdict::kError) << torch.message;
  EXPECT_EQ(torch.family, Family::kOpUnavailable);
  EXPECT_NE(torch.message.find("required (--require, $CASEBOOK_REQUIRE) but "
                               "absent"),
            std::string::npos)
      << torch.message;
  const CaseVerdict& plugin = on_cuda(summary, "on_plugin");
  EXPECT_EQ(plugin.verdict, Verdict::kPass) << plugin.message;
}

}  // namespace
}  // namespace casebook
