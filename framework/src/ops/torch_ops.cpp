// torch.* ops written by hand: those whose Python API the operator's schema
// cannot express, so that the dispatcher path (ops/aten_op.cpp), which runs
// every other torch.<name>, would read a case differently from PyTorch:
// - cross_entropy, nll_loss: `reduction: mean|sum|none` is a string in
//   Python and an int in the schema; F.cross_entropy is
//   aten::cross_entropy_loss, F.nll_loss is aten::nll_loss_nd.
// - embedding: F.embedding normalises a negative padding_idx, checks its
//   range and renormalises the weight for max_norm (refused here: the
//   backends would not see the same input); aten::embedding does neither.
// - sum: torch.sum(x, keepdim=True) without `dim` reduces every dim, which
//   LibTorch 1.13's sum.dim_IntList (int[1] dim, not optional) cannot say.
// Only ATen functions present in LibTorch 1.13 and 2.x are used.
#include "casebook/ops.h"
#include "ops/op_helpers.h"

namespace casebook {
namespace {

c10::optional<at::Tensor> optional_input(const OpCall& call, size_t index) {
  if (!call.has_input(index)) return c10::nullopt;
  return call.input(index);
}

std::vector<at::Tensor> cross_entropy(const OpCall& call) {
  return {at::cross_entropy_loss(call.input(0), call.input(1),
                                 optional_input(call, 2), arg_reduction(call),
                                 call.arg_int("ignore_index", -100),
                                 call.arg_double("label_smoothing", 0.0))};
}

std::vector<at::Tensor> nll_loss(const OpCall& call) {
  return {at::nll_loss_nd(call.input(0), call.input(1), optional_input(call, 2),
                          arg_reduction(call),
                          call.arg_int("ignore_index", -100))};
}

// torch.nn.functional.embedding; padding_idx changes gradients only, but its
// range is checked as PyTorch checks it.
std::vector<at::Tensor> embedding(const OpCall& call) {
  const at::Tensor& weight = call.input(0);
  if (call.has_arg("max_norm")) {
    throw InvalidCaseError(arg_location(call, "max_norm") +
                           "argument `max_norm` is not supported: it "
                           "renormalises the weight in place, so the "
                           "backends would not see the same input");
  }
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
  return {at::embedding(weight, call.input(1), padding_idx)};
}

// torch.sum(input, dim=None, keepdim=False, dtype=None); without `dim` it
// reduces every dim.
std::vector<at::Tensor> sum(const OpCall& call) {
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
  registry.add(make_op(
      CASEBOOK_OP_SITE, "torch.cross_entropy", {"input", "target"}, {"weight"},
      {"ignore_index", "reduction", "label_smoothing"}, cross_entropy));
  registry.add(make_op(CASEBOOK_OP_SITE, "torch.nll_loss", {"input", "target"},
                       {"weight"}, {"ignore_index", "reduction"}, nll_loss));
  registry.add(make_op(CASEBOOK_OP_SITE, "torch.embedding",
                       {"weight", "indices"}, {}, {"padding_idx", "max_norm"},
                       embedding));
  registry.add(make_op(CASEBOOK_OP_SITE, "torch.sum", {"input"}, {},
                       {"dim", "keepdim", "dtype"}, sum));
}

}  // namespace casebook
