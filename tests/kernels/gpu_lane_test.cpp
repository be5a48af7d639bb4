// The broken GPU variants on a real device (the GPU lane): the kernel cases
// run through casebook::run_cases on cuda against
// bin/broken/libcasebook_kernels_cuda.so, selected with
// $CASEBOOK_KERNEL_PLUGIN_DIR and $CASEBOOK_BROKEN_VARIANT; each variant must
// FAIL with the right family, and the real plugin must PASS the same cases.
// Skipped where no CUDA device (or no broken plugin) is present, failed
// there when $CASEBOOK_REQUIRE names cuda, failed where cuda is broken.
#include <gtest/gtest.h>

#include <cstdlib>

#include "casebook/runner.h"
#include "device/backend_readiness.h"
#include "device/kernel_plugin.h"
#include "kernel_test_support.h"
#include "runner/session.h"

namespace casebook {
namespace {

using kernel_tests::executable_dir;
using kernel_tests::failures;
using kernel_tests::kernel_cases;
using kernel_tests::verdict_of;

// Runs one kernel's cases on cpu and cuda with the given broken variant ("":
// the real plugin). Skips the test where cuda did not run.
RunSummary run_on_cuda(const std::string& kernel, const std::string& variant) {
  if (variant.empty()) {
    unsetenv("CASEBOOK_KERNEL_PLUGIN_DIR");
    unsetenv("CASEBOOK_BROKEN_VARIANT");
  } else {
    setenv("CASEBOOK_KERNEL_PLUGIN_DIR", (executable_dir() / "broken").c_str(),
           1);
    setenv("CASEBOOK_BROKEN_VARIANT", variant.c_str(), 1);
  }
  RunOptions options;
  options.backends = {Backend::kCpu, Backend::kCuda};
  RunSummary summary = run_cases({kernel_cases(kernel)}, options);
  unsetenv("CASEBOOK_KERNEL_PLUGIN_DIR");
  unsetenv("CASEBOOK_BROKEN_VARIANT");
  return summary;
}

// Whether the lane can run: the broken CUDA plugin is built and the one
// module's probe (a child: this process must not initialise CUDA) finds the
// cuda kernel plugin ready. Absent skips, unless cuda is required
// ($CASEBOOK_REQUIRE, as in ci/gpu-lane.sh); broken always fails.
struct LaneReadiness {
  Readiness state = Readiness::kReady;
  std::string reason;
};

LaneReadiness cuda_lane_readiness() {
  if (!std::filesystem::exists(executable_dir() / "broken" /
                               kernel_plugin_file_name(Backend::kCuda))) {
    return {Readiness::kAbsent, "no broken CUDA plugin beside the tests"};
  }
  const PartReadiness kernels =
      probe_backends({Backend::kCuda})[Backend::kCuda].kernels;
  return {kernels.state, kernels.reason};
}

bool cuda_required() {
  const char* required = std::getenv("CASEBOOK_REQUIRE");
  return required != nullptr &&
         ("," + std::string(required) + ",").find(",cuda,") !=
             std::string::npos;
}

struct BrokenVariant {
  const char* kernel;
  const char* variant;
  const char* case_id;  // a case that must catch it
  bool bound_check;     // caught as "got outputs" (or an illegal address)
  Family family = Family::kMismatch;  // otherwise, the family it fails with
};

class BrokenGpuVariant : public testing::TestWithParam<BrokenVariant> {};

TEST_P(BrokenGpuVariant, FailsWithTheRightFamilyAndTheRealPluginPasses) {
  static const LaneReadiness lane = cuda_lane_readiness();
  if (lane.state == Readiness::kBroken ||
      (lane.state == Readiness::kAbsent && cuda_required())) {
    FAIL() << "cuda " << readiness_name(lane.state) << ": " << lane.reason;
  }
  if (lane.state == Readiness::kAbsent) GTEST_SKIP() << "cuda: " << lane.reason;
  const BrokenVariant& param = GetParam();
  const RunSummary broken = run_on_cuda(param.kernel, param.variant);
  const CaseVerdict verdict = verdict_of(broken, param.case_id, Backend::kCuda);
  EXPECT_EQ(verdict.verdict, Verdict::kFail) << verdict.message;
  if (param.bound_check) {
    EXPECT_TRUE(verdict.message.rfind(
                    "expected index_out_of_range, got outputs", 0) == 0 ||
                verdict.family == Family::kIllegalAddress)
        << verdict.message;
  } else {
    EXPECT_EQ(verdict.family, param.family) << verdict.message;
  }
  const RunSummary fixed = run_on_cuda(param.kernel, "");
  EXPECT_EQ(verdict_of(fixed, param.case_id, Backend::kCuda).verdict,
            Verdict::kPass);
  EXPECT_EQ(failures(fixed), "");
}

INSTANTIATE_TEST_SUITE_P(
    Kernels, BrokenGpuVariant,
    testing::Values(
        BrokenVariant{"sum", "sum_tail_dropped",
                      "kernels/sum/boundaries~block_boundaries[257]", false},
        BrokenVariant{"sum", "sum_first_block_only",
                      "kernels/sum/boundaries~block_boundaries[257]", false},
        BrokenVariant{"sum", "sum_half_accumulation",
                      "kernels/sum/float16_length_4097", false},
        BrokenVariant{"softmax", "softmax_stride_ignored",
                      "kernels/softmax/transposed", false},
        BrokenVariant{"nll_loss", "nll_loss_bound_check_removed",
                      "kernels/nll_loss/target_equals_classes", true},
        BrokenVariant{"nll_loss", "nll_loss_last_class_skipped",
                      "kernels/nll_loss/every_target_counted", false,
                      Family::kSkippedEntries},
        BrokenVariant{"embedding", "embedding_bound_check_removed",
                      "kernels/embedding/index_past_end", true}),
    [](const testing::TestParamInfo<BrokenVariant>& info) {
      return std::string(info.param.variant);
    });

}  // namespace
}  // namespace casebook
