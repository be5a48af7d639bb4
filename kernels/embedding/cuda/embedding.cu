// The GPU embedding (see embedding.h). CUDA syntax; HIP through
// gpu_portability.h.
#include "common/gpu_portability.h"
// (first: it decides CASEBOOK_GPU_NS for the headers below)
#include "common/index_check.cuh"
#include "embedding/embedding.h"
#include "embedding/embedding_args.h"

namespace CASEBOOK_GPU_NS {
namespace {

using namespace casebook::kernels;

// One block per index; its threads copy the row, striding over the columns.
// An index out of range is recorded and its row set to zeros.
template <typename Storage, typename Index>
__global__ void __launch_bounds__(CASEBOOK_EMBEDDING_BLOCK_THREADS)
    embedding_rows_kernel(const Storage* weight, int64_t num_embeddings,
                          int64_t dim, int64_t row_stride, int64_t col_stride,
                          const Index* indices, int64_t index_stride,
                          Storage* output, FirstBadPosition* first_bad) {
  const int64_t position = blockIdx.x;
  const int64_t index = static_cast<int64_t>(indices[position * index_stride]);
  const bool valid = index >= 0 && index < num_embeddings;
  if (!valid && threadIdx.x == 0) record_bad_position(first_bad, position);
  Storage* out_row = output + position * dim;
  for (int64_t col = threadIdx.x; col < dim; col += blockDim.x) {
    out_row[col] =
        valid ? weight[index * row_stride + col * col_stride] : Storage(0);
  }
}

template <typename Storage, typename Index>
CasebookKernelStatus launch_typed(const CasebookEmbeddingArgs& args) {
  cudaStream_t stream = static_cast<cudaStream_t>(args.stream);
  auto* first_bad = static_cast<FirstBadPosition*>(args.workspace);
  CASEBOOK_RETURN_IF_ERROR(reset_bad_position(first_bad, stream, "embedding"));
  if (args.num_indices > 0) {
    embedding_rows_kernel<Storage, Index>
        <<<static_cast<unsigned>(args.num_indices),
           CASEBOOK_EMBEDDING_BLOCK_THREADS, 0, stream>>>(
            static_cast<const Storage*>(args.weight), args.num_embeddings,
            args.embedding_dim, args.weight_stride[0], args.weight_stride[1],
            static_cast<const Index*>(args.indices), args.index_stride,
            static_cast<Storage*>(args.output), first_bad);
    CASEBOOK_RETURN_IF_ERROR(launch_status("embedding_rows_kernel"));
  }
  return read_bad_position(first_bad, stream, args.indices, args.index_type,
                           args.index_stride, "index", args.num_embeddings,
                           "embedding");
}

template <typename Storage>
CasebookKernelStatus dispatch_index(const CasebookEmbeddingArgs& args) {
  return args.index_type == CASEBOOK_INT32
             ? launch_typed<Storage, int32_t>(args)
             : launch_typed<Storage, int64_t>(args);
}

}  // namespace

CasebookKernelStatus embedding_launch(const CasebookEmbeddingArgs& args) {
  const CasebookKernelStatus checked = first_error({
      check_embedding_args(args),
      check_pointer("embedding", "workspace", args.workspace, true),
  });
  if (checked.code != CASEBOOK_STATUS_OK) return checked;
  if (args.workspace_bytes < CASEBOOK_EMBEDDING_WORKSPACE_BYTES) {
    return error_status(CASEBOOK_STATUS_INVALID_ARGUMENT,
                        "embedding: workspace of %zu bytes, needs %d",
                        args.workspace_bytes,
                        CASEBOOK_EMBEDDING_WORKSPACE_BYTES);
  }
  if (args.num_indices > 0x7fffffff) {
    return error_status(CASEBOOK_STATUS_INVALID_ARGUMENT,
                        "embedding: %lld indices, at most 2^31 - 1 on the GPU",
                        static_cast<long long>(args.num_indices));
  }
  if (args.weight_type == CASEBOOK_FLOAT32) return dispatch_index<float>(args);
  return dispatch_index<uint16_t>(args);
}

}  // namespace CASEBOOK_GPU_NS
