// `steps` as the loader reads them: names, sources, the outputs `outputs`
// names, and every error at its file:line:col.
#include <gtest/gtest.h>

#include "casebook/loader.h"
#include "loaded_case_checks.h"

namespace casebook {
namespace {

LoadedCase load(const std::string& text) {
  return load_case_text(text, "cases/steps.yaml");
}

// Every error of `loaded`, one per line.
const char* const kTwoSteps =
    "casebook: 1\n"                                       // 1
    "summary: log_softmax then nll_loss\n"                // 2
    "steps:\n"                                            // 3
    "  - name: logp\n"                                    // 4
    "    op: torch.log_softmax\n"                         // 5
    "    inputs: {self: logits}\n"                        // 6
    "    args: {dim: 1}\n"                                // 7
    "  - op: aten::nll_loss\n"                            // 8
    "    inputs: {self: logp, target: labels}\n"          // 9
    "inputs:\n"                                           // 10
    "  logits: {dtype: float32, values: [[0.5, 1.5]]}\n"  // 11
    "  labels: {dtype: int64, values: [1]}\n"             // 12
    "outputs:\n"                                          // 13
    "  logp.0: {max: 0}\n";                               // 14

TEST(Steps, ReadsEachStepItsSourcesAndTheOutputsNamed) {
  const LoadedCase loaded = load(kTwoSteps);
  ASSERT_TRUE(loaded.ok()) << all_errors(loaded);
  const Case& kase = *loaded.value;
  ASSERT_EQ(kase.steps.size(), 2u);
  EXPECT_EQ(kase.op, "steps(torch.log_softmax, aten::nll_loss)");
  EXPECT_EQ(kase.op_where.line, 4);  // the list under `steps`
  EXPECT_EQ(kase.steps[0].name, "logp");
  EXPECT_TRUE(kase.steps[0].named);
  EXPECT_EQ(kase.steps[0].args.at("dim").int_value, 1);
  EXPECT_EQ(kase.steps[1].name, "step2");
  EXPECT_FALSE(kase.steps[1].named);
  EXPECT_EQ(kase.steps[1].op_where.line, 8);
  ASSERT_EQ(kase.steps[1].inputs.size(), 2u);
  EXPECT_EQ(kase.steps[1].inputs[0].argument, "self");
  EXPECT_EQ(kase.steps[1].inputs[0].source, "logp");
  EXPECT_EQ(kase.steps[1].inputs[1].source, "labels");
  EXPECT_EQ(kase.steps[1].inputs[1].where.line, 9);
  ASSERT_EQ(kase.step_outputs.size(), 1u);
  EXPECT_EQ(kase.step_outputs[0].source, "logp.0");
  EXPECT_TRUE(kase.args.empty());
}

TEST(Steps, ANullInAListOfTensorsLeavesItsPlace) {
  const LoadedCase loaded = load(
      "casebook: 1\nsummary: x[:, idx]\n"
      "steps:\n"
      "  - op: aten::index.Tensor\n"
      "    inputs: {self: x, indices: [null, idx]}\n"
      "inputs:\n"
      "  x: {dtype: float32, values: [[1, 2]]}\n"
      "  idx: {dtype: int64, values: [1]}\n");
  ASSERT_TRUE(loaded.ok()) << all_errors(loaded);
  const Step& step = loaded.value->steps.at(0);
  ASSERT_EQ(step.inputs.size(), 2u);
  EXPECT_EQ(step.inputs[1].argument, "indices[1]");
  EXPECT_EQ(step.inputs[1].source, "idx");
}

// Replaces the first `from` of kTwoSteps with `to`.
std::string two_steps_with(const std::string& from, const std::string& to) {
  std::string text = kTwoSteps;
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(Steps, AnUnknownSourceIsNamedWithTheNearestAtItsLine) {
  const LoadedCase loaded =
      load(two_steps_with("self: logp, target", "self: lopg, target"));
  const std::string errors = all_errors(loaded);
  EXPECT_NE(errors.find("cases/steps.yaml:9:20: `steps[1].inputs.self`: `lopg` "
                        "is neither an input of the case nor an earlier step"),
            std::string::npos)
      << errors;
  EXPECT_NE(errors.find("did you mean `logp`?"), std::string::npos) << errors;
}

TEST(Steps, AStepThatReadsALaterStepIsACycleTold) {
  const LoadedCase loaded =
      load(two_steps_with("inputs: {self: logits}", "inputs: {self: step2}"));
  const std::string errors = all_errors(loaded);
  EXPECT_NE(errors.find("cases/steps.yaml:6:20: `steps[0].inputs.self`: "
                        "`step2` is the output of step 2, which runs after "
                        "this one"),
            std::string::npos)
      << errors;
  // `logits` is now read by no step: told too, at its own line.
  EXPECT_NE(
      errors.find("cases/steps.yaml:11:11: `inputs.logits`: no step reads"),
      std::string::npos)
      << errors;
}

TEST(Steps, AStepReadingItselfIsTold) {
  const LoadedCase loaded =
      load(two_steps_with("self: logp, target", "self: step2, target"));
  EXPECT_NE(all_errors(loaded).find("`step2` is this step's own output"),
            std::string::npos)
      << all_errors(loaded);
}

TEST(Steps, OpAndStepsTogetherAreRefused) {
  const LoadedCase loaded = load(two_steps_with(
      "summary: log_softmax then nll_loss\n",
      "summary: log_softmax then nll_loss\nop: torch.softmax\n"));
  EXPECT_NE(all_errors(loaded).find("cases/steps.yaml:3:5: `op`: a case has "
                                    "`op` or `steps`, not both; line 5 gives "
                                    "`steps`"),
            std::string::npos)
      << all_errors(loaded);
}

TEST(Steps, TopLevelArgsAreRefusedWithSteps) {
  const LoadedCase loaded = load(
      two_steps_with("inputs:\n  logits", "args: {dim: 1}\ninputs:\n  logits"));
  EXPECT_NE(all_errors(loaded).find("cases/steps.yaml:10:7: `args`: a case of "
                                    "`steps` gives each step its own `args`"),
            std::string::npos)
      << all_errors(loaded);
}

TEST(Steps, NamesMustBeDistinctPlainAndNotAnInput) {
  EXPECT_NE(
      all_errors(load(two_steps_with("  - op: aten::nll_loss",
                                     "  - name: logp\n    op: aten::nll_loss")))
          .find("`logp` names an earlier step too"),
      std::string::npos);
  EXPECT_NE(all_errors(load(two_steps_with("name: logp", "name: labels")))
                .find("`labels` names an input of the case too"),
            std::string::npos);
  EXPECT_NE(all_errors(load(two_steps_with("name: logp", "name: log.p")))
                .find("expected a name of letters, digits and `_`"),
            std::string::npos);
}

TEST(Steps, TheLastStepsOutputsAreTheCasesOwn) {
  const LoadedCase loaded =
      load(two_steps_with("  logp.0: {max: 0}\n", "  step2.0: {max: 9}\n"));
  EXPECT_NE(
      all_errors(loaded).find("cases/steps.yaml:14:12: `outputs.step2.0`: "
                              "`step2` is the last step: its outputs are "
                              "the case's; write `0`"),
      std::string::npos)
      << all_errors(loaded);
}

TEST(Steps, AStepNeedsAnOpAndItsInputs) {
  const LoadedCase loaded = load(
      "casebook: 1\nsummary: s\nsteps:\n  - args: {dim: 1}\n"
      "inputs:\n  x: {dtype: float32, values: [1]}\n");
  const std::string errors = all_errors(loaded);
  EXPECT_NE(errors.find("cases/steps.yaml:4:5: `steps[0].op`: required key "
                        "missing"),
            std::string::npos)
      << errors;
  EXPECT_NE(errors.find("`steps[0].inputs`: required key missing"),
            std::string::npos)
      << errors;
  EXPECT_NE(all_errors(load("casebook: 1\nsummary: s\nsteps: []\n"
                            "inputs:\n  x: {dtype: float32, values: [1]}\n"))
                .find("`steps`: expected a list of steps"),
            std::string::npos);
}

// Gradients flow through every step when each is a LibTorch op; a kernel
// step has no autograd.
TEST(Steps, GradientsAreReadWhenEveryStepIsALibTorchOp) {
  const std::string with_grad =
      std::string(kTwoSteps) + "grad: {wrt: [logits]}\n";
  const LoadedCase loaded = load(with_grad);
  ASSERT_TRUE(loaded.ok()) << all_errors(loaded);
  EXPECT_EQ(loaded.value->grad->wrt, std::vector<std::string>{"logits"});
  std::string kernel = with_grad;
  kernel.replace(kernel.find("aten::nll_loss"), 14, "kernels.nll_loss");
  EXPECT_NE(all_errors(load(kernel))
                .find("gradients are for torch.* and "
                      "aten:: ops"),
            std::string::npos);
}

}  // namespace
}  // namespace casebook
