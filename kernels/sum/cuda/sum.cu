// The GPU sum (see sum.h). CUDA syntax; HIP through gpu_portability.h.
#include "common/gpu_portability.h"
// (first: it decides CASEBOOK_GPU_NS for the headers below)
#include "common/block_reduce.cuh"
#include "common/scalar_convert.h"
#include "sum/sum.h"
#include "sum/sum_args.h"

namespace CASEBOOK_GPU_NS {
namespace {

using namespace casebook::kernels;

// Pass 1: each block writes the float32 sum of its grid-stride elements.
template <typename Element>
__global__ void __launch_bounds__(CASEBOOK_SUM_BLOCK_THREADS)
    sum_partials_kernel(const typename Element::Storage* input, int64_t length,
                        int64_t stride, float* partials) {
  __shared__ float scratch[32];
  float total = 0.0f;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < length; i += step) {
    total += Element::load(input[i * stride]);
  }
  total = block_reduce(total, AddOp(), 0.0f, scratch);
  if (threadIdx.x == 0) partials[blockIdx.x] = total;
}

// Pass 2: one block sums the partials, in a fixed order (deterministic).
__global__ void __launch_bounds__(CASEBOOK_SUM_BLOCK_THREADS)
    sum_partials_final_kernel(const float* partials, int count, float* output) {
  __shared__ float scratch[32];
  float total = 0.0f;
  for (int i = threadIdx.x; i < count; i += blockDim.x) total += partials[i];
  total = block_reduce(total, AddOp(), 0.0f, scratch);
  if (threadIdx.x == 0) *output = total;
}

template <typename Element>
CasebookKernelStatus launch_typed(const CasebookSumArgs& args,
                                  cudaStream_t stream) {
  const int64_t blocks_needed = (args.length + CASEBOOK_SUM_BLOCK_THREADS - 1) /
                                CASEBOOK_SUM_BLOCK_THREADS;
  const int blocks = static_cast<int>(blocks_needed < CASEBOOK_SUM_MAX_BLOCKS
                                          ? blocks_needed
                                          : CASEBOOK_SUM_MAX_BLOCKS);
  float* partials = static_cast<float*>(args.workspace);
  sum_partials_kernel<Element>
      <<<blocks, CASEBOOK_SUM_BLOCK_THREADS, 0, stream>>>(
          static_cast<const typename Element::Storage*>(args.input),
          args.length, args.stride, partials);
  CASEBOOK_RETURN_IF_ERROR(launch_status("sum_partials_kernel"));
  sum_partials_final_kernel<<<1, CASEBOOK_SUM_BLOCK_THREADS, 0, stream>>>(
      partials, blocks, args.output);
  return launch_status("sum_partials_final_kernel");
}

}  // namespace

CasebookKernelStatus sum_launch(const CasebookSumArgs& args) {
  const CasebookKernelStatus checked = first_error({
      check_sum_args(args),
      check_pointer("sum", "workspace", args.workspace, args.length > 0),
  });
  if (checked.code != CASEBOOK_STATUS_OK) return checked;
  if (args.length > 0 && args.workspace_bytes < CASEBOOK_SUM_WORKSPACE_BYTES) {
    return error_status(CASEBOOK_STATUS_INVALID_ARGUMENT,
                        "sum: workspace of %zu bytes, needs %d",
                        args.workspace_bytes, CASEBOOK_SUM_WORKSPACE_BYTES);
  }
  cudaStream_t stream = static_cast<cudaStream_t>(args.stream);
  if (args.length == 0) {  // no block to launch: the empty sum is 0
    CASEBOOK_GPU_CHECK(cudaMemsetAsync(args.output, 0, sizeof(float), stream),
                       "sum: zeroing the empty sum");
    return ok_status();
  }
  switch (args.input_type) {
    case CASEBOOK_FLOAT16:
      return launch_typed<Float16Element>(args, stream);
    case CASEBOOK_BFLOAT16:
      return launch_typed<BFloat16Element>(args, stream);
    default:
      return launch_typed<Float32Element>(args, stream);
  }
}

}  // namespace CASEBOOK_GPU_NS
