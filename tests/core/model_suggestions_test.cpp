// Did-you-mean for the closed sets of names (issue 23): a dtype as Python
// spells it, an error family with a dash, a misspelt backend.
#include <gtest/gtest.h>

#include "casebook/suggestions.h"
#include "model_malformed.h"

namespace casebook {
namespace {

using testing_malformed::kDtypes;
using testing_malformed::kFamilies;
using testing_malformed::messages_of;
using testing_malformed::with_extra;
using testing_malformed::with_input;

TEST(Suggestions, DtypesAsPythonSpellsThem) {
  EXPECT_EQ(suggest_dtype("torch.float32"), "float32");
  EXPECT_EQ(suggest_dtype("torch.long"), "int64");
  EXPECT_EQ(suggest_dtype("float"), "float32");
  EXPECT_EQ(suggest_dtype("torch.double"), "float64");
  EXPECT_EQ(suggest_dtype("flaot16"), "float16");
  EXPECT_EQ(suggest_dtype("quaternion"), "");
  EXPECT_EQ(messages_of(with_input("{dtype: torch.long, values: [1]}")),
            std::vector<std::string>{
                "cases/bad.yaml:5:14: `inputs.x.dtype`: expected one of " +
                kDtypes + "; got `torch.long`; did you mean `int64`?"});
}

TEST(Suggestions, FamiliesAndBackends) {
  EXPECT_EQ(suggest_family("device-assert"), "device_assert");
  EXPECT_EQ(suggest_family("Index-Out-Of-Range"), "index_out_of_range");
  EXPECT_EQ(suggest_backend("cdua"), "cuda");
  EXPECT_EQ(suggest_backend("rocm"), "hip");
  EXPECT_EQ(suggest_backend("cuda:0"), "cuda");
  EXPECT_EQ(suggest_backends("gpu"), (std::vector<std::string>{"cuda", "hip"}));
  EXPECT_EQ(suggest_backends("quantum"), std::vector<std::string>{});
  EXPECT_EQ(did_you_mean(suggest_backends("gpu")),
            "; did you mean `cuda` or `hip`?");
  EXPECT_EQ(messages_of(with_extra("expect: {cpu: {error: device-assert}}\n")),
            std::vector<std::string>{
                "cases/bad.yaml:6:23: `expect.cpu.error`: expected one of " +
                kFamilies +
                "; got `device-assert`; did you mean "
                "`device_assert`?"});
}

// `expect.gpu` is either GPU backend, not the nearest spelling (`cpu`).
TEST(Suggestions, ExpectGpuSuggestsTheGpuBackends) {
  EXPECT_EQ(messages_of(with_extra("expect: {gpu: {error: device_assert}}\n")),
            std::vector<std::string>{
                "cases/bad.yaml:6:10: `expect.gpu`: unknown key `gpu`; did "
                "you mean `cuda` or `hip`?"});
}

// PyTorch's Python names of an op, as a case names it (issue 34).
TEST(Suggestions, OpsAsPythonSpellsThem) {
  EXPECT_EQ(python_op_spelling("torch.nn.functional.cross_entropy"),
            "torch.cross_entropy");
  EXPECT_EQ(python_op_spelling("F.cross_entropy"), "torch.cross_entropy");
  EXPECT_EQ(python_op_spelling("nn.CrossEntropyLoss"), "torch.cross_entropy");
  EXPECT_EQ(python_op_spelling("torch.nn.NLLLoss"), "torch.nll_loss");
  EXPECT_EQ(python_op_spelling("nn.LogSoftmax"), "torch.log_softmax");
  EXPECT_EQ(python_op_spelling("nn.MSELoss"), "torch.mse_loss");
  EXPECT_EQ(python_op_spelling("torch.cross_entropy"), "");
  EXPECT_EQ(python_op_spelling("nn."), "");
  const std::vector<std::string> messages = messages_of(
      "casebook: 1\nsummary: s\nop: F.cross_entropy\ninputs:\n  x: "
      "{dtype: float32, values: [1, 2]}\n");
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0].rfind("cases/bad.yaml:3:5: `op`: expected ", 0), 0u)
      << messages[0];
  const std::string suffix =
      "; got `F.cross_entropy`; did you mean `torch.cross_entropy`?";
  EXPECT_EQ(messages[0].substr(messages[0].size() - suffix.size()), suffix)
      << messages[0];
}

}  // namespace
}  // namespace casebook
