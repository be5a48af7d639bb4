// torch.* ops written by hand: those whose Python API the operator's schema
// cannot express, so that the dispatcher path (ops/aten_op.cpp), which runs
// every other torch.<name>, would read a case differently from PyTorch:
// - cross_entropy, nll_loss: `reduction: mean|sum|none` is a string in
//   Python and an int in the schema; F.cross_entropy is
//   aten::cross_entropy_loss, F.nll_loss is aten::nll_loss_nd.
// - embedding: F.embedding normalises a negative padding_idx, checks its
//   range and renormalises the weight for max_norm; aten::embedding does
//   neither.
// - sum: torch.sum(x, keepdim=True) without `dim` reduces every dim, which
//   LibTorch 1.13's sum.dim_IntList (int[1] dim, not optional) cannot say.
// Only ATen functions present in LibTorch 1.13 and 2.x are used.
#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

#include "casebook/ops.h"
#include "ops/op_declarations.h"
#include "ops/op_helpers.h"

namespace casebook {
namespace {

// The defaults of Python's APIs, which the ops apply and declare
// (OpDef::arg_defaults).
constexpr int64_t kIgnoreIndex = -100;
constexpr double kLabelSmoothing = 0.0;
constexpr double kNormType = 2.0;

ArgValue arg_value(ArgValue::Kind kind) {
  ArgValue value;
  value.kind = kind;
  return value;
}

ArgValue int_value(int64_t number) {
  ArgValue value = arg_value(ArgValue::Kind::kInt);
  value.int_value = number;
  return value;
}

ArgValue float_value(double number) {
  ArgValue value = arg_value(ArgValue::Kind::kFloat);
  value.float_value = number;
  return value;
}

ArgValue false_value() { return arg_value(ArgValue::Kind::kBool); }

c10::optional<at::Tensor> optional_input(const OpCall& call, size_t index) {
  if (!call.has_input(index)) return c10::nullopt;
  return call.input(index);
}

std::vector<at::Tensor> torch_cross_entropy(const OpCall& call) {
  return {at::cross_entropy_loss(
      call.input(0), call.input(1), optional_input(call, 2),
      arg_reduction(call), call.arg_int("ignore_index", kIgnoreIndex),
      call.arg_double("label_smoothing", kLabelSmoothing))};
}

std::vector<at::Tensor> torch_nll_loss(const OpCall& call) {
  return {at::nll_loss_nd(call.input(0), call.input(1), optional_input(call, 2),
                          arg_reduction(call),
                          call.arg_int("ignore_index", kIgnoreIndex))};
}

// torch.nn.functional.embedding(input, weight, padding_idx=None,
// max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False),
// with the weight first as in torch.embedding. padding_idx and
// scale_grad_by_freq change the gradient only, but padding_idx's range is
// checked as PyTorch checks it. max_norm renormalises the looked-up rows as
// F.embedding does (embedding_renorm_, without autograd), on a copy: Python
// changes the caller's weight in place, but the outputs are the same and
// every backend must see the same input. sparse=True only makes the
// weight's gradient a sparse tensor, which casebook cannot compare: refused.
std::vector<at::Tensor> torch_embedding(const OpCall& call) {
  const at::Tensor& weight = call.input(0);
  const at::Tensor& indices = call.input(1);
  CASEBOOK_CHECK_INPUT(!call.arg_bool("sparse", false),
                       call.arg_where("sparse"),
                       "argument `sparse: true` is not supported: it "
                       "makes the weight's gradient a sparse tensor, "
                       "which casebook does not compare (its values are "
                       "those of `sparse: false`)");
  int64_t padding_idx = -1;
  if (const auto given = call.arg_optional_int("padding_idx")) {
    const int64_t rows = weight.dim() > 0 ? weight.size(0) : 0;
    if (*given >= rows || *given < -rows) {
      throw OpError(Family::kContract, "padding_idx " + std::to_string(*given) +
                                           " must be within num_embeddings (" +
                                           std::to_string(rows) + ")");
    }
    padding_idx = *given < 0 ? *given + rows : *given;
  }
  at::Tensor table = weight;
  if (call.has_arg("max_norm") &&
      call.args.at("max_norm").kind != ArgValue::Kind::kNull) {
    const double max_norm = call.arg_double("max_norm", 0.0);
    const double norm_type = call.arg_double("norm_type", kNormType);
    table = weight.clone();
    at::NoGradGuard no_grad;
    at::embedding_renorm_(table, indices.contiguous(), max_norm, norm_type);
  }
  return {at::embedding(table, indices, padding_idx,
                        call.arg_bool("scale_grad_by_freq", false))};
}

// torch.sum(input, dim=None, keepdim=False, dtype=None); without `dim` it
// reduces every dim.
std::vector<at::Tensor> torch_sum(const OpCall& call) {
  const at::Tensor& input = call.input(0);
  const c10::optional<at::ScalarType> dtype = arg_scalar_type(call, "dtype");
  const bool keepdim = call.arg_bool("keepdim", false);
  if (!call.has_arg("dim")) {
    if (!keepdim) return {at::sum(input, dtype)};
    std::vector<int64_t> all(input.dim());
    for (int64_t d = 0; d < input.dim(); ++d) all[d] = d;
    return {at::sum(input, at::IntArrayRef(all), true, dtype)};
  }
  const std::vector<int64_t> dims = call.arg_int_list("dim", {});
  return {at::sum(input, at::IntArrayRef(dims), keepdim, dtype)};
}

}  // namespace

void register_torch_ops(OpRegistry& registry) {
  OpDef cross_entropy = make_op(
      CASEBOOK_OP_SITE, torch_cross_entropy_declaration(), {"input", "target"},
      {"weight"}, {"ignore_index", "reduction", "label_smoothing"},
      torch_cross_entropy);
  cross_entropy.arg_defaults["ignore_index"] = int_value(kIgnoreIndex);
  cross_entropy.arg_defaults["label_smoothing"] = float_value(kLabelSmoothing);
  registry.add(std::move(cross_entropy));
  OpDef nll_loss = make_op(CASEBOOK_OP_SITE, torch_nll_loss_declaration(),
                           {"input", "target"}, {"weight"},
                           {"ignore_index", "reduction"}, torch_nll_loss);
  nll_loss.arg_defaults["ignore_index"] = int_value(kIgnoreIndex);
  registry.add(std::move(nll_loss));
  OpDef embedding = make_op(
      CASEBOOK_OP_SITE, torch_embedding_declaration(), {"weight", "indices"},
      {},
      {"padding_idx", "max_norm", "norm_type", "scale_grad_by_freq", "sparse"},
      torch_embedding);
  embedding.arg_defaults = {{"padding_idx", arg_value(ArgValue::Kind::kNull)},
                            {"max_norm", arg_value(ArgValue::Kind::kNull)},
                            {"norm_type", float_value(kNormType)},
                            {"scale_grad_by_freq", false_value()},
                            {"sparse", false_value()}};
  registry.add(std::move(embedding));
  OpDef sum = make_op(CASEBOOK_OP_SITE, torch_sum_declaration(), {"input"}, {},
                      {"dim", "keepdim", "dtype"}, torch_sum);
  sum.arg_defaults = {{"keepdim", false_value()},
                      {"dtype", arg_value(ArgValue::Kind::kNull)}};
  registry.add(std::move(sum));
}

}  // namespace casebook
