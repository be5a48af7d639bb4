// The entry point of the test-only broken plugin: the real table with the
// launcher named by $CASEBOOK_BROKEN_VARIANT swapped for its broken variant.
// Without a known variant it returns no table, so a run cannot mistake this
// plugin for the real one.
#include <cstdlib>
#include <cstring>

#include "broken_kernels.h"
#include "common/plugin_table.h"

namespace CASEBOOK_GPU_NS::broken {
namespace {

void sum_tail(const CasebookSumArgs* args, CasebookKernelStatus* status) {
  *status = sum_tail_dropped(*args);
}
void sum_half(const CasebookSumArgs* args, CasebookKernelStatus* status) {
  *status = sum_half_accumulation(*args);
}
void softmax_stride(const CasebookSoftmaxArgs* args,
                    CasebookKernelStatus* status) {
  *status = softmax_stride_ignored(*args);
}
void nll_loss_unchecked(const CasebookNllLossArgs* args,
                        CasebookKernelStatus* status) {
  *status = nll_loss_bound_check_removed(*args);
}
void nll_loss_skipping(const CasebookNllLossArgs* args,
                       CasebookKernelStatus* status) {
  *status = nll_loss_last_class_skipped(*args);
}
void embedding_unchecked(const CasebookEmbeddingArgs* args,
                         CasebookKernelStatus* status) {
  *status = embedding_bound_check_removed(*args);
}

// Null when the variant is unknown.
const CasebookKernelPluginV1* make_table(const char* variant) {
  static CasebookKernelPluginV1 table = make_plugin_table();
  if (variant == nullptr) return nullptr;
  if (std::strcmp(variant, "sum_tail_dropped") == 0) {
    table.sum = &sum_tail;
  } else if (std::strcmp(variant, "sum_half_accumulation") == 0) {
    table.sum = &sum_half;
  } else if (std::strcmp(variant, "softmax_stride_ignored") == 0) {
    table.softmax = &softmax_stride;
  } else if (std::strcmp(variant, "nll_loss_bound_check_removed") == 0) {
    table.nll_loss = &nll_loss_unchecked;
  } else if (std::strcmp(variant, "nll_loss_last_class_skipped") == 0) {
    table.nll_loss = &nll_loss_skipping;
  } else if (std::strcmp(variant, "embedding_bound_check_removed") == 0) {
    table.embedding = &embedding_unchecked;
  } else {
    return nullptr;
  }
  table.variant = variant;
  return &table;
}

}  // namespace
}  // namespace CASEBOOK_GPU_NS::broken

CASEBOOK_PLUGIN_EXPORT const CasebookKernelPluginV1*
casebook_kernel_plugin_v1() {
  static const CasebookKernelPluginV1* table =
      CASEBOOK_GPU_NS::broken::make_table(
          std::getenv("CASEBOOK_BROKEN_VARIANT"));
  return table;
}
