// torch.* ops: LibTorch operations with the arguments and defaults of their
// Python documentation (torch.nn.functional.cross_entropy, torch.sum, ...).
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

std::vector<at::Tensor> softmax(const OpCall& call) {
  return {at::softmax(call.input(0), required_int(call, "torch.softmax", "dim"),
                      arg_scalar_type(call, "dtype"))};
}

std::vector<at::Tensor> log_softmax(const OpCall& call) {
  return {at::log_softmax(call.input(0),
                          required_int(call, "torch.log_softmax", "dim"),
                          arg_scalar_type(call, "dtype"))};
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

std::vector<at::Tensor> index_select(const OpCall& call) {
  return {at::index_select(call.input(0),
                           required_int(call, "torch.index_select", "dim"),
                           call.input(1))};
}

std::vector<at::Tensor> gather(const OpCall& call) {
  return {at::gather(call.input(0), required_int(call, "torch.gather", "dim"),
                     call.input(1))};
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

std::vector<at::Tensor> matmul(const OpCall& call) {
  return {at::matmul(call.input(0), call.input(1))};
}

std::vector<at::Tensor> layer_norm(const OpCall& call) {
  const std::vector<int64_t> normalized_shape =
      required_int_list(call, "torch.layer_norm", "normalized_shape");
  return {at::layer_norm(call.input(0), normalized_shape,
                         optional_input(call, 1), optional_input(call, 2),
                         call.arg_double("eps", 1e-5))};
}

}  // namespace

void register_torch_ops(OpRegistry& registry) {
  registry.add(make_op(
      CASEBOOK_OP_SITE, "torch.cross_entropy", {"input", "target"}, {"weight"},
      {"ignore_index", "reduction", "label_smoothing"}, cross_entropy));
  registry.add(make_op(CASEBOOK_OP_SITE, "torch.nll_loss", {"input", "target"},
                       {"weight"}, {"ignore_index", "reduction"}, nll_loss));
  registry.add(make_op(CASEBOOK_OP_SITE, "torch.softmax", {"input"}, {},
                       {"dim", "dtype"}, softmax));
  registry.add(make_op(CASEBOOK_OP_SITE, "torch.log_softmax", {"input"}, {},
                       {"dim", "dtype"}, log_softmax));
  registry.add(make_op(CASEBOOK_OP_SITE, "torch.embedding",
                       {"weight", "indices"}, {}, {"padding_idx", "max_norm"},
                       embedding));
  registry.add(make_op(CASEBOOK_OP_SITE, "torch.index_select",
                       {"input", "index"}, {}, {"dim"}, index_select));
  registry.add(make_op(CASEBOOK_OP_SITE, "torch.gather", {"input", "index"}, {},
                       {"dim"}, gather));
  registry.add(make_op(CASEBOOK_OP_SITE, "torch.sum", {"input"}, {},
                       {"dim", "keepdim", "dtype"}, sum));
  registry.add(make_op(CASEBOOK_OP_SITE, "torch.matmul", {"input", "other"}, {},
                       {}, matmul));
  registry.add(make_op(CASEBOOK_OP_SITE, "torch.layer_norm", {"input"},
                       {"weight", "bias"}, {"normalized_shape", "eps"},
                       layer_norm));
}

}  // namespace casebook
