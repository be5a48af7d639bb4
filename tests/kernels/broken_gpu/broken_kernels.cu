// Deliberately broken GPU variants (see broken_kernels.h). Test only: built
// into bin/broken/libcasebook_kernels_cuda.so, never into the real plugin.
#include "broken_kernels.h"
#include "common/scalar_convert.h"

namespace CASEBOOK_GPU_NS::broken {
namespace {

using namespace casebook::kernels;

// float16 addition, rounded after every step.
__device__ __forceinline__ float add_half(float a, float b) {
  return float16_to_float(float_to_float16(a + b));
}

template <typename Element>
__global__ void sum_half_kernel(const typename Element::Storage* input,
                                int64_t length, int64_t stride, float* output) {
  __shared__ float partial[CASEBOOK_SUM_BLOCK_THREADS];
  float total = 0.0f;
  for (int64_t i = threadIdx.x; i < length; i += blockDim.x) {
    total = add_half(total, Element::load(input[i * stride]));
  }
  partial[threadIdx.x] = total;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      partial[threadIdx.x] =
          add_half(partial[threadIdx.x], partial[threadIdx.x + half]);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) *output = partial[0];
}

// `skip_from` >= 0: targets below 0 or from `skip_from` on are skipped as
// if ignored (nll_loss_last_class_skipped); -1: every target is read
// unchecked. `counted_out` (device, may be null) gets the count.
template <typename Element, typename Index>
__global__ void nll_loss_unchecked_kernel(
    const typename Element::Storage* input, int64_t batch, int64_t row_stride,
    int64_t class_stride, const Index* target, int64_t target_stride,
    int64_t ignore_index, bool per_row, bool mean,
    typename Element::Storage* output, int64_t skip_from,
    long long* counted_out) {
  if (threadIdx.x != 0)
    return;  // one thread: slow, and only the check is missing
  float total = 0.0f;
  long long counted = 0;
  for (int64_t row = 0; row < batch; ++row) {
    const int64_t label = static_cast<int64_t>(target[row * target_stride]);
    float loss = 0.0f;
    const bool skipped = skip_from >= 0 && (label < 0 || label >= skip_from);
    if (label != ignore_index && !skipped) {
      loss = -Element::load(input[row * row_stride + label * class_stride]);
      total += loss;
      ++counted;
    }
    if (per_row) output[row] = Element::store(loss);
  }
  if (!per_row)
    *output =
        Element::store(mean ? total / static_cast<float>(counted) : total);
  if (counted_out != nullptr) *counted_out = counted;
}

template <typename Storage, typename Index>
__global__ void embedding_unchecked_kernel(
    const Storage* weight, int64_t dim, int64_t row_stride, int64_t col_stride,
    const Index* indices, int64_t index_stride, Storage* output) {
  const int64_t position = blockIdx.x;
  const int64_t index = static_cast<int64_t>(indices[position * index_stride]);
  for (int64_t col = threadIdx.x; col < dim; col += blockDim.x) {
    output[position * dim + col] =
        weight[index * row_stride + col * col_stride];
  }
}

// With `skip_from` >= 0 the count goes through the workspace's first
// 8 bytes to *args.processed, as the real launcher reports it.
template <typename Element, typename Index>
CasebookKernelStatus launch_nll_loss(const CasebookNllLossArgs& args,
                                     int64_t skip_from) {
  using Storage = typename Element::Storage;
  cudaStream_t stream = static_cast<cudaStream_t>(args.stream);
  long long* counted = skip_from >= 0 && args.processed != nullptr
                           ? static_cast<long long*>(args.workspace)
                           : nullptr;
  nll_loss_unchecked_kernel<Element, Index><<<1, 32, 0, stream>>>(
      static_cast<const Storage*>(args.input), args.batch, args.input_stride[0],
      args.input_stride[1], static_cast<const Index*>(args.target),
      args.target_stride, args.ignore_index,
      args.reduction == CASEBOOK_REDUCTION_NONE,
      args.reduction == CASEBOOK_REDUCTION_MEAN,
      static_cast<Storage*>(args.output), skip_from, counted);
  CASEBOOK_RETURN_IF_ERROR(launch_status("nll_loss_unchecked_kernel"));
  if (counted == nullptr) return ok_status();
  long long processed = 0;
  CASEBOOK_GPU_CHECK(cudaStreamSynchronize(stream), "nll_loss");
  CASEBOOK_GPU_CHECK(cudaMemcpy(&processed, counted, sizeof(processed),
                                cudaMemcpyDeviceToHost),
                     "nll_loss");
  *args.processed = static_cast<int64_t>(processed);
  return ok_status();
}

template <typename Element>
CasebookKernelStatus nll_loss_by_index(const CasebookNllLossArgs& args,
                                       int64_t skip_from) {
  return args.target_type == CASEBOOK_INT32
             ? launch_nll_loss<Element, int32_t>(args, skip_from)
             : launch_nll_loss<Element, int64_t>(args, skip_from);
}

CasebookKernelStatus nll_loss_variant(const CasebookNllLossArgs& args,
                                      int64_t skip_from) {
  switch (args.input_type) {
    case CASEBOOK_FLOAT16:
      return nll_loss_by_index<Float16Element>(args, skip_from);
    case CASEBOOK_BFLOAT16:
      return nll_loss_by_index<BFloat16Element>(args, skip_from);
    default:
      return nll_loss_by_index<Float32Element>(args, skip_from);
  }
}

template <typename Storage, typename Index>
CasebookKernelStatus launch_embedding(const CasebookEmbeddingArgs& args) {
  if (args.num_indices == 0) return ok_status();
  embedding_unchecked_kernel<Storage, Index>
      <<<static_cast<unsigned>(args.num_indices),
         CASEBOOK_EMBEDDING_BLOCK_THREADS, 0,
         static_cast<cudaStream_t>(args.stream)>>>(
          static_cast<const Storage*>(args.weight), args.embedding_dim,
          args.weight_stride[0], args.weight_stride[1],
          static_cast<const Index*>(args.indices), args.index_stride,
          static_cast<Storage*>(args.output));
  return launch_status("embedding_unchecked_kernel");
}

template <typename Storage>
CasebookKernelStatus embedding_by_index(const CasebookEmbeddingArgs& args) {
  return args.index_type == CASEBOOK_INT32
             ? launch_embedding<Storage, int32_t>(args)
             : launch_embedding<Storage, int64_t>(args);
}

}  // namespace

CasebookKernelStatus sum_tail_dropped(const CasebookSumArgs& args) {
  CasebookSumArgs truncated = args;
  truncated.length -= args.length % CASEBOOK_SUM_BLOCK_THREADS;
  return sum_launch(truncated);
}

CasebookKernelStatus sum_first_block_only(const CasebookSumArgs& args) {
  CasebookSumArgs truncated = args;
  if (truncated.length > CASEBOOK_SUM_BLOCK_THREADS) {
    truncated.length = CASEBOOK_SUM_BLOCK_THREADS;
  }
  return sum_launch(truncated);
}

CasebookKernelStatus sum_half_accumulation(const CasebookSumArgs& args) {
  cudaStream_t stream = static_cast<cudaStream_t>(args.stream);
  switch (args.input_type) {
    case CASEBOOK_FLOAT16:
      sum_half_kernel<Float16Element>
          <<<1, CASEBOOK_SUM_BLOCK_THREADS, 0, stream>>>(
              static_cast<const uint16_t*>(args.input), args.length,
              args.stride, args.output);
      break;
    case CASEBOOK_BFLOAT16:
      sum_half_kernel<BFloat16Element>
          <<<1, CASEBOOK_SUM_BLOCK_THREADS, 0, stream>>>(
              static_cast<const uint16_t*>(args.input), args.length,
              args.stride, args.output);
      break;
    default:
      sum_half_kernel<Float32Element>
          <<<1, CASEBOOK_SUM_BLOCK_THREADS, 0, stream>>>(
              static_cast<const float*>(args.input), args.length, args.stride,
              args.output);
      break;
  }
  return launch_status("sum_half_kernel");
}

CasebookKernelStatus softmax_stride_ignored(const CasebookSoftmaxArgs& args) {
  CasebookSoftmaxArgs contiguous = args;
  contiguous.input_stride[0] = args.cols;
  contiguous.input_stride[1] = 1;
  return softmax_launch(contiguous);
}

CasebookKernelStatus nll_loss_bound_check_removed(
    const CasebookNllLossArgs& args) {
  return nll_loss_variant(args, -1);
}

CasebookKernelStatus nll_loss_last_class_skipped(
    const CasebookNllLossArgs& args) {
  return nll_loss_variant(args, args.classes - 1);
}

CasebookKernelStatus embedding_bound_check_removed(
    const CasebookEmbeddingArgs& args) {
  if (args.weight_type == CASEBOOK_FLOAT32)
    return embedding_by_index<float>(args);
  return embedding_by_index<uint16_t>(args);
}

}  // namespace CASEBOOK_GPU_NS::broken
