/* The one list of casebook's own kernels, as the plugin ABI carries them.
 * Plain C (an X-macro), because the ABI header is C and the CUDA and HIP
 * sources and the C++ tests all include it.
 *
 * Each row is X(name, Args):
 *   name  the kernel's folder kernels/<name>/, the launcher field of
 *         CasebookKernelPluginV1, its GPU launcher <name>_launch and its CPU
 *         reference kernels::<name>_cpu (both in <name>/<name>.h);
 *   Args  its argument struct; every launcher has the one signature
 *         void (*name)(const Args* args, CasebookKernelStatus* status).
 *
 * Generated from it: the launcher fields of the ABI (plugin_abi.h), the
 * plugin's table (plugin_table.cu), the simulated device's table
 * (tests/support/simulated_device.cpp), the loader's check that no
 * launcher is missing (framework/src/device/kernel_plugin.cpp), and the
 * kernels.* ops: KernelCpuImplementations, the make_<name>_op declarations
 * (framework/src/kernel_ops/kernel_ops.h) and their registration
 * (register_kernel_ops.cpp). The broken test plugin starts from the plugin's
 * table, so it follows too.
 *
 * Order is ABI layout. The rows of ABI 1 sit between `synchronize` and
 * `device_facts`, where plugins built before this list put them: never edit,
 * reorder or extend CASEBOOK_FOR_EACH_KERNEL_V1. A new kernel is a new row at
 * the end of CASEBOOK_FOR_EACH_KERNEL_APPENDED, whose fields follow
 * `device_facts` (an older plugin's table is then refused by its
 * struct_size, as the ABI's rules say). */
#ifndef CASEBOOK_KERNELS_KERNEL_LIST_H_
#define CASEBOOK_KERNELS_KERNEL_LIST_H_

#include "common/kernel_types.h"
#include "embedding/embedding.h"
#include "nll_loss/nll_loss.h"
#include "softmax/softmax.h"
#include "sum/sum.h"

/* The launchers of ABI 1, as released: frozen. */
#define CASEBOOK_FOR_EACH_KERNEL_V1(X) \
  X(nll_loss, CasebookNllLossArgs)     \
  X(softmax, CasebookSoftmaxArgs)      \
  X(sum, CasebookSumArgs)              \
  X(embedding, CasebookEmbeddingArgs)

/* Launchers added since, after `device_facts`: new rows go at the end. */
#define CASEBOOK_FOR_EACH_KERNEL_APPENDED(X)

/* Every kernel, in ABI order. */
#define CASEBOOK_FOR_EACH_KERNEL(X) \
  CASEBOOK_FOR_EACH_KERNEL_V1(X) CASEBOOK_FOR_EACH_KERNEL_APPENDED(X)

/* How many rows a list has: CASEBOOK_KERNEL_COUNT(CASEBOOK_FOR_EACH_KERNEL). */
/* A term of the sum, so not parenthesised. */
#define CASEBOOK_KERNEL_COUNT_ONE(name, Args) \
  +1 /* NOLINT(bugprone-macro-parentheses) */
#define CASEBOOK_KERNEL_COUNT(list) (0 list(CASEBOOK_KERNEL_COUNT_ONE))

#endif /* CASEBOOK_KERNELS_KERNEL_LIST_H_ */
