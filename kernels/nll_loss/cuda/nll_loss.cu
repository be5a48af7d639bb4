// The GPU nll_loss (see nll_loss.h). CUDA syntax; HIP through
// gpu_portability.h.
#include "common/gpu_portability.h"
// (first: it decides CASEBOOK_GPU_NS for the headers below)
#include "common/block_reduce.cuh"
#include "common/index_check.cuh"
#include "nll_loss/nll_loss.h"
#include "nll_loss/nll_loss_args.h"

namespace CASEBOOK_GPU_NS {
namespace {

using namespace casebook::kernels;

// Where the parts of the workspace lie (see CASEBOOK_NLL_LOSS_WORKSPACE_BYTES).
struct Workspace {
  long long* counts;  // per block
  FirstBadPosition* first_bad;
  float* sums;       // per block
  long long* total;  // every block's count (8-byte aligned: 12296 bytes in)
  explicit Workspace(void* base)
      : counts(static_cast<long long*>(base)),
        first_bad(reinterpret_cast<FirstBadPosition*>(
            counts + CASEBOOK_NLL_LOSS_MAX_BLOCKS)),
        sums(reinterpret_cast<float*>(first_bad + 1)),
        total(reinterpret_cast<long long*>(sums +
                                           CASEBOOK_NLL_LOSS_MAX_BLOCKS)) {}
};

// Pass 1: each row's loss (written when `per_row` is set), then each block's
// sum and count of non-ignored rows.
template <typename Element, typename Index>
__global__ void __launch_bounds__(CASEBOOK_NLL_LOSS_BLOCK_THREADS)
    nll_loss_rows_kernel(const typename Element::Storage* input, int64_t batch,
                         int64_t classes, int64_t row_stride,
                         int64_t class_stride, const Index* target,
                         int64_t target_stride, int64_t ignore_index,
                         typename Element::Storage* per_row,
                         Workspace workspace) {
  __shared__ float sum_scratch[32];
  __shared__ long long count_scratch[32];
  float total = 0.0f;
  long long counted = 0;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t row =
           static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       row < batch; row += step) {
    const int64_t label = static_cast<int64_t>(target[row * target_stride]);
    float loss = 0.0f;
    if (label != ignore_index) {
      if (label < 0 || label >= classes) {
        record_bad_position(workspace.first_bad, row);
      } else {
        loss = -Element::load(input[row * row_stride + label * class_stride]);
        total += loss;
        ++counted;
      }
    }
    if (per_row != nullptr) per_row[row] = Element::store(loss);
  }
  total = block_reduce(total, AddOp(), 0.0f, sum_scratch);
  counted = block_reduce(counted, AddOp(), 0ll, count_scratch);
  if (threadIdx.x == 0) {
    workspace.sums[blockIdx.x] = total;
    workspace.counts[blockIdx.x] = counted;
  }
}

// Pass 2: one block combines the partials into the mean or the sum
// (`output` null for reduction none) and the total count.
template <typename Element>
__global__ void __launch_bounds__(CASEBOOK_NLL_LOSS_BLOCK_THREADS)
    nll_loss_final_kernel(Workspace workspace, int blocks, bool mean,
                          typename Element::Storage* output) {
  __shared__ float sum_scratch[32];
  __shared__ long long count_scratch[32];
  float total = 0.0f;
  long long counted = 0;
  for (int i = threadIdx.x; i < blocks; i += blockDim.x) {
    total += workspace.sums[i];
    counted += workspace.counts[i];
  }
  total = block_reduce(total, AddOp(), 0.0f, sum_scratch);
  counted = block_reduce(counted, AddOp(), 0ll, count_scratch);
  // 0 / 0 is NaN when every target is ignored, as in LibTorch.
  if (threadIdx.x == 0) {
    *workspace.total = counted;
    if (output != nullptr) {
      *output =
          Element::store(mean ? total / static_cast<float>(counted) : total);
    }
  }
}

template <typename Element, typename Index>
CasebookKernelStatus launch_typed(const CasebookNllLossArgs& args) {
  using Storage = typename Element::Storage;
  cudaStream_t stream = static_cast<cudaStream_t>(args.stream);
  Workspace workspace(args.workspace);
  CASEBOOK_RETURN_IF_ERROR(
      reset_bad_position(workspace.first_bad, stream, "nll_loss"));
  const int64_t blocks_needed =
      (args.batch + CASEBOOK_NLL_LOSS_BLOCK_THREADS - 1) /
      CASEBOOK_NLL_LOSS_BLOCK_THREADS;
  const int blocks =
      static_cast<int>(blocks_needed < CASEBOOK_NLL_LOSS_MAX_BLOCKS
                           ? blocks_needed
                           : CASEBOOK_NLL_LOSS_MAX_BLOCKS);
  const bool per_row = args.reduction == CASEBOOK_REDUCTION_NONE;
  if (blocks > 0) {
    nll_loss_rows_kernel<Element, Index>
        <<<blocks, CASEBOOK_NLL_LOSS_BLOCK_THREADS, 0, stream>>>(
            static_cast<const Storage*>(args.input), args.batch, args.classes,
            args.input_stride[0], args.input_stride[1],
            static_cast<const Index*>(args.target), args.target_stride,
            args.ignore_index,
            per_row ? static_cast<Storage*>(args.output) : nullptr, workspace);
    CASEBOOK_RETURN_IF_ERROR(launch_status("nll_loss_rows_kernel"));
  }
  if (!per_row || args.processed != nullptr) {
    nll_loss_final_kernel<Element>
        <<<1, CASEBOOK_NLL_LOSS_BLOCK_THREADS, 0, stream>>>(
            workspace, blocks, args.reduction == CASEBOOK_REDUCTION_MEAN,
            per_row ? nullptr : static_cast<Storage*>(args.output));
    CASEBOOK_RETURN_IF_ERROR(launch_status("nll_loss_final_kernel"));
  }
  const CasebookKernelStatus status = read_bad_position(
      workspace.first_bad, stream, args.target, args.target_type,
      args.target_stride, "target", args.classes, "nll_loss");
  if (status.code != CASEBOOK_STATUS_OK || args.processed == nullptr) {
    return status;
  }
  // The stream was synchronised by read_bad_position.
  long long processed = 0;
  CASEBOOK_GPU_CHECK(cudaMemcpy(&processed, workspace.total, sizeof(processed),
                                cudaMemcpyDeviceToHost),
                     "nll_loss");
  *args.processed = static_cast<int64_t>(processed);
  return status;
}

template <typename Element>
CasebookKernelStatus dispatch_index(const CasebookNllLossArgs& args) {
  return args.target_type == CASEBOOK_INT32
             ? launch_typed<Element, int32_t>(args)
             : launch_typed<Element, int64_t>(args);
}

}  // namespace

CasebookKernelStatus nll_loss_launch(const CasebookNllLossArgs& args) {
  const CasebookKernelStatus checked = first_error({
      check_nll_loss_args(args),
      check_pointer("nll_loss", "workspace", args.workspace, true),
  });
  if (checked.code != CASEBOOK_STATUS_OK) return checked;
  if (args.workspace_bytes < CASEBOOK_NLL_LOSS_WORKSPACE_BYTES) {
    return error_status(CASEBOOK_STATUS_INVALID_ARGUMENT,
                        "nll_loss: workspace of %zu bytes, needs %d",
                        args.workspace_bytes,
                        CASEBOOK_NLL_LOSS_WORKSPACE_BYTES);
  }
  switch (args.input_type) {
    case CASEBOOK_FLOAT16:
      return dispatch_index<Float16Element>(args);
    case CASEBOOK_BFLOAT16:
      return dispatch_index<BFloat16Element>(args);
    default:
      return dispatch_index<Float32Element>(args);
  }
}

}  // namespace CASEBOOK_GPU_NS
