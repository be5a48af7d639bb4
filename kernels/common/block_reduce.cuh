// Warp and block reductions for the GPU kernels (CUDA syntax; HIP through
// gpu_portability.h). Work for any warp size (32 on NVIDIA and RDNA, 64 on
// CDNA) and any block size that is a multiple of it, up to 1024 threads.
#pragma once

#include "common/gpu_portability.h"

namespace CASEBOOK_GPU_NS {

struct AddOp {
  template <typename T>
  __device__ __forceinline__ T operator()(T a, T b) const {
    return a + b;
  }
};

struct MaxOp {
  // NaN wins, as in at::max: a row holding NaN softmaxes to NaN.
  __device__ __forceinline__ float operator()(float a, float b) const {
    return (a != a || a > b) ? a : b;
  }
};

template <typename T, typename Op>
__device__ __forceinline__ T warp_reduce(T value, Op op) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2) {
    value = op(value, CASEBOOK_SHFL_DOWN(value, offset));
  }
  return value;
}

// Every thread of the block must call it. The result is valid in thread 0;
// `scratch` holds at least blockDim.x / warpSize values (32 always suffice).
template <typename T, typename Op>
__device__ T block_reduce(T value, Op op, T identity, T* scratch) {
  const int lane = threadIdx.x % warpSize;
  const int warp = threadIdx.x / warpSize;
  const int warps = (blockDim.x + warpSize - 1) / warpSize;
  value = warp_reduce(value, op);
  if (lane == 0) scratch[warp] = value;
  __syncthreads();
  if (warp == 0) {
    value = lane < warps ? scratch[lane] : identity;
    value = warp_reduce(value, op);
  }
  __syncthreads();  // scratch may be reused by the caller's next reduction
  return value;
}

// block_reduce, with the result handed to every thread of the block.
template <typename T, typename Op>
__device__ T block_all_reduce(T value, Op op, T identity, T* scratch) {
  value = block_reduce(value, op, identity, scratch);
  if (threadIdx.x == 0) scratch[0] = value;
  __syncthreads();
  value = scratch[0];
  __syncthreads();
  return value;
}

}  // namespace CASEBOOK_GPU_NS
