// Issue 34, part 2: origin.first_error, as Python printed it, read into a
// family by the one table of messages (diagnosis/classify.cpp), and "the
// same failure" as capture judges it.
#include <gtest/gtest.h>

#include "casebook/diagnosis.h"

namespace casebook {
namespace {

TEST(OriginFamily, PythonExceptionsAndPyTorchTextsMapToFamilies) {
  EXPECT_EQ(classify_python_error("IndexError: Target 4 is out of bounds."),
            Family::kIndexOutOfRange);
  EXPECT_EQ(classify_python_error("IndexError: index out of range in self"),
            Family::kIndexOutOfRange);
  EXPECT_EQ(classify_python_error(
                "torch.OutOfMemoryError: CUDA out of memory. Tried to "
                "allocate 2.00 GiB"),
            Family::kOutOfMemory);
  EXPECT_EQ(classify_python_error("torch.cuda.OutOfMemoryError: boom"),
            Family::kOutOfMemory);
  EXPECT_EQ(
      classify_python_error("RuntimeError: CUDA error: device-side assert "
                            "triggered"),
      Family::kDeviceAssert);
  EXPECT_EQ(classify_python_error("CUDA error: device-side assert triggered"),
            Family::kDeviceAssert);
  EXPECT_EQ(classify_python_error(
                "RuntimeError: Expected all tensors to be on the same device"),
            Family::kDeviceMismatch);
  EXPECT_EQ(classify_python_error("NotImplementedError: whatever"),
            Family::kOpUnavailable);
  EXPECT_EQ(classify_python_error(""), Family::kNone);
}

TEST(OriginFamily, TheSameFailureIsTheFamilyAndTheOffendingValue) {
  std::string why;
  EXPECT_TRUE(same_failure("IndexError: Target 4 is out of bounds.",
                           Family::kIndexOutOfRange,
                           "Target 4 is out of bounds.", &why));
  EXPECT_FALSE(same_failure("IndexError: Target 4 is out of bounds.",
                            Family::kIndexOutOfRange,
                            "Target 7 is out of bounds.", &why));
  EXPECT_NE(why.find("(4)"), std::string::npos) << why;
  EXPECT_FALSE(same_failure("IndexError: Target 4 is out of bounds.",
                            Family::kOpUnavailable,
                            "\"log_softmax_lastdim_kernel_impl\" not "
                            "implemented for 'Long'",
                            &why));
  EXPECT_EQ(why,
            "the origin's error is index_out_of_range, the case's "
            "op_unavailable");
  // An out-of-memory's sizes are the machine's, not the data's.
  EXPECT_TRUE(same_failure("torch.OutOfMemoryError: Tried to allocate 2 GiB",
                           Family::kOutOfMemory, "out of memory: 3 GiB", &why));
}

// Issue 48, part 3: where the origin names no value, another op's error of
// the same family is not the same failure; the same words are.
TEST(OriginFamily, AnOriginNamingNoValueNeedsTheSameMessage) {
  std::string why;
  EXPECT_FALSE(same_failure("IndexError: index out of range in self",
                            Family::kIndexOutOfRange,
                            "Target 4 is out of bounds.", &why));
  EXPECT_EQ(why,
            "both are index_out_of_range, but the origin's is `index out of "
            "range in self`, the case's `Target # is out of bounds.`");
  EXPECT_TRUE(same_failure("IndexError: index out of range in self",
                           Family::kIndexOutOfRange,
                           "index out of range in self", &why))
      << why;
}

// Issue 50: the same rule judges `casebook reduce`'s candidates, where the
// failure may be the outputs' (the same output, the same kind of
// difference, whatever the counts) and may be placed at a step.
TEST(OriginFamily, TheSameMismatchIsTheSameOutputDifferingTheSameWay) {
  std::string why;
  const SeenFailure mismatch{
      Family::kMismatch,
      "output 1: mismatched elements: 3 / 512 (0.59 %) against the "
      "reference (cpu)",
      ""};
  SeenFailure smaller = mismatch;
  smaller.message =
      "output 1: mismatched elements: 1 / 8 (12.5 %) against the reference "
      "(cpu)\ntolerance: rtol=1.3e-06, atol=1e-05";
  EXPECT_TRUE(same_failure(mismatch, smaller, &why)) << why;
  SeenFailure other_output = smaller;
  other_output.message =
      "output 0: mismatched elements: 1 / 8 (12.5 %) against the reference "
      "(cpu)";
  EXPECT_FALSE(same_failure(mismatch, other_output, &why));
  EXPECT_NE(why.find("output 1: mismatched elements"), std::string::npos)
      << why;
  SeenFailure shape = smaller;
  shape.message = "output 1: shape differs: expected [8], got [4]";
  EXPECT_FALSE(same_failure(mismatch, shape, &why));
  SeenFailure raised = smaller;
  raised.family = Family::kContract;
  raised.message = "inputs are too small";
  EXPECT_FALSE(same_failure(mismatch, raised, &why));
  EXPECT_EQ(why, "the origin's error is mismatch, the case's contract");
}

// Outputs where an error was expected are the same failure whatever came
// out: a reduced input gives fewer values to show.
TEST(OriginFamily, OutputsWhereAnErrorWasExpectedAreOneFailure) {
  std::string why;
  const SeenFailure large{
      Family::kNone,
      "expected index_out_of_range, got outputs: float32 [512]: 1.5, 2, 3, "
      "4, ...",
      ""};
  SeenFailure small = large;
  small.message = "expected index_out_of_range, got outputs: float32 [2]: 7, 8";
  EXPECT_TRUE(same_failure(large, small, &why)) << why;
  SeenFailure other = small;
  other.message = "expected contract, got outputs: float32 [2]: 7, 8";
  EXPECT_FALSE(same_failure(large, other, &why));
}

TEST(OriginFamily, TheSameFailureOfAStepIsRaisedAtTheSameStep) {
  std::string why;
  const SeenFailure at_loss{Family::kIndexOutOfRange,
                            "Target 1000 is out of bounds.", "loss"};
  SeenFailure elsewhere = at_loss;
  elsewhere.step = "gather";
  EXPECT_FALSE(same_failure(at_loss, elsewhere, &why));
  EXPECT_EQ(why,
            "the origin's error is raised at step `loss`, the case's at step "
            "`gather`");
  SeenFailure no_step = at_loss;
  no_step.step.clear();
  EXPECT_TRUE(same_failure(at_loss, no_step, &why)) << why;
  SeenFailure other_target = at_loss;
  other_target.message = "Target 999 is out of bounds.";
  EXPECT_FALSE(same_failure(at_loss, other_target, &why));
}

}  // namespace
}  // namespace casebook
