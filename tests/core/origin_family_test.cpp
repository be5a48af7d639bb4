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

}  // namespace
}  // namespace casebook
