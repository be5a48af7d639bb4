// The kernels.* ops (internal): one OpDef factory per kernel, taking the CPU
// implementation to run on the cpu backend, so that a test can register a
// deliberately broken twin under the real name and prove the cases catch it.
#pragma once

#include <string>

#include "casebook/ops.h"
#include "common/kernel_list.h"

namespace casebook::kernel_glue {

// A kernel's CPU implementation: its reference, or a test's broken twin.
template <typename Args>
using KernelCpu = CasebookKernelStatus (*)(const Args&);

// One per row of kernels/common/kernel_list.h: `nll_loss` is
// kernels::nll_loss_cpu unless a test sets another.
struct KernelCpuImplementations {
#define CASEBOOK_KERNEL_CPU_FIELD(name, Args) \
  KernelCpu<Args> name = &kernels::name##_cpu;
  CASEBOOK_FOR_EACH_KERNEL(CASEBOOK_KERNEL_CPU_FIELD)
#undef CASEBOOK_KERNEL_CPU_FIELD
};

// The op of each row, `make_<name>_op`, defined in kernel_ops/<name>_op.cpp.
#define CASEBOOK_KERNEL_OP_FACTORY(name, Args) \
  OpDef make_##name##_op(KernelCpu<Args> cpu);
CASEBOOK_FOR_EACH_KERNEL(CASEBOOK_KERNEL_OP_FACTORY)
#undef CASEBOOK_KERNEL_OP_FACTORY

// register_kernel_ops with chosen CPU implementations.
void register_kernel_ops_with(OpRegistry& registry,
                              const KernelCpuImplementations& cpu);

}  // namespace casebook::kernel_glue

namespace casebook {

// Registers the kernels.* ops with their CPU references (register_all,
// casebook/op_catalog.h, calls it with every other room's).
void register_kernel_ops(OpRegistry& registry);

}  // namespace casebook
