// The entry point of the real kernel plugin (see plugin_abi.h).
#include "common/plugin_table.h"

CASEBOOK_PLUGIN_EXPORT const CasebookKernelPluginV1*
casebook_kernel_plugin_v1() {
  static const CasebookKernelPluginV1 table =
      CASEBOOK_GPU_NS::make_plugin_table();
  return &table;
}
