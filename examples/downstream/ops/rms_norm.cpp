// kernels.rms_norm: this project's own kernel, a plain loop as a kernel's CPU
// reference would be, registered beside casebook's ops. Cases that say
// `reference: torch` compare it with LibTorch's way to compute the same.
#include <ATen/ATen.h>
#include <casebook/ops.h>

#include <cmath>
#include <string>
#include <vector>

namespace {

// y[r, c] = x[r, c] / sqrt(mean_c(x[r, :]^2) + eps), float32 rows.
std::vector<at::Tensor> rms_norm(const casebook::OpCall& call) {
  const at::Tensor& given = call.input(0);
  if (given.scalar_type() != at::kFloat || given.dim() != 2) {
    throw casebook::OpError(
        casebook::Family::kContract,
        "kernels.rms_norm: expected a 2-D float32 input, got " +
            std::to_string(given.dim()) + "-D " +
            std::string(c10::toString(given.scalar_type())));
  }
  const double eps = call.arg_double("eps", 1e-6);
  const at::Tensor input = given.contiguous();
  at::Tensor output = at::empty_like(input);
  const int64_t rows = input.size(0);
  const int64_t columns = input.size(1);
  const float* in = input.data_ptr<float>();
  float* out = output.data_ptr<float>();
  for (int64_t r = 0; r < rows; ++r) {
    double squares = 0.0;
    for (int64_t c = 0; c < columns; ++c) {
      squares += static_cast<double>(in[r * columns + c]) * in[r * columns + c];
    }
    const double scale =
        1.0 / std::sqrt(squares / static_cast<double>(columns) + eps);
    for (int64_t c = 0; c < columns; ++c) {
      out[r * columns + c] = static_cast<float>(in[r * columns + c] * scale);
    }
  }
  return {output};
}

std::vector<at::Tensor> rms_norm_torch(const casebook::OpCall& call) {
  const at::Tensor& input = call.input(0);
  const double eps = call.arg_double("eps", 1e-6);
  return {input * at::rsqrt(input.pow(2).mean(-1, true) + eps)};
}

}  // namespace

// Named in casebook_add_cases(... OPS downstream_ops): casebook calls it when
// it builds its op registry.
void casebook_register_ops(casebook::OpRegistry& registry) {
  casebook::OpDef def;
  def.name = "kernels.rms_norm";
  def.inputs = {"input"};
  def.args = {"eps"};
  def.placement = casebook::OpDef::Placement::kHost;
  def.run = rms_norm;
  def.torch_reference = rms_norm_torch;  // a case may say `reference: torch`
  // Its traits, part of its definition: a GPU twin would take a row in
  // blocks of 32 columns, so the block_boundaries neighbours are row lengths
  // around multiples of 32 (cases/rms_norm/boundaries.yaml).
  casebook::NeighborOpTraits& rules = def.traits.neighbors.emplace();
  rules.batch = {{"input", 0}};
  rules.blocks = {32};
  rules.block_dims = {{"input", 1}};
  def.file = __FILE__;
  def.line = __LINE__;
  registry.add(std::move(def));
}
