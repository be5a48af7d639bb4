// The kernel glue (kernel_ops/kernel_glue.h, launch_kernel) on the CPU
// through the simulated device: the device path of every kernels.* op (the
// storage copied with its offset and strides, output and workspace
// allocated, the launch, the copy back, everything freed), checked against
// the CPU path and LibTorch.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "casebook/ops.h"
#include "casebook/runner.h"
#include "simulated_device.h"
#include "test_ops.h"

namespace casebook {
namespace {

namespace fs = std::filesystem;

std::vector<at::Tensor> run_op(
    const std::string& name, const std::vector<at::Tensor>& inputs,
    Backend backend, const std::map<std::string, ArgValue>& args = {}) {
  const OpDef* op = simulated_device::registry().find(name);
  const simulated_device::Installed device(backend);
  OpCall call{inputs, args, backend, at::Device(at::kCPU)};
  return op->run(call);
}

TEST(KernelGlue, TheDevicePathKeepsOffsetsAndStridesAndFreesEverything) {
  testing_support::use_single_thread();
  const at::Tensor storage = at::arange(40, at::kFloat);
  const at::Tensor view = storage.as_strided({10}, {3}, 5);  // 5, 8, ..., 32
  const int before = simulated_device::live_allocations();
  const at::Tensor on_device = run_op("kernels.sum", {view}, Backend::kCuda)[0];
  EXPECT_EQ(simulated_device::live_allocations(), before);
  const at::Tensor on_cpu = run_op("kernels.sum", {view}, Backend::kCpu)[0];
  EXPECT_FLOAT_EQ(on_device.item<float>(), at::sum(view).item<float>());
  EXPECT_FLOAT_EQ(on_device.item<float>(), on_cpu.item<float>());

  const at::Tensor logits = at::randn({4, 6}).t().contiguous().t();
  const at::Tensor soft =
      run_op("kernels.softmax", {logits}, Backend::kCuda)[0];
  EXPECT_TRUE(at::allclose(soft, at::softmax(logits, -1), 1e-5, 1e-6));
  EXPECT_EQ(simulated_device::live_allocations(), before);

  const at::Tensor weight = at::randn({5, 3});
  const at::Tensor indices = at::tensor({4, 0, 2}, at::kLong);
  const at::Tensor rows =
      run_op("kernels.embedding", {weight, indices}, Backend::kCuda)[0];
  EXPECT_TRUE(at::equal(rows, at::embedding(weight, indices)));
  EXPECT_EQ(simulated_device::live_allocations(), before);
}

TEST(KernelGlue, ABadIndexOnTheDeviceIsAnErrorWithItsPositionAndFreesAll) {
  testing_support::use_single_thread();
  const int before = simulated_device::live_allocations();
  const at::Tensor input = at::randn({3, 4});
  const at::Tensor target = at::tensor({0, 2, 4}, at::kLong);
  try {
    run_op("kernels.nll_loss", {input, target}, Backend::kCuda);
    ADD_FAILURE() << "no error for target 4 of 4 classes";
  } catch (const OpError& error) {
    EXPECT_EQ(error.family(), Family::kIndexOutOfRange);
    EXPECT_EQ(error.positions(), std::vector<int64_t>{2});
  }
  EXPECT_EQ(simulated_device::live_allocations(), before);
}

// Every kernel case, on the simulated device as cuda, in GPU workers: each
// cuda verdict is what the cpu one is (the device runs the CPU references).
TEST(KernelGlue, EveryKernelCaseGetsTheSameVerdictOnTheSimulatedDevice) {
  testing_support::use_single_thread();
  simulated_device::install();
  RunOptions options;
  options.backends = {Backend::kCpu, Backend::kCuda};
  options.registry = &simulated_device::registry();
  options.evidence_root.clear();
  RunSummary summary =
      run_cases({fs::path(CASEBOOK_SOURCE_DIR) / "cases" / "kernels"}, options);
  simulated_device::uninstall();
  std::map<std::string, Verdict> cpu;
  int cuda_runs = 0;
  for (const CaseVerdict& v : summary.verdicts) {
    if (v.backend == Backend::kCpu) cpu[v.case_id] = v.verdict;
  }
  for (const CaseVerdict& v : summary.verdicts) {
    if (v.backend != Backend::kCuda) continue;
    ++cuda_runs;
    EXPECT_NE(v.verdict, Verdict::kSkip) << v.case_id << ": " << v.message;
    if (cpu.count(v.case_id)) {
      EXPECT_EQ(v.verdict, cpu[v.case_id]) << v.case_id << ": " << v.message;
    }
  }
  EXPECT_GT(cuda_runs, 20);
}

}  // namespace
}  // namespace casebook
