// torch.<name> as Python's function means it (issue 23): torch.stft is
// aten::stft.center (the signal padded by n_fft / 2), and casebook's own
// torch.embedding takes every argument torch.nn.functional.embedding takes.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "arg_values.h"
#include "casebook/op_catalog.h"
#include "casebook/ops.h"

namespace casebook {
namespace {

using testing_support::bool_arg;
using testing_support::float_arg;
using testing_support::int_arg;
using PythonFrontEndArgs = std::map<std::string, ArgValue>;

Case python_front_end_case_of(const std::string& op,
                              const std::vector<std::string>& inputs,
                              const PythonFrontEndArgs& args) {
  Case kase;
  kase.op = op;
  kase.op_where = {"cases/test.yaml", 3, 5};
  kase.args = args;
  for (const std::string& name : inputs) {
    TensorSpec spec;
    spec.name = name;
    kase.inputs.push_back(spec);
  }
  return kase;
}

std::vector<at::Tensor> python_front_end_run(
    const ResolvedOp& resolved, const std::vector<at::Tensor>& inputs,
    const PythonFrontEndArgs& args) {
  const OpCall call{inputs, args, Backend::kCpu, c10::Device(c10::kCPU)};
  return resolved.def->run(call);
}

TEST(PythonFrontEnd, StftBindsTheCenterOverloadAsPythonDoes) {
  const PythonFrontEndArgs args{{"n_fft", int_arg(4)},
                                {"hop_length", int_arg(2)},
                                {"return_complex", bool_arg(true)}};
  const ResolvedOp resolved =
      resolve_op(python_front_end_case_of("torch.stft", {"input"}, args),
                 default_registry());
  ASSERT_NE(resolved.def, nullptr) << resolved.problems.at(0);
  EXPECT_EQ(resolved.def->schema.rfind("aten::stft.center(", 0), 0u)
      << resolved.def->schema;
  const at::Tensor signal = at::arange(16, at::kFloat);
  const at::Tensor frames =
      python_front_end_run(resolved, {signal}, args).at(0);
  // torch.stft(torch.arange(16.), 4, 2, return_complex=True): padded by 2
  // on each side, 1 + 16 / 2 = 9 frames of 3 bins.
  EXPECT_EQ(frames.sizes(), at::IntArrayRef({3, 9}));
  const at::Tensor padded =
      at::reflection_pad1d(signal.view({1, 1, 16}), {2, 2}).view({20});
  EXPECT_TRUE(
      at::allclose(frames, at::stft(padded, 4, 2, c10::nullopt, c10::nullopt,
                                    false, c10::nullopt, true)));
  // An aten:: name is the operator as named: the default overload.
  const ResolvedOp plain =
      resolve_op(python_front_end_case_of("aten::stft", {"self"}, args),
                 default_registry());
  ASSERT_NE(plain.def, nullptr) << plain.problems.at(0);
  EXPECT_EQ(plain.def->schema.rfind("aten::stft(", 0), 0u) << plain.def->schema;
}

TEST(PythonFrontEnd, EmbeddingTakesEveryArgumentOfTheFunctionalForm) {
  const at::Tensor table =
      at::tensor({3.0, 4.0, 0.3, 0.4, 6.0, 8.0}, at::kDouble).view({3, 2});
  const at::Tensor ids = at::tensor({0, 2, 1}, at::kLong);
  const PythonFrontEndArgs args{{"padding_idx", int_arg(1)},
                                {"max_norm", float_arg(1.0)},
                                {"norm_type", float_arg(2.0)},
                                {"scale_grad_by_freq", bool_arg(true)},
                                {"sparse", bool_arg(false)}};
  const ResolvedOp resolved = resolve_op(
      python_front_end_case_of("torch.embedding", {"weight", "indices"}, args),
      default_registry());
  ASSERT_NE(resolved.def, nullptr) << resolved.problems.at(0);
  const at::Tensor rows =
      python_front_end_run(resolved, {table, ids}, args).at(0);
  // F.embedding(ids, table, max_norm=1.0): rows of norm 5 and 10 scaled to
  // norm 1 (embedding_renorm_'s 1e-7 guard), the row of norm 0.5 kept.
  const at::Tensor expected =
      at::tensor({0.6, 0.8, 0.6, 0.8, 0.3, 0.4}, at::kDouble).view({3, 2});
  EXPECT_TRUE(at::allclose(rows, expected, 1e-6, 1e-7)) << rows;
  // The case's input is not changed: every backend sees the same weight.
  EXPECT_EQ(table[0][0].item<double>(), 3.0);

  PythonFrontEndArgs sparse = args;
  sparse["sparse"] = bool_arg(true);
  try {
    python_front_end_run(resolved, {table, ids}, sparse);
    ADD_FAILURE() << "sparse: true was taken";
  } catch (const InvalidCaseError& error) {
    EXPECT_NE(std::string(error.what())
                  .find("argument `sparse: true` is not supported: it makes "
                        "the weight's gradient a sparse tensor"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace casebook
