// The GPU softmax (see softmax.h). CUDA syntax; HIP through gpu_portability.h.
#include "common/gpu_portability.h"
// (first: it decides CASEBOOK_GPU_NS for the headers below)
#include "common/block_reduce.cuh"
#include "common/scalar_convert.h"
#include "softmax/softmax.h"
#include "softmax/softmax_args.h"

namespace CASEBOOK_GPU_NS {
namespace {

using namespace casebook::kernels;

// One block per row: the row maximum, the sum of exp(x - max), then the
// normalised values, each pass striding over the columns.
template <typename Element>
__global__ void __launch_bounds__(CASEBOOK_SOFTMAX_BLOCK_THREADS)
    softmax_rows_kernel(const typename Element::Storage* input, int64_t cols,
                        int64_t row_stride, int64_t col_stride,
                        typename Element::Storage* output) {
  __shared__ float scratch[32];
  const typename Element::Storage* in_row = input + blockIdx.x * row_stride;
  typename Element::Storage* out_row = output + blockIdx.x * cols;

  float row_max = -INFINITY;
  for (int64_t col = threadIdx.x; col < cols; col += blockDim.x) {
    row_max = MaxOp()(row_max, Element::load(in_row[col * col_stride]));
  }
  row_max = block_all_reduce(row_max, MaxOp(), -INFINITY, scratch);

  float total = 0.0f;
  for (int64_t col = threadIdx.x; col < cols; col += blockDim.x) {
    total += expf(Element::load(in_row[col * col_stride]) - row_max);
  }
  total = block_all_reduce(total, AddOp(), 0.0f, scratch);

  for (int64_t col = threadIdx.x; col < cols; col += blockDim.x) {
    out_row[col] = Element::store(
        expf(Element::load(in_row[col * col_stride]) - row_max) / total);
  }
}

template <typename Element>
CasebookKernelStatus launch_typed(const CasebookSoftmaxArgs& args) {
  softmax_rows_kernel<Element>
      <<<static_cast<unsigned>(args.rows), CASEBOOK_SOFTMAX_BLOCK_THREADS, 0,
         static_cast<cudaStream_t>(args.stream)>>>(
          static_cast<const typename Element::Storage*>(args.input), args.cols,
          args.input_stride[0], args.input_stride[1],
          static_cast<typename Element::Storage*>(args.output));
  return launch_status("softmax_rows_kernel");
}

}  // namespace

CasebookKernelStatus softmax_launch(const CasebookSoftmaxArgs& args) {
  const bool any = args.rows > 0 && args.cols > 0;
  const CasebookKernelStatus checked = check_softmax_args(args);
  if (checked.code != CASEBOOK_STATUS_OK) return checked;
  if (args.rows > 0x7fffffff) {
    return error_status(CASEBOOK_STATUS_INVALID_ARGUMENT,
                        "softmax: %lld rows, at most 2^31 - 1 on the GPU",
                        static_cast<long long>(args.rows));
  }
  if (!any) return ok_status();
  switch (args.type) {
    case CASEBOOK_FLOAT16:
      return launch_typed<Float16Element>(args);
    case CASEBOOK_BFLOAT16:
      return launch_typed<BFloat16Element>(args);
    default:
      return launch_typed<Float32Element>(args);
  }
}

}  // namespace CASEBOOK_GPU_NS
