// The logical values of a TensorSpec, before any layout: a contiguous CPU
// tensor of the spec's shape and dtype, from `values` or `fill`.
#pragma once

#include <ATen/ATen.h>

#include "casebook/case.h"

namespace casebook {

// Throws std::invalid_argument (without the case location) when the values do
// not fit the shape or the dtype (300 in uint8, 0.5 in int32, 2 in bool).
at::Tensor values_tensor(const TensorSpec& spec);

// Numbers drawn from a private CPU generator seeded with `seed`, in float64
// (normal, uniform, arange) or int64 (randint, and arange/full for integer
// dtypes), then cast to `type`. Same seed, same numbers, on every machine and
// LibTorch version: only the generator's raw 64-bit draws (mt19937) are used,
// and the transforms are our own, since ATen's normal_ takes a different path
// by dtype, size and CPU capability (AVX2) and has changed across versions.
at::Tensor fill_tensor(const Fill& fill, uint64_t seed,
                       const std::vector<int64_t>& shape, at::ScalarType type);

// `fill: {torch: ...}`: LibTorch's own CPU call on a CPU generator seeded
// with `seed`: the numbers PyTorch gives after torch.manual_seed(seed)
// (tensors/torch_fill.cpp). Throws std::invalid_argument for a bad shape.
at::Tensor torch_fill_tensor(const Fill& fill, uint64_t seed,
                             const std::vector<int64_t>& shape,
                             at::ScalarType type);

}  // namespace casebook
