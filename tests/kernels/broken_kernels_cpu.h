// Deliberately broken CPU twins of the kernels (test only), each with the
// defect of its GPU variant in tests/kernels/broken_gpu/, so that CI, which
// has no GPU, proves through the same harness path that the cases catch it.
#pragma once

#include "embedding/embedding.h"
#include "nll_loss/nll_loss.h"
#include "softmax/softmax.h"
#include "sum/sum.h"

namespace casebook::broken {

// The last incomplete block (length % CASEBOOK_SUM_BLOCK_THREADS) is skipped.
CasebookKernelStatus sum_tail_dropped_cpu(const CasebookSumArgs& args);
// Only the first block (CASEBOOK_SUM_BLOCK_THREADS elements) is summed: a
// length of one block or less is right, 257 and beyond lose their tail
// (the failure `casebook reduce` keeps at its threshold).
CasebookKernelStatus sum_first_block_only_cpu(const CasebookSumArgs& args);
// Every addition is rounded to float16.
CasebookKernelStatus sum_half_accumulation_cpu(const CasebookSumArgs& args);
// The input is read as if it were contiguous.
CasebookKernelStatus softmax_stride_ignored_cpu(
    const CasebookSoftmaxArgs& args);
// Targets are used unchecked. Memory-safe only for cases whose bad targets
// still land inside the input's storage, as the kernel cases' do.
CasebookKernelStatus nll_loss_bound_check_removed_cpu(
    const CasebookNllLossArgs& args);
// Targets >= classes - 1 (and negative ones) are skipped as if ignored, no
// error: a crash turned into a silently incomplete loss. It counts what it
// took in (CasebookNllLossArgs::processed), as the real kernel does.
CasebookKernelStatus nll_loss_last_class_skipped_cpu(
    const CasebookNllLossArgs& args);
// Indices are used unchecked (same proviso).
CasebookKernelStatus embedding_bound_check_removed_cpu(
    const CasebookEmbeddingArgs& args);

}  // namespace casebook::broken
