// `grad`, `fill: {torch: ...}` and `op: aten::...` (issue 10): what the
// loader reads from them, and each malformed form's exact message.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "casebook/loader.h"
#include "loaded_case_checks.h"
#include "model_malformed.h"

namespace casebook {
namespace {

using testing_malformed::messages_of;
using testing_malformed::with_extra;
using testing_malformed::with_input;

// A case whose only input `x` is int64 (line 5); line 6 on is free.
std::string kHeadInt() {
  return "casebook: 1\nsummary: s\nop: torch.add\ninputs:\n  x: {dtype: "
         "int64, values: [1]}\n";
}

Case load_grad(const std::string& text) {
  return load_ok(text, "cases/g.yaml");
}

TEST(LoaderGrad, WrtGradOutputsAndCheck) {
  const Case value = load_grad(R"(casebook: 1
summary: s
op: aten::conv2d
inputs:
  input: {shape: [1, 1, 3, 3], dtype: float32, fill: {full: 1}}
  weight: {shape: [1, 1, 2, 2], dtype: float64, fill: {full: 1}}
  index: {dtype: int64, values: [0]}
grad:
  wrt: [weight]
  grad_outputs:
    0: {shape: [1, 1, 2, 2], dtype: float32, fill: {torch: randn}, seed: 4}
  check: finite_differences
)");
  EXPECT_EQ(value.op, "aten::conv2d");
  ASSERT_TRUE(value.grad.has_value());
  EXPECT_EQ(value.grad->wrt, std::vector<std::string>{"weight"});
  ASSERT_EQ(value.grad->grad_outputs.size(), 1u);
  EXPECT_EQ(value.grad->grad_outputs[0].name, "0");
  EXPECT_EQ(value.grad->grad_outputs[0].fill.kind, Fill::Kind::kTorch);
  EXPECT_TRUE(value.grad->finite_differences);
  EXPECT_EQ(value.grad->where.line, 9);  // the map under `grad:`
  // Without `wrt`: every floating input.
  const Case all = load_grad(R"(casebook: 1
summary: s
op: torch.mul
inputs:
  input: {dtype: float32, values: [1]}
  other: {dtype: float64, values: [2]}
  index: {dtype: int64, values: [0]}
grad: {}
)");
  ASSERT_TRUE(all.grad.has_value());
  EXPECT_EQ(all.grad->wrt, (std::vector<std::string>{"input", "other"}));
  EXPECT_FALSE(all.grad->finite_differences);
}

TEST(LoaderTorchFill, EveryCallAndItsParameters) {
  const Case value = load_grad(R"(casebook: 1
summary: s
op: torch.add
inputs:
  a: {shape: [2], dtype: float32, fill: {torch: randn}, seed: 3}
  b: {shape: [2], dtype: float64, fill: {torch: {normal: {mean: 1, std: 2}}}}
  c: {shape: [2], dtype: int32, fill: {torch: {randint: {low: -3, high: 4}}}}
  d: {shape: [2], dtype: float32, fill: {torch: {bernoulli: {p: 0.25}}}}
  e: {shape: [5], dtype: int64, fill: {torch: {randperm: {}}}}
  f: {shape: [2], dtype: float32, fill: {torch: {uniform: {low: -1, high: 1}}}}
)");
  ASSERT_EQ(value.inputs.size(), 6u);
  EXPECT_EQ(value.inputs[0].fill.kind, Fill::Kind::kTorch);
  EXPECT_EQ(value.inputs[0].fill.torch_call, "randn");
  EXPECT_EQ(value.inputs[0].seed, 3u);
  EXPECT_EQ(value.inputs[1].fill.torch_call, "normal");
  EXPECT_EQ(value.inputs[1].fill.first, 1.0);
  EXPECT_EQ(value.inputs[1].fill.second, 2.0);
  EXPECT_EQ(value.inputs[2].fill.first, -3.0);
  EXPECT_EQ(value.inputs[2].fill.second, 4.0);
  EXPECT_EQ(value.inputs[3].fill.first, 0.25);
  EXPECT_EQ(value.inputs[4].fill.torch_call, "randperm");
  EXPECT_EQ(value.inputs[5].fill.torch_call, "uniform");
}

TEST(LoaderGrad, MalformedFormsGiveTheseMessages) {
  const std::string f = "cases/bad.yaml:";
  EXPECT_EQ(messages_of(with_extra("grad: {wrt: [y]}\n")),
            (std::vector<std::string>{
                f + "6:14: `grad.wrt[0]`: no input named `y`; the inputs are "
                    "x"}));
  EXPECT_EQ(messages_of(kHeadInt() + "grad: {wrt: x}\n"),
            (std::vector<std::string>{
                f + "6:13: `grad.wrt`: `x` is int64: only floating inputs "
                    "have gradients"}));
  EXPECT_EQ(messages_of(with_extra("grad: {check: gradcheck}\n")),
            (std::vector<std::string>{
                f + "6:15: `grad.check`: expected finite_differences; got "
                    "`gradcheck`"}));
  EXPECT_EQ(messages_of(with_extra("grad: {wrt: [x], chek: 1}\n")),
            (std::vector<std::string>{
                f + "6:18: `grad.chek`: unknown key `chek`; did you mean "
                    "`check`?"}));
  const std::string kernels =
      "casebook: 1\nsummary: s\nop: kernels.sum\ninputs:\n  x: {dtype: "
      "float32, values: [1]}\ngrad: {}\n";
  EXPECT_EQ(messages_of(kernels),
            (std::vector<std::string>{
                f + "6:7: `grad`: gradients are for torch.* and aten:: ops "
                    "(LibTorch's autograd); got op `kernels.sum`"}));
}

TEST(LoaderTorchFill, MalformedFormsGiveTheseMessages) {
  const std::string f = "cases/bad.yaml:";
  EXPECT_EQ(
      messages_of(
          with_input("{dtype: float32, shape: [2], fill: {torch: gauss}}")),
      (std::vector<std::string>{
          f + "5:49: `inputs.x.fill.torch`: expected a PyTorch call: one of "
              "randn, rand, randint, normal, uniform, bernoulli, randperm, or "
              "a map {call: {parameters}}; got `gauss`"}));
  EXPECT_EQ(messages_of(
                with_input("{dtype: int64, shape: [2], fill: {torch: randn}}")),
            (std::vector<std::string>{
                f + "5:47: `inputs.x.fill.torch.randn`: `randn` makes floating "
                    "values; got dtype int64 (use randint or randperm)"}));
  EXPECT_EQ(messages_of(with_input("{dtype: float32, shape: [2], fill: {torch: "
                                   "{bernoulli: {p: 2}}}}")),
            (std::vector<std::string>{
                f + "5:65: `inputs.x.fill.torch.bernoulli.p`: expected a "
                    "probability in [0, 1]; got `2`"}));
  EXPECT_EQ(messages_of(with_input("{dtype: float32, shape: [2], fill: {torch: "
                                   "{normal: {mean: 0}}}}")),
            (std::vector<std::string>{
                f + "5:58: `inputs.x.fill.torch.normal.std`: required key "
                    "missing"}));
}

}  // namespace
}  // namespace casebook
