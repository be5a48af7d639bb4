// Deliberately broken GPU variants of the kernels (test only): each is the
// real launcher with one defect, the kind the kernel cases must catch.
#pragma once

#include "common/gpu_portability.h"
#include "common/plugin_abi.h"

// One row per variant, X(variant, kernel): the variant replaces the launcher
// of `kernel` (a row of common/kernel_list.h) when $CASEBOOK_BROKEN_VARIANT
// names it (broken_entry.cu).
#define CASEBOOK_FOR_EACH_BROKEN_VARIANT(X) \
  X(sum_tail_dropped, sum)                  \
  X(sum_first_block_only, sum)              \
  X(sum_half_accumulation, sum)             \
  X(softmax_stride_ignored, softmax)        \
  X(nll_loss_bound_check_removed, nll_loss) \
  X(nll_loss_last_class_skipped, nll_loss)  \
  X(embedding_bound_check_removed, embedding)

namespace CASEBOOK_GPU_NS::broken {

// The last incomplete block is never launched.
CasebookKernelStatus sum_tail_dropped(const CasebookSumArgs& args);
// Only the first block is summed: 257 elements and beyond lose their tail.
CasebookKernelStatus sum_first_block_only(const CasebookSumArgs& args);
// Every addition is rounded to float16.
CasebookKernelStatus sum_half_accumulation(const CasebookSumArgs& args);
// The input is read as if it were contiguous.
CasebookKernelStatus softmax_stride_ignored(const CasebookSoftmaxArgs& args);
// Targets are used as column indices unchecked.
CasebookKernelStatus nll_loss_bound_check_removed(
    const CasebookNllLossArgs& args);
// Targets >= classes - 1 (and negative ones) are skipped as if ignored, no
// error; the count it took in is reported (CasebookNllLossArgs::processed).
CasebookKernelStatus nll_loss_last_class_skipped(
    const CasebookNllLossArgs& args);
// Indices are used as row indices unchecked.
CasebookKernelStatus embedding_bound_check_removed(
    const CasebookEmbeddingArgs& args);

}  // namespace CASEBOOK_GPU_NS::broken
