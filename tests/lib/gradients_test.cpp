// `grad` (child/gradients.h): gradients appended as outputs `grad.<input>`
// with the values autograd gives, grad_outputs fed to named outputs, and the
// finite-differences check catching a wrong gradient.
#include "child/gradients.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "casebook/loader.h"
#include "casebook/op_catalog.h"
#include "child/execute.h"

namespace casebook {
namespace {

TensorSpec spec_named(const std::string& name) {
  TensorSpec spec;
  spec.name = name;
  spec.where = {"cases/g.yaml", 5, 3};
  return spec;
}

Case mul_case(std::vector<std::string> wrt) {
  Case kase;
  kase.op = "torch.mul";
  kase.op_where = {"cases/g.yaml", 3, 5};
  kase.inputs = {spec_named("input"), spec_named("other")};
  kase.grad = GradSpec{};
  kase.grad->wrt = std::move(wrt);
  kase.grad->finite_differences = true;
  kase.grad->where = {"cases/g.yaml", 8, 1};
  return kase;
}

NamedOutputs forward_and_backward(const Case& kase, const OpDef& op,
                                  std::vector<at::Tensor>* inputs) {
  require_gradients(kase, inputs);
  const OpCall call{*inputs, kase.args, Backend::kCpu, c10::Device(c10::kCPU)};
  NamedOutputs outputs =
      op.run_named ? op.run_named(call) : NamedOutputs{op.run(call), {""}};
  append_gradients(kase, *inputs, c10::Device(c10::kCPU), &outputs);
  return outputs;
}

TEST(Gradients, AppendedAsNamedOutputsWithAutogradsValues) {
  const Case kase = mul_case({"input", "other"});
  const ResolvedOp resolved = resolve_op(kase, default_registry());
  ASSERT_NE(resolved.def, nullptr) << resolved.problems.at(0);
  const at::Tensor x = at::tensor({1.0, -2.0, 3.0}, at::kDouble);
  const at::Tensor y = at::tensor({4.0, 5.0, -6.0}, at::kDouble);
  std::vector<at::Tensor> inputs{x, y};
  const NamedOutputs outputs =
      forward_and_backward(kase, *resolved.def, &inputs);
  ASSERT_EQ(outputs.tensors.size(), 3u);
  EXPECT_EQ(outputs.names,
            (std::vector<std::string>{"", "grad.input", "grad.other"}));
  EXPECT_TRUE(at::equal(outputs.tensors[0], x * y));
  EXPECT_FALSE(outputs.tensors[0].requires_grad());
  EXPECT_TRUE(at::equal(outputs.tensors[1], y));  // d(x*y)/dx fed ones
  EXPECT_TRUE(at::equal(outputs.tensors[2], x));
  EXPECT_NO_THROW(check_finite_differences(kase, *resolved.def, inputs));
}

TEST(Gradients, GradOutputsFeedTheOutputTheyName) {
  Case kase = mul_case({"input"});
  TensorSpec feed = spec_named("0");
  feed.dtype = DType::kFloat64;
  feed.shape = {3};
  feed.float_values = {1, 10, 100};
  kase.grad->grad_outputs.push_back(feed);
  const ResolvedOp resolved = resolve_op(kase, default_registry());
  ASSERT_NE(resolved.def, nullptr);
  std::vector<at::Tensor> inputs{at::tensor({1.0, 1.0, 1.0}, at::kDouble),
                                 at::tensor({2.0, 3.0, 4.0}, at::kDouble)};
  const NamedOutputs outputs =
      forward_and_backward(kase, *resolved.def, &inputs);
  ASSERT_EQ(outputs.tensors.size(), 2u);
  EXPECT_TRUE(at::equal(outputs.tensors[1],
                        at::tensor({2.0, 30.0, 400.0}, at::kDouble)));
}

TEST(Gradients, FiniteDifferencesCatchAWrongGradient) {
  // Its value is 2x, its gradient 1: the analytic gradient is wrong.
  OpDef wrong;
  wrong.name = "testing.wrong_gradient";
  wrong.run = [](const OpCall& call) {
    const at::Tensor& x = call.inputs[0];
    return std::vector<at::Tensor>{x.detach() * 2 + x - x.detach()};
  };
  Case kase = mul_case({"input"});
  kase.inputs = {spec_named("input")};
  const std::vector<at::Tensor> inputs{at::tensor({0.5, 1.5}, at::kFloat)};
  try {
    check_finite_differences(kase, wrong, inputs);
    ADD_FAILURE() << "the wrong gradient passed";
  } catch (const OpError& error) {
    EXPECT_EQ(error.family(), Family::kMismatch);
    EXPECT_NE(std::string(error.what())
                  .find("grad.input: the analytic gradient disagrees with "
                        "finite differences at flat index 0: analytic 1, "
                        "numerical 2"),
              std::string::npos)
        << error.what();
  }
  const std::vector<at::Tensor> large{at::zeros({3000}, at::kFloat)};
  EXPECT_THROW(check_finite_differences(kase, wrong, large), InvalidCaseError);
}

}  // namespace
}  // namespace casebook

namespace casebook {
namespace {

// execute_request, as a child runs it: the report's outputs carry the
// schema's return names and `grad.<input>`, in that order.
TEST(Gradients, ReportedOutputsCarryReturnAndGradientNames) {
  const LoadedCase loaded = load_case_text(R"(casebook: 1
summary: topk with a gradient
op: torch.topk
args: {k: 2}
inputs:
  input: {dtype: float64, values: [3.0, 1.0, 2.0, 5.0]}
grad: {wrt: [input]}
)",
                                           "cases/topk.yaml");
  ASSERT_TRUE(loaded.ok());
  const ResolvedOp resolved = resolve_op(*loaded.value, default_registry());
  ASSERT_NE(resolved.def, nullptr);
  CaseTable table;
  table.cases.push_back(&*loaded.value);
  table.ops.push_back(resolved.def);
  char folder[] = "/tmp/casebook-grad-XXXXXX";
  ASSERT_NE(mkdtemp(folder), nullptr);
  RunRequest request;
  request.output_dir = folder;
  const ChildReport report =
      execute_request(table, request, open_backend_runtime(Backend::kCpu));
  ASSERT_EQ(report.status, ChildReport::Status::kOutputs) << report.message;
  std::vector<std::string> names;
  for (const TensorFile& file : report.outputs) names.push_back(file.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"values", "indices", "grad.input"}));
  ASSERT_EQ(report.outputs.size(), 3u);
  EXPECT_TRUE(at::equal(map_tensor_file(report.outputs[2]),
                        at::tensor({1.0, 0.0, 0.0, 1.0}, at::kDouble)));
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace casebook
