/* embedding: output[i, :] = weight[indices[i], :], with every index checked
 * against [0, num_embeddings). An index outside it is reported through the
 * status with the first (lowest) offending position and its value; its output
 * row is zeros. Rows are copied bit for bit (float32, float16, bfloat16).
 *
 * The GPU kernel runs one block of CASEBOOK_EMBEDDING_BLOCK_THREADS per index,
 * its threads striding over the embedding dimension: dims of block-1, block
 * and block+1 are the boundaries cases/kernels/embedding tests. */
#ifndef CASEBOOK_KERNELS_EMBEDDING_H_
#define CASEBOOK_KERNELS_EMBEDDING_H_

#include "common/kernel_types.h"

#define CASEBOOK_EMBEDDING_BLOCK_THREADS 128
/* GPU workspace: the first offending position (uint64). */
#define CASEBOOK_EMBEDDING_WORKSPACE_BYTES 8

typedef struct CasebookEmbeddingArgs {
  const void* weight;             /* element (0, 0) of [num_embeddings, dim] */
  CasebookScalarType weight_type; /* float32, float16, bfloat16 */
  int64_t num_embeddings;         /* >= 0 */
  int64_t embedding_dim;          /* >= 0 */
  int64_t weight_stride[2];       /* in elements, >= 0 */
  const void* indices;            /* element 0 of [num_indices] */
  CasebookScalarType index_type;  /* int32 or int64 */
  int64_t num_indices;            /* >= 0; at most 2^31 - 1 on the GPU */
  int64_t index_stride;
  void* output;    /* [num_indices, embedding_dim] contiguous, weight_type */
  void* workspace; /* GPU only: CASEBOOK_EMBEDDING_WORKSPACE_BYTES */
  size_t workspace_bytes;
  void* stream; /* GPU only; null: the default stream */
} CasebookEmbeddingArgs;

#ifdef __cplusplus
namespace casebook::kernels {
CasebookKernelStatus embedding_cpu(const CasebookEmbeddingArgs& args);
}  // namespace casebook::kernels

#ifdef CASEBOOK_GPU_NS
namespace CASEBOOK_GPU_NS {
// Synchronises args.stream (to read the bound check back).
CasebookKernelStatus embedding_launch(const CasebookEmbeddingArgs& args);
}  // namespace CASEBOOK_GPU_NS
#endif
#endif

#endif /* CASEBOOK_KERNELS_EMBEDDING_H_ */
