// The kernels.* ops (internal): one OpDef factory per kernel, taking the CPU
// implementation to run on the cpu backend, so that a test can register a
// deliberately broken twin under the real name and prove the cases catch it.
#pragma once

#include <string>

#include "casebook/ops.h"
#include "embedding/embedding.h"
#include "nll_loss/nll_loss.h"
#include "softmax/softmax.h"
#include "sum/sum.h"

namespace casebook::kernel_glue {

using NllLossCpu = CasebookKernelStatus (*)(const CasebookNllLossArgs&);
using SoftmaxCpu = CasebookKernelStatus (*)(const CasebookSoftmaxArgs&);
using SumCpu = CasebookKernelStatus (*)(const CasebookSumArgs&);
using EmbeddingCpu = CasebookKernelStatus (*)(const CasebookEmbeddingArgs&);

struct KernelCpuImplementations {
  NllLossCpu nll_loss = &kernels::nll_loss_cpu;
  SoftmaxCpu softmax = &kernels::softmax_cpu;
  SumCpu sum = &kernels::sum_cpu;
  EmbeddingCpu embedding = &kernels::embedding_cpu;
};

OpDef make_nll_loss_op(NllLossCpu cpu);
OpDef make_softmax_op(SoftmaxCpu cpu);
OpDef make_sum_op(SumCpu cpu);
OpDef make_embedding_op(EmbeddingCpu cpu);

// register_kernel_ops with chosen CPU implementations.
void register_kernel_ops_with(OpRegistry& registry,
                              const KernelCpuImplementations& cpu);

// "cases/x.yaml:4:9: " for an argument written in a case file, else "".
std::string arg_site(const OpCall& call, const std::string& name);

}  // namespace casebook::kernel_glue
