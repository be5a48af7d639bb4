// Advice for every family, the text of `casebook explain`, and the first
// error kept as the cause with later ones as consequences.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "casebook/diagnosis.h"

namespace casebook {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(Advice, EveryFamilyHasMeaningCheckAndADoNot) {
  std::vector<Family> families = all_families();
  families.push_back(Family::kNone);
  ASSERT_EQ(families.size(), 15u);
  for (Family family : families) {
    const FamilyAdvice& advice = advice_for(family);
    const std::string name(family_name(family));
    EXPECT_EQ(advice.family, family) << name;
    EXPECT_GT(advice.meaning.size(), 30u) << name;
    EXPECT_GT(advice.first_check.size(), 30u) << name;
    EXPECT_EQ(advice.avoid.rfind("Do not ", 0), 0u) << name;
    const std::string text = explain_family(family);
    EXPECT_EQ(text.rfind(name + "\n", 0), 0u) << text;
    EXPECT_TRUE(contains(text, advice.meaning)) << name;
    EXPECT_TRUE(contains(text, "Check first:\n  " + advice.first_check));
    EXPECT_TRUE(contains(text, "Avoid:\n  Do not ")) << name;
    for (const RerunChange& rerun : advice.reruns) {
      EXPECT_FALSE(rerun.change.empty()) << name;
      EXPECT_TRUE(
          contains(text, "  - " + rerun.change + ": shows " + rerun.reveals))
          << name;
    }
  }
}

TEST(Advice, RunFailuresSuggestReruns) {
  for (Family family : all_families()) {
    if (family == Family::kInvalidCase) continue;  // nothing ran
    EXPECT_FALSE(advice_for(family).reruns.empty()) << family_name(family);
  }
}

TEST(Advice, SaysWhatTheBriefAsksPerFamily) {
  const auto& assert_advice = advice_for(Family::kDeviceAssert);
  EXPECT_TRUE(contains(assert_advice.first_check, "indices"));
  EXPECT_TRUE(contains(assert_advice.first_check, "targets"));
  EXPECT_TRUE(contains(assert_advice.avoid, "GPU"));
  EXPECT_TRUE(contains(assert_advice.avoid, "faulty"));

  const auto& oom = advice_for(Family::kOutOfMemory);
  EXPECT_TRUE(contains(oom.first_check, "shapes"));
  EXPECT_TRUE(contains(oom.first_check, "lifetime of tensors"));
  EXPECT_TRUE(contains(oom.avoid, "every CUDA error is a lack of VRAM"));

  const auto& unavailable = advice_for(Family::kOpUnavailable);
  EXPECT_TRUE(contains(unavailable.first_check, "versions"));
  EXPECT_TRUE(contains(unavailable.first_check, "dtype"));
  EXPECT_TRUE(contains(unavailable.avoid, "reinstall"));

  EXPECT_TRUE(
      contains(advice_for(Family::kDeviceMismatch).avoid, "add a copy"));

  const std::string illegal = explain_family(Family::kIllegalAddress);
  EXPECT_TRUE(contains(illegal, "reports it late"));
  EXPECT_TRUE(contains(illegal, "CUDA_LAUNCH_BLOCKING=1"));
  EXPECT_TRUE(contains(illegal, "compute-sanitizer"));
  EXPECT_TRUE(contains(illegal, "PYTORCH_NO_CUDA_MEMORY_CACHING=1"));
}

// The sticky sequence seen on the GPU machine: the kernel's assertion, then
// the same "device-side assert triggered" on every later CUDA call.
TEST(ErrorChain, FirstErrorIsTheCauseLaterOnesConsequences) {
  const std::string kernel_assertion =
      "../aten/src/ATen/native/cuda/Loss.cu:250: "
      "nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: "
      "[0,0,0] Assertion `t >= 0 && t < n_classes` failed.";
  const std::string sticky =
      "CUDA error: device-side assert triggered\nCUDA kernel errors might "
      "be asynchronously reported at some other API call, so the "
      "stacktrace below might be incorrect.";
  const ErrorChain chain = chain_errors(
      {"", kernel_assertion, sticky, sticky + "\n", "  \n", sticky});
  EXPECT_EQ(chain.first, kernel_assertion);
  ASSERT_EQ(chain.consequences.size(), 1u);
  EXPECT_EQ(chain.consequences[0], sticky);
  EXPECT_EQ(render_error_chain(chain),
            "first error: " + kernel_assertion +
                "\npossible consequences (not causes):\n  - " + sticky);
}

TEST(ErrorChain, RepeatsDifferingOnlyInBacktraceAreOne) {
  const ErrorChain chain = chain_errors(
      {"Target 4 is out of bounds.",
       "Target 4 is out of bounds.\nException raised from "
       "nll_loss_out_frame at ./aten/src/ATen/native/LossNLL.cpp:226 (most "
       "recent call first):\nframe #0: c10::Error::Error",
       "index out of range in self"});
  EXPECT_EQ(chain.first, "Target 4 is out of bounds.");
  ASSERT_EQ(chain.consequences.size(), 1u);
  EXPECT_EQ(chain.consequences[0], "index out of range in self");
}

TEST(ErrorChain, SingleErrorHasNoConsequenceSection) {
  const ErrorChain chain = chain_errors({"CUDA error: out of memory"});
  EXPECT_TRUE(chain.consequences.empty());
  EXPECT_EQ(render_error_chain(chain),
            "first error: CUDA error: out of memory");
  EXPECT_TRUE(chain_errors({}).first.empty());
}

}  // namespace
}  // namespace casebook
