/* softmax over the last dimension of a 2-D input with arbitrary strides.
 *
 * Stable for large logits (|x| up to 1e4 in float32): each row is shifted by
 * its maximum before exp. float16 and bfloat16 are computed in float32 and
 * rounded once on store. The GPU kernel runs one block of
 * CASEBOOK_SOFTMAX_BLOCK_THREADS per row (three passes over the row: max, sum
 * of exp, write), so rows of block-1, block and block+1 columns are the
 * boundaries that cases/kernels/softmax tests. */
#ifndef CASEBOOK_KERNELS_SOFTMAX_H_
#define CASEBOOK_KERNELS_SOFTMAX_H_

#include "common/kernel_types.h"

#define CASEBOOK_SOFTMAX_BLOCK_THREADS 256

typedef struct CasebookSoftmaxArgs {
  const void* input;       /* element (0, 0) */
  CasebookScalarType type; /* of input and output: float32, float16, bfloat16 */
  int64_t rows;            /* >= 0; at most 2^31 - 1 on the GPU */
  int64_t cols;            /* >= 0 */
  int64_t input_stride[2]; /* in elements, >= 0 */
  void* output;            /* [rows, cols], contiguous */
  void* stream;            /* GPU only; null: the default stream */
} CasebookSoftmaxArgs;

#ifdef __cplusplus
namespace casebook::kernels {
// The reference: exp and sums in double, rounded once to the output type.
CasebookKernelStatus softmax_cpu(const CasebookSoftmaxArgs& args);
}  // namespace casebook::kernels

#ifdef CASEBOOK_GPU_NS
namespace CASEBOOK_GPU_NS {
CasebookKernelStatus softmax_launch(const CasebookSoftmaxArgs& args);
}  // namespace CASEBOOK_GPU_NS
#endif
#endif

#endif /* CASEBOOK_KERNELS_SOFTMAX_H_ */
