/* sum: the sum of a 1-D tensor of any length and stride, as float32.
 *
 * float16 and bfloat16 inputs are accumulated in float32; the result is always
 * one float32 (what at::sum(x, at::kFloat) returns). The GPU kernel gives each
 * thread a grid-stride run of elements, reduces blocks of
 * CASEBOOK_SUM_BLOCK_THREADS with warp shuffles, and at most
 * CASEBOOK_SUM_MAX_BLOCKS partial sums in a second pass: the block and grid
 * boundaries that cases/kernels/sum tests at -1, 0 and +1. */
#ifndef CASEBOOK_KERNELS_SUM_H_
#define CASEBOOK_KERNELS_SUM_H_

#include "common/kernel_types.h"

#define CASEBOOK_SUM_BLOCK_THREADS 256
#define CASEBOOK_SUM_MAX_BLOCKS 1024
/* GPU workspace: one float per block. */
#define CASEBOOK_SUM_WORKSPACE_BYTES (CASEBOOK_SUM_MAX_BLOCKS * 4)

typedef struct CasebookSumArgs {
  const void* input;             /* element 0 of the input */
  CasebookScalarType input_type; /* float32, float16 or bfloat16 */
  int64_t length;                /* >= 0; 0 gives 0 */
  int64_t stride;                /* in elements, >= 0 */
  float* output;                 /* one float32 */
  void* workspace;               /* GPU only: CASEBOOK_SUM_WORKSPACE_BYTES */
  size_t workspace_bytes;
  void* stream; /* GPU only: a cudaStream_t / hipStream_t; null: default */
} CasebookSumArgs;

#ifdef __cplusplus
namespace casebook::kernels {
// The reference: accumulates in double, so it is at least as accurate as any
// float32 order the GPU may use.
CasebookKernelStatus sum_cpu(const CasebookSumArgs& args);
}  // namespace casebook::kernels

#ifdef CASEBOOK_GPU_NS
namespace CASEBOOK_GPU_NS {
// Asynchronous on args.stream: launch errors are reported, kernel faults
// surface at the next synchronisation.
CasebookKernelStatus sum_launch(const CasebookSumArgs& args);
}  // namespace CASEBOOK_GPU_NS
#endif
#endif

#endif /* CASEBOOK_KERNELS_SUM_H_ */
