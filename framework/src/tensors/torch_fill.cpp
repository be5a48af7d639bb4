// `fill: {torch: ...}`: PyTorch's own random numbers. The draw is LibTorch's
// own CPU call on a CPU generator seeded with the case's seed, which is what
// torch.manual_seed(seed) does to the default CPU generator; so the tensor
// equals `torch.manual_seed(seed); torch.<call>(...)` in PyTorch on the CPU,
// for the PyTorch whose LibTorch runs (ATen's CPU kernels have changed their
// draws across versions). tests/data/torch_rng/ holds the proof against
// python3-torch 1.13.
#include <ATen/CPUGeneratorImpl.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "tensors/source.h"

namespace casebook {
namespace {

int64_t exact(double value, const char* what) {
  if (!std::isfinite(value) || std::nearbyint(value) != value) {
    throw std::invalid_argument(std::string("fill.torch: ") + what + " " +
                                std::to_string(value) + " is not an integer");
  }
  return static_cast<int64_t>(value);
}

}  // namespace

at::Tensor torch_fill_tensor(const Fill& fill, uint64_t seed,
                             const std::vector<int64_t>& shape,
                             at::ScalarType type) {
  at::Generator generator = at::detail::createCPUGenerator(seed);
  const at::TensorOptions options = at::TensorOptions().dtype(type);
  const std::string& call = fill.torch_call;
  if (call == "randn") return at::randn(shape, generator, options);
  if (call == "rand") return at::rand(shape, generator, options);
  if (call == "randint") {
    return at::randint(exact(fill.first, "randint.low"),
                       exact(fill.second, "randint.high"), shape, generator,
                       options);
  }
  if (call == "normal") {
    return at::normal(fill.first, fill.second, shape, generator, options);
  }
  if (call == "uniform") {
    return at::empty(shape, options)
        .uniform_(fill.first, fill.second, generator);
  }
  if (call == "bernoulli") {
    return at::bernoulli(at::full(shape, fill.first, options), generator);
  }
  if (call == "randperm") {
    if (shape.size() != 1) {
      throw std::invalid_argument("fill.torch.randperm needs a 1-D shape [n]");
    }
    return at::randperm(shape[0], generator, options);
  }
  throw std::invalid_argument("fill.torch: unknown call `" + call + "`");
}

}  // namespace casebook
