// An input that is another input's tensor itself (`{same_as: NAME}`, issue
// 51) in the child: the very at::Tensor of its target, after the target is
// made, placed and cast; an out= call then writes its target in place, and
// an op that refuses an output overlapping its input refuses it.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "casebook/loader.h"
#include "casebook/op_catalog.h"
#include "casebook/ops.h"
#include "child/execute.h"
#include "run_command.h"
#include "run_one_case.h"

namespace casebook {
namespace {

using testing_support::run_one_case;
using testing_support::verdict_text;

// torch.add(self, other, out=self), as cases/aten/add/out_aliases_self.yaml.
const char kAddOutIsSelf[] =
    "casebook: 1\n"
    "summary: add.out writes self in place\n"
    "op: aten::add.out\n"
    "inputs:\n"
    "  self: {dtype: float32, values: [1, 2, 3]}\n"
    "  other: {dtype: float32, values: [10, 20, 30]}\n"
    "  out: {same_as: self}\n"
    "outputs:\n"
    "  0: {dtype: float32, values: [11, 22, 33]}\n";

// index_select.out refuses an out that overlaps self: with `same_as` it is
// self; with a tensor of its own (`{copy}` replaced) it is not.
const char kIndexSelectOut[] =
    "casebook: 1\n"
    "summary: index_select.out with out overlapping self\n"
    "op: aten::index_select.out\n"
    "args: {dim: 0}\n"
    "inputs:\n"
    "  self: {dtype: float32, values: [1, 2, 3]}\n"
    "  index: {dtype: int64, values: [2, 1, 0]}\n"
    "  out: {copy}\n"
    "backends: [cpu]\n"
    "expect:\n"
    "  cpu: {error: contract, message: 'refer to a single memory location'}\n";

std::string index_select_with(const std::string& out) {
  std::string text = kIndexSelectOut;
  return text.replace(text.find("{copy}"), 6, out);
}

std::vector<float> values_of(const at::Tensor& tensor) {
  const at::Tensor flat = tensor.to(at::kFloat).contiguous();
  return {flat.data_ptr<float>(), flat.data_ptr<float>() + flat.numel()};
}

TEST(SameAsChild, TheAliasIsItsTargetsTensorAndTheCallWritesItInPlace) {
  testing_support::use_single_thread();
  const LoadedCase loaded = load_case_text(kAddOutIsSelf, "cases/add.yaml");
  ASSERT_TRUE(loaded.ok()) << loaded.errors.front().to_string();
  const Case& kase = *loaded.value;
  const ResolvedOp resolved = resolve_op(kase, default_registry());
  ASSERT_NE(resolved.def, nullptr) << resolved.problems.at(0);
  const c10::Device cpu(c10::kCPU);
  RunRequest request;
  std::vector<at::Tensor> inputs =
      make_inputs(kase, *resolved.def, request, cpu);
  ASSERT_EQ(inputs.size(), 3u);
  EXPECT_EQ(inputs[2].unsafeGetTensorImpl(), inputs[0].unsafeGetTensorImpl());
  EXPECT_NE(inputs[1].unsafeGetTensorImpl(), inputs[0].unsafeGetTensorImpl());
  const OpCall call{inputs, kase.args, Backend::kCpu, cpu};
  const NamedOutputs outputs = resolved.def->run_named(call);
  ASSERT_EQ(outputs.tensors.size(), 1u);
  EXPECT_EQ(values_of(outputs.tensors[0]), (std::vector<float>{11, 22, 33}));
  // self itself holds the sum: the output returned is self.
  EXPECT_EQ(values_of(inputs[0]), (std::vector<float>{11, 22, 33}));
  EXPECT_EQ(outputs.tensors[0].unsafeGetTensorImpl(),
            inputs[0].unsafeGetTensorImpl());

  // The cpu64 reference: the alias follows its target, cast and made
  // contiguous.
  request.kind = JobKind::kReferenceCpu64;
  const std::vector<at::Tensor> wide =
      make_inputs(kase, *resolved.def, request, cpu);
  EXPECT_EQ(wide[0].scalar_type(), at::kDouble);
  EXPECT_EQ(wide[2].unsafeGetTensorImpl(), wide[0].unsafeGetTensorImpl());
}

TEST(SameAsChild, ARealRunOnTheCpuChecksTheValuesTheAliasGave) {
  const CaseVerdict add = run_one_case("add_out", kAddOutIsSelf);
  EXPECT_EQ(add.verdict, Verdict::kPass) << verdict_text(add);
  // One tensor: PyTorch's overlap check refuses it, as the case expects.
  const CaseVerdict aliased =
      run_one_case("aliased", index_select_with("{same_as: self}"));
  EXPECT_EQ(aliased.verdict, Verdict::kPass) << verdict_text(aliased);
  // A tensor of its own with self's values: nothing overlaps.
  const CaseVerdict copied = run_one_case(
      "copied", index_select_with("{dtype: float32, values: [1, 2, 3]}"));
  EXPECT_EQ(copied.verdict, Verdict::kFail) << verdict_text(copied);
}

// One tensor passed twice is one leaf: its gradient sums both uses (2x of
// x * x), analytic and by finite differences alike.
TEST(SameAsChild, TheGradientOfOneTensorPassedTwiceSumsBothUses) {
  const CaseVerdict squared = run_one_case(
      "squared",
      "casebook: 1\nsummary: x * x\nop: aten::mul.Tensor\n"
      "inputs:\n  self: {dtype: float64, values: [1, 2, 3]}\n"
      "  other: {same_as: self}\n"
      "grad: {check: finite_differences}\n"
      "outputs:\n  grad.self: {dtype: float64, values: [2, 4, 6]}\n");
  EXPECT_EQ(squared.verdict, Verdict::kPass) << verdict_text(squared);
}

// `casebook check` reads a fixture or makes a layout as a run does: an
// alias is its target's tensor, so a problem of it is told once, the
// target's.
TEST(SameAsChild, CheckTellsTheTargetsProblemOnce) {
  testing_support::TempFolder folder;
  const std::filesystem::path file = folder.path() / "x.yaml";
  testing_support::write_file(
      file,
      "casebook: 1\nsummary: s\nop: aten::add.out\ninputs:\n"
      "  self: {dtype: float32, shape: [2], values: [1, 2], layout: {stride: "
      "[0]}}\n"
      "  other: {dtype: float32, values: [1, 2]}\n"
      "  out: {same_as: self}\n");
  const testing_support::CommandResult checked =
      testing_support::run_casebook("check '" + file.string() + "'");
  EXPECT_NE(checked.status, 0) << checked.output;
  const std::string& said = checked.output;
  size_t times = 0;
  for (size_t at = said.find("hold one value"); at != std::string::npos;
       at = said.find("hold one value", at + 1)) {
    ++times;
  }
  EXPECT_EQ(times, 1u) << said;
  EXPECT_NE(said.find("input `self`"), std::string::npos) << said;
}

}  // namespace
}  // namespace casebook
