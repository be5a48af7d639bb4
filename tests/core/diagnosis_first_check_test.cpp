// Issue 48, items 6 and 7: the advice names the failing backend's own
// switches (HIP's on hip, never CUDA's), PyTorch's `cuda` is casebook's hip
// on ROCm, and the first check follows what the message says (a kernel
// missing for a dtype, an output's shape or dtype, stated outputs the
// reference disagrees with) where the family's advice is generic.
#include <gtest/gtest.h>

#include <string>

#include "casebook/diagnosis.h"
#include "casebook/gpu_stack.h"
#include "casebook/run_advice.h"

namespace casebook {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(BackendOfTorchDevice, RocmKeepsPyTorchsCudaNamesForHip) {
  EXPECT_EQ(backend_of_torch_device("cuda", false), Backend::kCuda);
  EXPECT_EQ(backend_of_torch_device("cuda", true), Backend::kHip);
  EXPECT_EQ(backend_of_torch_device("cpu", true), Backend::kCpu);
  EXPECT_EQ(backend_of_torch_device("hip", false), Backend::kHip);
  EXPECT_FALSE(backend_of_torch_device("mps", false).has_value());
}

TEST(BackendAdvice, ExplainDeviceAssertNamesTheFailingBackendsSwitches) {
  const std::string hip =
      explain_family_on(Family::kDeviceAssert, Backend::kHip);
  EXPECT_TRUE(contains(hip, "device_assert on hip\n")) << hip;
  EXPECT_TRUE(contains(hip,
                       "  - HIP_LAUNCH_BLOCKING=1 AMD_SERIALIZE_KERNEL=3: "
                       "shows the kernel that failed"))
      << hip;
  EXPECT_FALSE(contains(hip, "CUDA_LAUNCH_BLOCKING")) << hip;

  const std::string cuda =
      explain_family_on(Family::kDeviceAssert, Backend::kCuda);
  EXPECT_TRUE(contains(cuda, "  - CUDA_LAUNCH_BLOCKING=1: shows")) << cuda;
  EXPECT_FALSE(contains(cuda, "AMD_SERIALIZE_KERNEL")) << cuda;

  // No backend given: each GPU backend's, said for which.
  const std::string both = explain_family(Family::kDeviceAssert);
  EXPECT_TRUE(contains(both, "  - CUDA_LAUNCH_BLOCKING=1 on cuda: shows"))
      << both;
  EXPECT_TRUE(contains(
      both, "  - HIP_LAUNCH_BLOCKING=1 AMD_SERIALIZE_KERNEL=3 on hip: shows"))
      << both;
}

TEST(BackendAdvice, HipHasNoComputeSanitizerNorTf32Switch) {
  const FamilyAdvice hip = advice_on(Family::kIllegalAddress, Backend::kHip);
  std::string changes;
  for (const RerunChange& rerun : hip.reruns) changes += rerun.change + "\n";
  EXPECT_TRUE(contains(changes, "AMD_LOG_LEVEL=3")) << changes;
  EXPECT_FALSE(contains(changes, "compute-sanitizer")) << changes;
  EXPECT_FALSE(contains(changes, "CUDA_")) << changes;
  for (const RerunChange& rerun :
       advice_on(Family::kMismatch, Backend::kHip).reruns) {
    EXPECT_FALSE(contains(rerun.change, "NVIDIA")) << rerun.change;
  }
  // The CPU flips no GPU switch.
  for (const RerunChange& rerun :
       advice_on(Family::kTimeout, Backend::kCpu).reruns) {
    EXPECT_FALSE(contains(rerun.change, "LAUNCH_BLOCKING")) << rerun.change;
  }
}

TEST(FirstCheck, AKernelMissingForADtypeIsSaidSoNotVersionsAndDrivers) {
  FailureFacts facts;
  facts.family = Family::kOpUnavailable;
  facts.message = "\"addmm_impl_cpu_\" not implemented for 'Half'";
  facts.backend = Backend::kCpu;
  const std::string check = first_check_for(facts);
  EXPECT_EQ(check.rfind("`addmm_impl_cpu_` has no float16 ('Half') kernel on "
                        "cpu: a kernel missing for this dtype",
                        0),
            0u)
      << check;
  EXPECT_TRUE(contains(check, "Rerun the case in float32")) << check;
  EXPECT_FALSE(contains(check, "sm_90")) << check;
  // Another op_unavailable keeps the family's check.
  facts.message = "no kernel image is available for execution on the device";
  EXPECT_EQ(first_check_for(facts),
            advice_for(Family::kOpUnavailable).first_check);
}

TEST(FirstCheck, AnIntegerDtypeWithoutAKernelIsToldToCastNotFloat32) {
  FailureFacts facts;
  facts.family = Family::kOpUnavailable;
  facts.message =
      "RuntimeError: \"log_softmax_lastdim_kernel_impl\" not implemented "
      "for 'Long'";
  const std::string check = first_check_for(facts);
  EXPECT_TRUE(contains(check, "has no int64 ('Long') kernel here")) << check;
  EXPECT_TRUE(contains(check, "Cast the inputs")) << check;
}

TEST(FirstCheck, AShapeDifferingFromTheCaseIsAboutTheShapeNotATailBlock) {
  FailureFacts facts;
  facts.family = Family::kMismatch;
  facts.message =
      "output 0: shape differs from the case's: expected [8], got []";
  facts.backend = Backend::kCpu;
  std::string check = first_check_for(facts);
  EXPECT_EQ(check,
            "output 0 has shape [] where the case states [8]: check what "
            "decides it (the op's overload, `dim`, `keepdim`, a reduction, "
            "broadcasting) against the stated `shape`; values are compared "
            "only once shapes agree");
  facts.stated_outputs_disagree_with_reference = true;
  check = first_check_for(facts);
  EXPECT_TRUE(contains(check,
                       "and the reference gives the run's shape: "
                       "check the stated `shape` first"))
      << check;
  EXPECT_FALSE(contains(check, "tail block")) << check;
}

TEST(FirstCheck, AShapeOrDtypeDifferingFromTheReferenceNamesTheBackend) {
  FailureFacts facts;
  facts.family = Family::kMismatch;
  facts.message = "shape differs: expected [4], got [4, 1]";
  facts.backend = Backend::kHip;
  EXPECT_EQ(first_check_for(facts).rfind(
                "the output has shape [4, 1] on hip where the reference "
                "gives [4]: the backends disagree on the shape itself",
                0),
            0u)
      << first_check_for(facts);
  facts.message =
      "output 1: dtype differs from the case's: expected float64, got float32";
  EXPECT_EQ(first_check_for(facts).rfind(
                "output 1 is float32 where the case states float64", 0),
            0u)
      << first_check_for(facts);
}

TEST(FirstCheck, StatedValuesTheReferenceDisagreesWithComeFirst) {
  FailureFacts facts;
  facts.family = Family::kMismatch;
  facts.message =
      "output 0: mismatched elements: 1 / 2 (50 %) against the expected "
      "values";
  facts.backend = Backend::kCpu;
  EXPECT_EQ(first_check_for(facts), advice_for(Family::kMismatch).first_check);
  facts.stated_outputs_disagree_with_reference = true;
  const std::string check = first_check_for(facts);
  EXPECT_EQ(check.rfind("the run agrees with the reference but not with the "
                        "values the case states: check the stated values "
                        "first",
                        0),
            0u)
      << check;
  EXPECT_FALSE(contains(check, "tail block")) << check;
}

}  // namespace
}  // namespace casebook
