// Any ATen operator through the dispatcher (ops/aten_op.cpp): binding by
// schema argument name, Python's overload choice, the errors, named outputs,
// in-place and out= variants. Results are checked against the same ATen
// function called directly.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <torch/version.h>

#include "arg_values.h"
#include "casebook/op_catalog.h"
#include "casebook/ops.h"

namespace casebook {
namespace {

using testing_support::arg_line;
using testing_support::int_arg;
using testing_support::list_arg;
using testing_support::string_arg;

using Args = std::map<std::string, ArgValue>;
using Named = std::vector<std::pair<std::string, at::Tensor>>;

Case case_of(const std::string& op, const Named& inputs, const Args& args) {
  Case kase;
  kase.op = op;
  kase.op_where = {"cases/test.yaml", 3, 5};
  kase.args = args;
  int line = 10;
  for (const auto& [name, tensor] : inputs) {
    TensorSpec spec;
    spec.name = name;
    spec.where = {"cases/test.yaml", line++, 3};
    kase.inputs.push_back(spec);
  }
  return kase;
}

std::string problem_of(const std::string& op, const Named& inputs,
                       const Args& args = {}) {
  const ResolvedOp resolved =
      resolve_op(case_of(op, inputs, args), default_registry());
  EXPECT_EQ(resolved.def, nullptr) << op;
  return resolved.problems.empty() ? "(no problem)" : resolved.problems[0];
}

NamedOutputs run(const std::string& op, const Named& inputs,
                 const Args& args = {}) {
  const ResolvedOp resolved =
      resolve_op(case_of(op, inputs, args), default_registry());
  if (resolved.def == nullptr) {
    ADD_FAILURE() << resolved.problems.at(0);
    return {};
  }
  EXPECT_TRUE(resolved.def->run_named) << op;
  std::vector<at::Tensor> tensors;
  for (const auto& [name, tensor] : inputs) tensors.push_back(tensor);
  const OpCall call{tensors, args, Backend::kCpu, c10::Device(c10::kCPU)};
  return resolved.def->run_named(call);
}

at::Tensor seeded(std::vector<int64_t> shape, uint64_t seed) {
  at::Generator generator = at::detail::createCPUGenerator(seed);
  return at::randn(shape, generator, at::kFloat);
}

TEST(AtenOps, OverloadChosenByArgumentTypeAsPythonDoes) {
  const at::Tensor input = seeded({1, 2, 5, 5}, 1);
  const at::Tensor weight = seeded({3, 2, 3, 3}, 2);
  // `padding: [1, 1]` is an int[2]: the default overload, not the str
  // padding of conv2d.padding.
  const NamedOutputs listed =
      run("torch.conv2d", {{"input", input}, {"weight", weight}},
          {{"padding", list_arg({1, 1})}});
  ASSERT_EQ(listed.tensors.size(), 1u);
  EXPECT_TRUE(at::allclose(listed.tensors[0],
                           at::conv2d(input, weight, {}, 1, {1, 1})));
  const NamedOutputs same =
      run("torch.conv2d", {{"input", input}, {"weight", weight}},
          {{"padding", string_arg("same")}});
  EXPECT_TRUE(
      at::allclose(same.tensors[0], at::conv2d(input, weight, {}, 1, "same")));
  // `padding: 1` fills int[2] as Python does.
  EXPECT_TRUE(
      at::allclose(run("torch.conv2d", {{"input", input}, {"weight", weight}},
                       {{"padding", int_arg(1)}})
                       .tensors[0],
                   listed.tensors[0]));
  // A number for `other` is add.Scalar; a tensor is add.Tensor.
  const at::Tensor x = seeded({4}, 3);
  EXPECT_TRUE(at::allclose(
      run("torch.add", {{"input", x}}, {{"other", int_arg(2)}}).tensors[0],
      x + 2));
  EXPECT_TRUE(at::allclose(
      run("aten::add.Tensor", {{"self", x}, {"other", x}}, {}).tensors[0],
      x * 2));
}

TEST(AtenOps, TensorListsDefaultsDevicesAndScalarTypes) {
  const at::Tensor a = seeded({2, 3}, 4);
  const at::Tensor b = seeded({1, 3}, 5);
  const NamedOutputs cat =
      run("torch.cat", {{"tensors[0]", a}, {"tensors[1]", b}});
  EXPECT_TRUE(at::equal(cat.tensors[0], at::cat({a, b})));
  // A factory op gets the backend's device and the schema's defaults.
  const at::Tensor range =
      run("torch.arange", {}, {{"end", int_arg(5)}}).tensors[0];
  EXPECT_TRUE(at::equal(range, at::arange(5)));
  EXPECT_EQ(run("torch.arange", {},
                {{"end", int_arg(5)}, {"dtype", string_arg("float64")}})
                .tensors[0]
                .scalar_type(),
            at::kDouble);
}

// Issue 51: a complex Scalar (`[real, imaginary]`, Python's 1j) and a
// Scalar[] (gradient's `spacing`), which a case could not state before.
TEST(AtenOps, ComplexScalarsAndScalarLists) {
  const at::Tensor self = at::zeros({3}, at::kComplexFloat);
  const at::Tensor mask = at::tensor({1, 0, 1}).to(at::kBool);
  const at::Tensor filled =
      run("aten::masked_fill.Scalar", {{"self", self}, {"mask", mask}},
          {{"value", list_arg({0, 1})}})
          .tensors[0];
  EXPECT_TRUE(at::equal(
      filled, at::masked_fill(self, mask, c10::complex<double>(0, 1))));
  const at::Tensor y = at::tensor({1.0F, 2.0F, 4.0F, 7.0F});
  ArgValue spacing = list_arg({});
  spacing.list = {testing_support::float_arg(0.1)};
  const NamedOutputs gradient =
      run("aten::gradient.scalarrayint", {{"self", y}},
          {{"spacing", spacing}, {"dim", int_arg(0)}});
  ASSERT_EQ(gradient.tensors.size(), 1u);
  // Central differences inside, one-sided at the ends, over a spacing of 0.1.
  EXPECT_TRUE(at::allclose(gradient.tensors[0],
                           at::tensor({10.0F, 15.0F, 25.0F, 30.0F})))
      << gradient.tensors[0];
  EXPECT_NE(
      problem_of("aten::masked_fill.Scalar", {{"self", self}, {"mask", mask}},
                 {{"value", list_arg({0, 1, 2})}})
          .find("expected a number, true/false, or [real, imaginary] "
                "for a complex (Scalar), got [0, 1, 2]"),
      std::string::npos);
}

// Issue 51: an empty Tensor[] is `args: {tensors: []}`; PyTorch then says
// what it says of cat([]), not casebook "a required input is missing".
TEST(AtenOps, AnEmptyTensorListIsGivenInArgs) {
  try {
    run("torch.cat", {}, {{"tensors", list_arg({})}});
    ADD_FAILURE() << "cat of no tensors ran";
  } catch (const c10::Error& error) {
    EXPECT_NE(std::string(error.what())
                  .find("expected a non-empty list of "
                        "Tensors"),
              std::string::npos)
        << error.what();
  }
  EXPECT_NE(problem_of("torch.cat", {}, {})
                .find("the required input `tensors` (Tensor[]) is missing"),
            std::string::npos);
  // An input named as the whole list (issue 51: aten::cat.out said the
  // required input `tensors` was missing although it was given).
  const at::Tensor one = at::ones({2});
  const std::string whole =
      problem_of("aten::cat.out", {{"tensors", one}, {"out", one}});
  EXPECT_NE(whole.find("`tensors` is a list of tensors (Tensor[]): name its "
                       "inputs tensors[0], tensors[1], ... (an empty list: "
                       "`args: {tensors: []}`)"),
            std::string::npos)
      << whole;
}

TEST(AtenOps, OutputsNamedBySchemaReturnNames) {
  const at::Tensor input = seeded({3, 5}, 6);
  const NamedOutputs top =
      run("torch.topk", {{"input", input}}, {{"k", int_arg(2)}});
  ASSERT_EQ(top.tensors.size(), 2u);
  EXPECT_EQ(top.names, (std::vector<std::string>{"values", "indices"}));
  const auto expected = at::topk(input, 2);
  EXPECT_TRUE(at::equal(top.tensors[0], std::get<0>(expected)));
  EXPECT_TRUE(at::equal(top.tensors[1], std::get<1>(expected)));
  // A list return: one output per element, `name[i]` where named.
  const NamedOutputs parts =
      run("torch.unbind", {{"input", input}}, {{"dim", int_arg(0)}});
  EXPECT_EQ(parts.tensors.size(), 3u);
}

TEST(AtenOps, InPlaceAndOutVariantsReturnTheTensorTheyWrote) {
  const at::Tensor x = seeded({4}, 7);
  const at::Tensor y = seeded({4}, 8);
  const at::Tensor self = x.clone();
  const NamedOutputs in_place =
      run("torch.add_", {{"self", self}, {"other", y}});
  ASSERT_EQ(in_place.tensors.size(), 1u);
  EXPECT_EQ(in_place.names[0], "self");
  EXPECT_EQ(in_place.tensors[0].unsafeGetTensorImpl(),
            self.unsafeGetTensorImpl());
  EXPECT_TRUE(at::allclose(self, x + y));
  // `out` is not an argument of add.Tensor: Python's choice is add.out.
  const at::Tensor out = at::zeros({4});
  const NamedOutputs written =
      run("torch.add", {{"input", x}, {"other", y}, {"out", out}},
          {{"alpha", int_arg(3)}});
  ASSERT_EQ(written.tensors.size(), 1u);
  EXPECT_EQ(written.names[0], "out");
  EXPECT_EQ(written.tensors[0].unsafeGetTensorImpl(),
            out.unsafeGetTensorImpl());
  EXPECT_TRUE(at::allclose(out, x + 3 * y));
}

TEST(AtenOps, ErrorsNameTheLocationTheSchemaAndTheNearestName) {
  const at::Tensor x = seeded({2, 2}, 9);
  // Unknown op: the LibTorch that ran, the nearest names.
  EXPECT_EQ(problem_of("torch.scatter_addd", {{"input", x}}),
            "cases/test.yaml:3:5: unknown op `torch.scatter_addd`: "
            "LibTorch " TORCH_VERSION
            " (the one that ran) has no operator `aten::scatter_addd`; "
            "nearest known: torch.scatter_add, torch.scatter_add_, "
            "torch.scatter_");
  // An overload that does not exist lists the ones that do.
  const std::string overload = problem_of("aten::softmax.nope", {{"self", x}});
  // (LibTorch 1.13 also lists aten::softmax.Dimname; 2.13 has no Dimname
  // overloads.)
  EXPECT_NE(overload.find("has no operator `aten::softmax.nope`; its "
                          "overloads:\n    "),
            std::string::npos)
      << overload;
  EXPECT_NE(overload.find("\n    aten::softmax.int(Tensor self, int dim, "
                          "ScalarType? dtype=None) -> Tensor\n"),
            std::string::npos)
      << overload;
  // A misspelt argument: at its location, with the nearest name and schema.
  const std::string misspelt = problem_of(
      "aten::softmax.int", {{"self", x}},
      {{"dim", int_arg(1)}, {"dtpye", string_arg("float32", arg_line(5))}});
  EXPECT_EQ(misspelt,
            "cases/test.yaml:5:9: `aten::softmax.int`: the schema does not "
            "accept the case:\n    aten::softmax.int(Tensor self, int dim, "
            "ScalarType? dtype=None) -> Tensor\n      no argument named "
            "`dtpye` (in `args`); did you mean `dtype`?");
  // A wrong type, and a missing required argument.
  EXPECT_NE(problem_of("aten::softmax.int", {{"self", x}},
                       {{"dim", string_arg("one")}})
                .find("`args.dim`: expected an integer (int), got `one`"),
            std::string::npos);
  // A number written 1.0 is said as written (before: "got 1", issue 51).
  EXPECT_NE(problem_of("aten::softmax.int", {{"self", x}},
                       {{"dim", testing_support::float_arg(1.0)}})
                .find("`args.dim`: expected an integer (int), got 1.0"),
            std::string::npos);
  EXPECT_NE(
      problem_of("torch.index_select", {{"input", x}}, {{"dim", int_arg(0)}})
          .find("the required input `index` (Tensor) is missing"),
      std::string::npos);
  // A tensor under args, a number under inputs.
  EXPECT_NE(problem_of("aten::softmax.int", {{"self", x}, {"dim", x}})
                .find("`dim` is a int, not a tensor: give it under `args`"),
            std::string::npos);
  // A schema type casebook cannot build from YAML is refused by its name
  // (set_'s Storage: in 1.13 and in 2.x alike).
  const std::string storage =
      problem_of("aten::set_.source_Storage", {{"self", x}},
                 {{"source", string_arg("rows")}});
  EXPECT_NE(storage.find("casebook cannot build the schema type `Storage`"),
            std::string::npos)
      << storage;
  // A Generator takes `{seed: N}` only.
  const std::string generator = problem_of("aten::bernoulli", {{"self", x}},
                                           {{"generator", string_arg("rows")}});
  EXPECT_NE(generator.find("expected `{seed: N}`, a generator seeded with N "
                           "(Generator?)"),
            std::string::npos)
      << generator;
}

TEST(AtenOps, RegisteredOpsWinAndTheLoaderSpellingsResolve) {
  const Case kase =
      case_of("torch.cross_entropy",
              {{"input", at::Tensor()}, {"target", at::Tensor()}}, {});
  const ResolvedOp resolved = resolve_op(kase, default_registry());
  EXPECT_EQ(resolved.def, default_registry().find("torch.cross_entropy"));
  EXPECT_EQ(resolved.generated, nullptr);
}

}  // namespace
}  // namespace casebook
