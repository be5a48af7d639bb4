// The op registry, OpCall's argument access, the case/op signature check,
// and every torch.* and validate.* op against values computed here by hand.
#include "casebook/ops.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/version.h>

#include <cmath>

#include "arg_values.h"
#include "casebook/op_catalog.h"

namespace casebook {
namespace {

using testing_support::bool_arg;
using testing_support::float_arg;
using testing_support::int_arg;
using testing_support::list_arg;
using testing_support::string_arg;
using OpsArgs = std::map<std::string, ArgValue>;

std::vector<at::Tensor> ops_run(const std::string& op,
                                const std::vector<at::Tensor>& inputs,
                                const OpsArgs& args = {}) {
  const OpDef* def = default_registry().find(op);
  if (def == nullptr) throw std::logic_error("no op " + op);
  const OpCall call{inputs, args, Backend::kCpu, c10::Device(c10::kCPU)};
  return def->run(call);
}

// A dispatcher op (no registered OpDef), its inputs given by name.
using OpsNamed = std::vector<std::pair<std::string, at::Tensor>>;
std::vector<at::Tensor> run_aten(const std::string& op, const OpsNamed& inputs,
                                 const OpsArgs& args = {}) {
  Case kase;
  kase.op = op;
  kase.op_where = {"cases/test.yaml", 3, 5};
  kase.args = args;
  std::vector<at::Tensor> tensors;
  for (const auto& [name, tensor] : inputs) {
    TensorSpec spec;
    spec.name = name;
    kase.inputs.push_back(spec);
    tensors.push_back(tensor);
  }
  const ResolvedOp resolved = resolve_op(kase, default_registry());
  if (resolved.def == nullptr) throw InvalidCaseError(resolved.problems.at(0));
  const OpCall call{tensors, args, Backend::kCpu, c10::Device(c10::kCPU)};
  return resolved.def->run(call);
}

template <typename Error>
std::string ops_error_of(const std::string& op,
                         const std::vector<at::Tensor>& inputs,
                         const OpsArgs& args) {
  try {
    ops_run(op, inputs, args);
  } catch (const Error& error) {
    return error.what();
  }
  return "(no error)";
}

at::Tensor doubles(std::vector<double> values, std::vector<int64_t> shape) {
  return at::tensor(values, at::kDouble).reshape(shape);
}

// -log softmax(row)[target], by hand.
double row_loss(const std::vector<double>& row, int64_t target) {
  double total = 0;
  for (double x : row) total += std::exp(x);
  return std::log(total) - row[target];
}

const std::vector<std::vector<double>> kLogits = {
    {1, 2, 3}, {1, 1, 1}, {0, -1, 2}};

at::Tensor logits() { return doubles({1, 2, 3, 1, 1, 1, 0, -1, 2}, {3, 3}); }

TEST(TorchOps, CrossEntropyReductionsIgnoreIndexAndWeight) {
  const at::Tensor target = at::tensor({2, 0, 1}, at::kLong);
  const double l0 = row_loss(kLogits[0], 2), l1 = row_loss(kLogits[1], 0),
               l2 = row_loss(kLogits[2], 1);
  EXPECT_NEAR(
      ops_run("torch.cross_entropy", {logits(), target})[0].item<double>(),
      (l0 + l1 + l2) / 3, 1e-12);
  EXPECT_NEAR(ops_run("torch.cross_entropy", {logits(), target},
                      {{"reduction", string_arg("sum")}})[0]
                  .item<double>(),
              l0 + l1 + l2, 1e-12);
  const at::Tensor none = ops_run("torch.cross_entropy", {logits(), target},
                                  {{"reduction", string_arg("none")}})[0];
  EXPECT_NEAR(none[2].item<double>(), l2, 1e-12);
  const at::Tensor ignored = at::tensor({2, 7, 1}, at::kLong);
  EXPECT_NEAR(ops_run("torch.cross_entropy", {logits(), ignored},
                      {{"ignore_index", int_arg(7)}})[0]
                  .item<double>(),
              (l0 + l2) / 2, 1e-12);
}

TEST(TorchOps, CrossEntropyWeightAndLabelSmoothing) {
  const at::Tensor target = at::tensor({2, 0, -100}, at::kLong);
  const double l0 = row_loss(kLogits[0], 2), l1 = row_loss(kLogits[1], 0);
  const at::Tensor weight = doubles({0.5, 1, 2}, {3});
  EXPECT_NEAR(ops_run("torch.cross_entropy", {logits(), target, weight})[0]
                  .item<double>(),
              (2 * l0 + 0.5 * l1) / 2.5, 1e-12);
  // (1 - e) * nll + e * mean over classes of -log p, over the kept rows.
  double smooth = 0;
  for (int row = 0; row < 2; ++row) {
    double uniform = 0;
    for (int c = 0; c < 3; ++c) uniform += row_loss(kLogits[row], c) / 3;
    smooth += 0.9 * row_loss(kLogits[row], row == 0 ? 2 : 0) + 0.1 * uniform;
  }
  EXPECT_NEAR(ops_run("torch.cross_entropy", {logits(), target},
                      {{"label_smoothing", float_arg(0.1)}})[0]
                  .item<double>(),
              smooth / 2, 1e-12);
}

TEST(TorchOps, NllLossPicksMinusTheTargetEntry) {
  const at::Tensor target = at::tensor({1, 2, 0}, at::kLong);
  EXPECT_NEAR(ops_run("torch.nll_loss", {logits(), target},
                      {{"reduction", string_arg("sum")}})[0]
                  .item<double>(),
              -(2 + 1 + 0), 1e-12);
}

TEST(TorchOps, SoftmaxAndLogSoftmaxWithDtype) {
  const at::Tensor input = logits().to(at::kFloat);
  const at::Tensor soft =
      run_aten("torch.softmax", {{"input", input}},
               {{"dim", int_arg(1)}, {"dtype", string_arg("float64")}})[0];
  EXPECT_EQ(soft.scalar_type(), at::kDouble);
  const double total = std::exp(1) + std::exp(2) + std::exp(3);
  EXPECT_NEAR(soft[0][2].item<double>(), std::exp(3) / total, 1e-7);
  const at::Tensor log_soft = run_aten(
      "torch.log_softmax", {{"input", logits()}}, {{"dim", int_arg(0)}})[0];
  EXPECT_NEAR(log_soft[2][2].item<double>(),
              2 - std::log(std::exp(3) + std::exp(1) + std::exp(2)), 1e-12);
  try {
    run_aten("torch.softmax", {{"input", input}});
    ADD_FAILURE() << "softmax without dim ran";
  } catch (const InvalidCaseError& error) {
    EXPECT_NE(std::string(error.what())
                  .find("the required argument `dim` (int) is missing"),
              std::string::npos)
        << error.what();
  }
}

TEST(TorchOps, EmbeddingIndexSelectAndGatherPickRows) {
  const at::Tensor table = doubles({0, 1, 10, 11, 20, 21, 30, 31}, {4, 2});
  const at::Tensor rows =
      ops_run("torch.embedding", {table, at::tensor({3, 0}, at::kLong)},
              {{"padding_idx", int_arg(-1)}})[0];
  EXPECT_TRUE(at::equal(rows, doubles({30, 31, 0, 1}, {2, 2})));
  EXPECT_NE(ops_error_of<OpError>("torch.embedding",
                                  {table, at::tensor({0}, at::kLong)},
                                  {{"padding_idx", int_arg(4)}})
                .find("padding_idx 4 must be within num_embeddings (4)"),
            std::string::npos);
  const at::Tensor columns =
      run_aten("torch.index_select",
               {{"input", table}, {"index", at::tensor({1}, at::kLong)}},
               {{"dim", int_arg(1)}})[0];
  EXPECT_TRUE(at::equal(columns, doubles({1, 11, 21, 31}, {4, 1})));
  const at::Tensor gathered =
      run_aten("torch.gather",
               {{"input", table},
                {"index", at::tensor({1, 0, 0, 1}, at::kLong).view({4, 1})}},
               {{"dim", int_arg(1)}})[0];
  EXPECT_TRUE(at::equal(gathered, doubles({1, 10, 20, 31}, {4, 1})));
}

TEST(TorchOps, SumOverAllOneOrSeveralDims) {
  const at::Tensor input = at::arange(6, at::kInt).reshape({2, 3});
  const at::Tensor all = ops_run("torch.sum", {input})[0];
  EXPECT_EQ(all.item<int64_t>(), 15);
  EXPECT_EQ(all.scalar_type(), at::kLong);  // integers sum to int64
  const at::Tensor rows = ops_run("torch.sum", {input},
                                  {{"dim", int_arg(1)},
                                   {"keepdim", bool_arg(true)},
                                   {"dtype", string_arg("float32")}})[0];
  EXPECT_EQ(rows.scalar_type(), at::kFloat);
  EXPECT_TRUE(at::equal(rows, at::tensor({3.0f, 12.0f}).view({2, 1})));
  EXPECT_EQ(ops_run("torch.sum", {input}, {{"dim", list_arg({0, 1})}})[0]
                .item<int64_t>(),
            15);
  EXPECT_EQ(
      ops_run("torch.sum", {input}, {{"keepdim", bool_arg(true)}})[0].sizes(),
      c10::IntArrayRef({1, 1}));
  EXPECT_EQ(
      ops_error_of<InvalidCaseError>("torch.sum", {input},
                                     {{"dtype", string_arg("float")}}),
      "cases/test.yaml:4:9: argument `dtype`: expected one of bool, uint8, "
      "int8, int16, int32, int64, float16, bfloat16, float32, float64, "
      "got `float`; did you mean `float32`?");
}

TEST(TorchOps, MatmulAndLayerNorm) {
  const at::Tensor a = doubles({1, 2, 3, 4, 5, 6}, {2, 3});
  const at::Tensor b = doubles({1, 0, 0, 1, 1, 1}, {3, 2});
  EXPECT_TRUE(
      at::equal(run_aten("torch.matmul", {{"input", a}, {"other", b}})[0],
                doubles({4, 5, 10, 11}, {2, 2})));
  // Row [1, 2, 3]: mean 2, biased variance 2/3.
  const double scale = 1 / std::sqrt(2.0 / 3 + 1e-5);
  const at::Tensor normed = run_aten("torch.layer_norm",
                                     {{"input", a},
                                      {"weight", doubles({1, 2, 3}, {3})},
                                      {"bias", doubles({0, 0, 1}, {3})}},
                                     {{"normalized_shape", list_arg({3})}})[0];
  EXPECT_NEAR(normed[0][0].item<double>(), -scale, 1e-12);
  EXPECT_NEAR(normed[1][2].item<double>(), 3 * scale + 1, 1e-12);
  try {
    run_aten("torch.layer_norm", {{"input", a}});
    ADD_FAILURE() << "layer_norm without normalized_shape ran";
  } catch (const InvalidCaseError& error) {
    EXPECT_NE(std::string(error.what())
                  .find("the required argument `normalized_shape`"),
              std::string::npos)
        << error.what();
  }
}

TEST(OpCallArgs, WrongKindNamesTheArgumentAndWhereItWasWritten) {
  EXPECT_EQ(
      ops_error_of<InvalidCaseError>(
          "torch.nll_loss", {logits(), at::tensor({0, 0, 0}, at::kLong)},
          {{"ignore_index", string_arg("one")}}),
      "cases/test.yaml:4:9: argument `ignore_index`: expected an integer, "
      "got the string `one`");
  EXPECT_NE(
      ops_error_of<InvalidCaseError>(
          "torch.cross_entropy", {logits(), at::tensor({0, 0, 0}, at::kLong)},
          {{"reduction", string_arg("avg")}})
          .find("expected mean, sum or none, got `avg`"),
      std::string::npos);
}

OpError op_error_of(const std::vector<int64_t>& targets, const OpsArgs& args) {
  try {
    ops_run("validate.class_targets", {at::tensor(targets, at::kLong)}, args);
  } catch (const OpError& error) {
    return error;
  }
  return OpError(Family::kNone, "(no error)");
}

TEST(ValidateClassTargets, RejectsTheOutOfRangeLabelWithItsPosition) {
  const OpError error = op_error_of({0, 2, 4}, {{"num_classes", int_arg(4)}});
  EXPECT_EQ(error.family(), Family::kIndexOutOfRange);
  EXPECT_STREQ(error.what(), "class index 4 at position 2 is outside [0, 4)");
  EXPECT_EQ(error.positions(), std::vector<int64_t>{2});
  const OpError several =
      op_error_of({-1, 2, 9}, {{"num_classes", int_arg(4)}});
  EXPECT_STREQ(several.what(),
               "class indices -1 at position 0, 9 at position 2 are outside "
               "[0, 4)");
  EXPECT_EQ(several.positions(), (std::vector<int64_t>{0, 2}));
}

TEST(ValidateClassTargets, AcceptsValidLabelsAndReturnsThemUnchanged) {
  const at::Tensor target = at::tensor({0, 2, 3, -100}, at::kLong);
  const std::vector<at::Tensor> outputs = ops_run(
      "validate.class_targets", {target}, {{"num_classes", int_arg(4)}});
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_TRUE(at::equal(outputs[0], target));
}

TEST(ValidateClassTargets, ContractErrors) {
  const OpError ignored =
      op_error_of({-100, -100}, {{"num_classes", int_arg(4)}});
  EXPECT_EQ(ignored.family(), Family::kContract);
  EXPECT_STREQ(ignored.what(), "no usable target in this batch");
  const OpError custom = op_error_of(
      {5, 5}, {{"num_classes", int_arg(4)}, {"ignore_index", int_arg(5)}});
  EXPECT_EQ(custom.family(), Family::kContract);
  try {
    ops_run("validate.class_targets", {at::zeros({2, 2}, at::kInt)},
            {{"num_classes", int_arg(4)}});
    ADD_FAILURE() << "a 2-D int32 target was accepted";
  } catch (const OpError& error) {
    EXPECT_EQ(error.family(), Family::kContract);
    EXPECT_NE(std::string(error.what()).find("1-D int64"), std::string::npos);
  }
  EXPECT_NE(ops_error_of<InvalidCaseError>("validate.class_targets",
                                           {at::tensor({0}, at::kLong)}, {})
                .find("needs the argument `num_classes`"),
            std::string::npos);
  EXPECT_EQ(default_registry().find("validate.class_targets")->placement,
            OpDef::Placement::kHost);
}

TEST(Registry, DuplicateNameNamesBothPlaces) {
  OpRegistry registry;
  OpDef first;
  first.name = "kernels.sum";
  first.file = "some/folder/a.cpp";
  first.line = 10;
  OpDef second = first;
  second.file = "b.cpp";
  second.line = 20;
  registry.add(first);
  try {
    registry.add(second);
    ADD_FAILURE() << "a duplicate was accepted";
  } catch (const std::logic_error& error) {
    EXPECT_STREQ(error.what(),
                 "kernels.sum registered twice: first at a.cpp:10, again at "
                 "b.cpp:20");
  }
}

TEST(Registry, NearestNamesAndEveryTorchOp) {
  const OpRegistry& registry = default_registry();
  const std::vector<std::string> nearest =
      registry.nearest("torch.cross_entropi");
  ASSERT_GE(nearest.size(), 1u);
  EXPECT_EQ(nearest[0], "torch.cross_entropy");
  // Only names within max(2, length / 3) edits: nothing far-fetched.
  EXPECT_TRUE(registry.nearest("torch.scale_grad_by_freq").empty());
  EXPECT_EQ(registry.nearest("torch.nll_los")[0], "torch.nll_loss");
  // The hand-written torch ops: those the schema cannot express
  // (torch_ops.cpp says why); every other torch.<name> is a dispatcher op.
  for (const char* name : {"torch.cross_entropy", "torch.nll_loss",
                           "torch.embedding", "torch.sum"}) {
    const OpDef* def = registry.find(name);
    ASSERT_NE(def, nullptr) << name;
    EXPECT_EQ(def->placement, OpDef::Placement::kBackendDevice) << name;
  }
  EXPECT_EQ(&registry, &default_registry());
}

Case ops_case_of(const std::string& op, size_t inputs, const OpsArgs& args) {
  Case kase;
  kase.op = op;
  kase.op_where = {"cases/c.yaml", 3, 5};
  kase.args = args;
  for (size_t i = 0; i < inputs; ++i) {
    TensorSpec spec;
    spec.name = "t" + std::to_string(i);
    spec.where = {"cases/c.yaml", static_cast<int>(6 + i), 3};
    kase.inputs.push_back(spec);
  }
  return kase;
}

TEST(CheckCaseAgainstOp, UnknownOpWrongInputCountAndUnknownArgument) {
  const OpRegistry& registry = default_registry();
  const auto unknown = check_case_against_op(
      ops_case_of("torch.cross_entropi", 2, {}), registry);
  ASSERT_EQ(unknown.size(), 1u);
  EXPECT_EQ(unknown[0].rfind("cases/c.yaml:3:5: unknown op "
                             "`torch.cross_entropi`: LibTorch " TORCH_VERSION
                             " (the one that ran) has no operator "
                             "`aten::cross_entropi`; nearest known: "
                             "torch.cross_entropy, ",
                             0),
            0u)
      << unknown[0];
  const auto too_many = check_case_against_op(
      ops_case_of("torch.cross_entropy", 4, {}), registry);
  ASSERT_EQ(too_many.size(), 1u);
  EXPECT_EQ(too_many[0],
            "cases/c.yaml:9:3: `torch.cross_entropy` takes 2 to 3 inputs "
            "(input, target[, weight]), the case gives 4 (t0, t1, t2, t3)");
  const auto misspelt = check_case_against_op(
      ops_case_of("torch.cross_entropy", 2, {{"ignore_indx", int_arg(-1)}}),
      registry);
  ASSERT_EQ(misspelt.size(), 1u);
  EXPECT_EQ(misspelt[0],
            "cases/test.yaml:4:9: `torch.cross_entropy` has no argument "
            "`ignore_indx`; did you mean `ignore_index`? (it takes "
            "ignore_index, reduction, label_smoothing)");
  // A name far from every argument gets no suggestion (it once got
  // "nearest known: max_norm" for `scale_grad_by_freq`).
  const auto far =
      check_case_against_op(ops_case_of("torch.cross_entropy", 2,
                                        {{"scale_grad_by_freq", int_arg(1)}}),
                            registry);
  ASSERT_EQ(far.size(), 1u);
  EXPECT_EQ(far[0].find("did you mean"), std::string::npos) << far[0];
  EXPECT_TRUE(
      check_case_against_op(ops_case_of("torch.cross_entropy", 2,
                                        {{"ignore_index", int_arg(-1)}}),
                            registry)
          .empty());
}

}  // namespace
}  // namespace casebook
