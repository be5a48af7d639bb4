// Registers the kernels.* ops: the glue between kernels/ and casebook's ops.
#include <utility>

#include "kernel_ops/kernel_ops.h"

namespace casebook {
namespace kernel_glue {

namespace {

// Registers `def` as written at file:line, the place a duplicate names.
void add_at(OpRegistry& registry, OpDef def, const char* file, int line) {
  def.file = file;
  def.line = line;
  registry.add(std::move(def));
}

}  // namespace

void register_kernel_ops_with(OpRegistry& registry,
                              const KernelCpuImplementations& cpu) {
  // A row of kernels/common/kernel_list.h is an op: no kernel is left out.
#define CASEBOOK_REGISTER_KERNEL_OP(name, Args) \
  add_at(registry, make_##name##_op(cpu.name), CASEBOOK_OP_SITE);
  CASEBOOK_FOR_EACH_KERNEL(CASEBOOK_REGISTER_KERNEL_OP)
#undef CASEBOOK_REGISTER_KERNEL_OP
}

}  // namespace kernel_glue

void register_kernel_ops(OpRegistry& registry) {
  kernel_glue::register_kernel_ops_with(
      registry, kernel_glue::KernelCpuImplementations{});
}

}  // namespace casebook
