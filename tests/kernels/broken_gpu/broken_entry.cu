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

// Each kernel's argument struct by name, from the kernel list:
// sum_args is CasebookSumArgs.
#define CASEBOOK_BROKEN_ARGS_OF(name, Args) using name##_args = Args;
CASEBOOK_FOR_EACH_KERNEL(CASEBOOK_BROKEN_ARGS_OF)
#undef CASEBOOK_BROKEN_ARGS_OF

// A broken variant in the launcher's shape of the ABI.
template <typename Args, CasebookKernelStatus (*Variant)(const Args&)>
void launcher(const Args* args, CasebookKernelStatus* status) {
  *status = Variant(*args);
}

// Null when the variant is unknown.
const CasebookKernelPluginV1* make_table(const char* variant) {
  static CasebookKernelPluginV1 table = make_plugin_table();
  if (variant == nullptr) return nullptr;
#define CASEBOOK_BROKEN_SWAP(name, kernel)          \
  if (std::strcmp(variant, #name) == 0) {           \
    table.kernel = &launcher<kernel##_args, &name>; \
    table.variant = variant;                        \
    return &table;                                  \
  }
  CASEBOOK_FOR_EACH_BROKEN_VARIANT(CASEBOOK_BROKEN_SWAP)
#undef CASEBOOK_BROKEN_SWAP
  return nullptr;
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
