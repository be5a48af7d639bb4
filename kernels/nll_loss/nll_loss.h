/* nll_loss forward: the negative log-likelihood of log-probabilities
 * input[batch, classes] at target[batch], as at::nll_loss without weights.
 *
 * A target equal to ignore_index contributes nothing (and is not counted by
 * the mean: a batch with every target ignored gives NaN, as LibTorch does).
 * Any other target outside [0, classes) is reported through the status with
 * the first (lowest) offending position and its value: never a device assert,
 * never a silent read. float16/bfloat16 inputs are accumulated in float32.
 *
 * The GPU kernel gives each thread a grid-stride run of rows, reduces blocks
 * of CASEBOOK_NLL_LOSS_BLOCK_THREADS and then at most
 * CASEBOOK_NLL_LOSS_MAX_BLOCKS partials; it records offending rows with an
 * atomicMin and the launcher reads that back, so the launcher waits for the
 * stream before it returns.
 *
 * Counting: where `processed` is set, the kernel writes there how many
 * targets it took into the loss (neither ignored nor rejected): the mean's
 * divisor, its own count, so that a kernel that skips targets instead of
 * failing shows it. */
#ifndef CASEBOOK_KERNELS_NLL_LOSS_H_
#define CASEBOOK_KERNELS_NLL_LOSS_H_

#include "common/kernel_types.h"

#define CASEBOOK_NLL_LOSS_BLOCK_THREADS 256
#define CASEBOOK_NLL_LOSS_MAX_BLOCKS 1024
/* GPU workspace: a count (int64) and a sum (float) per block, the first
 * offending position (uint64), and the total count (int64). */
#define CASEBOOK_NLL_LOSS_WORKSPACE_BYTES \
  (CASEBOOK_NLL_LOSS_MAX_BLOCKS * 12 + 16)

typedef enum CasebookReduction {
  CASEBOOK_REDUCTION_NONE = 0, /* output[batch], 0 where ignored */
  CASEBOOK_REDUCTION_MEAN = 1, /* one element: sum / count of non-ignored */
  CASEBOOK_REDUCTION_SUM = 2   /* one element */
} CasebookReduction;

typedef struct CasebookNllLossArgs {
  const void* input;              /* element (0, 0) of [batch, classes] */
  CasebookScalarType input_type;  /* float32, float16, bfloat16 */
  int64_t batch;                  /* >= 0 */
  int64_t classes;                /* >= 1 */
  int64_t input_stride[2];        /* in elements, >= 0 */
  const void* target;             /* element 0 of [batch] */
  CasebookScalarType target_type; /* int32 or int64 */
  int64_t target_stride;
  int64_t ignore_index;
  CasebookReduction reduction;
  void* output;    /* input_type: [batch] contiguous (none) or one element */
  void* workspace; /* GPU only: CASEBOOK_NLL_LOSS_WORKSPACE_BYTES */
  size_t workspace_bytes;
  void* stream; /* GPU only; null: the default stream */
  /* Optional, HOST memory on every backend (the launcher copies it back):
   * the number of targets taken into the loss. Null: not asked. Appended
   * last, so the fields above keep their offsets. */
  int64_t* processed;
} CasebookNllLossArgs;

#ifdef __cplusplus
namespace casebook::kernels {
// The reference: accumulates in double.
CasebookKernelStatus nll_loss_cpu(const CasebookNllLossArgs& args);
}  // namespace casebook::kernels

#ifdef CASEBOOK_GPU_NS
namespace CASEBOOK_GPU_NS {
// Synchronises args.stream (to read the bound check back).
CasebookKernelStatus nll_loss_launch(const CasebookNllLossArgs& args);
}  // namespace CASEBOOK_GPU_NS
#endif
#endif

#endif /* CASEBOOK_KERNELS_NLL_LOSS_H_ */
