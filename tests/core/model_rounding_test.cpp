// Values a dtype cannot hold exactly (issue 23): expected outputs are
// compared within a tolerance, so they are read as their nearest value;
// inputs stay exact unless `rounding: nearest` (the tensor's, or the file's
// top-level default); a refusal lists every offending element of the file
// in one error.
#include <gtest/gtest.h>

#include <string>

#include "casebook/loader.h"
#include "model_malformed.h"

namespace casebook {
namespace {

using testing_malformed::messages_of;
using testing_malformed::with_extra;
using testing_malformed::with_input;

TEST(ValueRounding, ExpectedOutputsAreReadAsTheirNearestValue) {
  // 0.24472847 pasted from Python's print of a float32 output.
  const LoadedCase loaded = load_case_text(
      with_extra("outputs:\n"
                 "  0: {dtype: float32, values: [0.24472847, 1.1]}\n"
                 "  1: {dtype: bfloat16, values: [257]}\n"),
      "cases/good.yaml");
  ASSERT_TRUE(loaded.ok()) << loaded.errors.front().to_string();
  const Case& kase = *loaded.value;
  ASSERT_EQ(kase.outputs.size(), 2u);
  EXPECT_TRUE(kase.outputs[0].values->round_to_nearest);
  EXPECT_EQ(kase.outputs[0].values->float_values[0], 0.24472847);
  EXPECT_TRUE(kase.outputs[1].values->round_to_nearest);
  // An input stays exact.
  EXPECT_FALSE(kase.inputs[0].round_to_nearest);
}

TEST(ValueRounding, TheFileLevelDefaultRoundsEveryTensor) {
  const LoadedCase loaded = load_case_text(
      "casebook: 1\nsummary: s\nop: torch.add\nrounding: nearest\n"
      "inputs:\n  x: {dtype: float32, values: [0.24472847]}\n"
      "  y: {dtype: float16, values: [70000]}\n",
      "cases/good.yaml");
  ASSERT_TRUE(loaded.ok()) << loaded.errors.front().to_string();
  EXPECT_TRUE(loaded.value->inputs[0].round_to_nearest);
  EXPECT_TRUE(loaded.value->inputs[1].round_to_nearest);
  EXPECT_EQ(messages_of("casebook: 1\nsummary: s\nop: torch.add\n"
                        "rounding: up\ninputs:\n  x: {dtype: float32, "
                        "values: [1]}\n"),
            std::vector<std::string>{
                "cases/bad.yaml:4:11: `rounding`: expected `nearest`; got "
                "`up`"});
}

TEST(ValueRounding, ARefusalListsEveryOffendingElementOnce) {
  const std::vector<std::string> messages = messages_of(
      "casebook: 1\nsummary: s\nop: torch.add\ninputs:\n"
      "  x: {dtype: float32, values: [0.24472847, 1, 16777217]}\n"
      "  y: {dtype: float16, values: [2049]}\n");
  ASSERT_EQ(messages.size(), 1u) << messages.back();
  EXPECT_EQ(messages[0],
            "cases/bad.yaml:5:32: `inputs.x.values[0]`: 3 values their dtype "
            "cannot hold exactly; write the value each would become, or add "
            "`rounding: nearest` to the tensor (or at the top level, for "
            "every tensor): `inputs.x.values[0]`: float32 cannot hold "
            "0.24472847, it would become 0.24472848; `inputs.x.values[2]`: "
            "float32 cannot hold 16777217, it would become 16777216; "
            "`inputs.y.values[0]`: float16 cannot hold 2049, it would "
            "become 2048");
}

}  // namespace
}  // namespace casebook
