// Issue 50: `casebook reduce` of a failure that depends on a length, on the
// simulated device (tests/support/simulated_device.h) whose `kernels.sum`
// is a broken twin summing its first block only: fine up to 256 elements,
// wrong from 257 on. The reduced case keeps 257 and says that 256 passes.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "broken_kernels_cpu.h"
#include "casebook/loader.h"
#include "kernel_ops/kernel_ops.h"
#include "process/scratch_folder.h"
#include "runner/reduce.h"
#include "simulated_device.h"

namespace casebook {
namespace {

ReduceResult reduce_on_simulated_device(const std::string& text) {
  const ScratchFolder folder("reduce-test");
  const std::filesystem::path file =
      std::filesystem::path(folder.path()) / "sum.yaml";
  std::ofstream(file) << text;
  ReduceRequest request;
  request.original = load_case_file(file);
  EXPECT_TRUE(request.original.ok());
  request.backend = Backend::kCuda;
  request.run.registry = &simulated_device::registry();
  return reduce_case(request);
}

bool said(const std::vector<std::string>& lines, const std::string& part) {
  return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) {
    return l.find(part) != std::string::npos;
  });
}

std::string kept_text(const ReduceResult& result) {
  std::string text;
  for (const std::string& line : result.kept) text += line + "\n";
  for (const std::string& line : result.removed) text += line + "\n";
  return text + result.stopped;
}

TEST(ReduceKernels, ALengthThresholdIsKeptAndTheLengthThatPassesSaid) {
  const simulated_device::Installed device(Backend::kCuda);
  kernel_glue::KernelCpuImplementations broken;
  broken.sum = &broken::sum_first_block_only_cpu;
  const simulated_device::KernelsReplaced replaced(broken);
  const ReduceResult result = reduce_on_simulated_device(
      "casebook: 1\nsummary: sum of 1000\nop: kernels.sum\n"
      "backends: [cpu, cuda]\ninputs:\n"
      "  input: {shape: [1000], dtype: float32, fill: {uniform: {low: 0, "
      "high: 1}}, seed: 1000}\n");
  ASSERT_EQ(result.outcome, ReduceResult::Outcome::kReduced)
      << result.original.message;
  EXPECT_EQ(result.failure.family, Family::kMismatch);
  ASSERT_EQ(result.reduced.inputs.size(), 1u);
  EXPECT_EQ(result.reduced.inputs[0].shape, std::vector<int64_t>{257})
      << kept_text(result);
  EXPECT_TRUE(said(result.kept, "`input` dim 0: fails at 257, passes at 256"))
      << kept_text(result);
  // 257 ones: the values do not matter, a constant written as a fill.
  EXPECT_EQ(result.reduced.inputs[0].source, TensorSpec::Source::kFill);
  EXPECT_EQ(result.reduced.inputs[0].fill.first, 1.0);
}

// A layout the broken kernel needs (it reads the input as if contiguous)
// stays, said.
TEST(ReduceKernels, ALayoutTheFailureNeedsStays) {
  const simulated_device::Installed device(Backend::kCuda);
  kernel_glue::KernelCpuImplementations broken;
  broken.softmax = &broken::softmax_stride_ignored_cpu;
  const simulated_device::KernelsReplaced replaced(broken);
  const ReduceResult result = reduce_on_simulated_device(
      "casebook: 1\nsummary: softmax of a transposed input\n"
      "op: kernels.softmax\nbackends: [cpu, cuda]\ninputs:\n"
      "  input: {shape: [6, 5], dtype: float32, fill: {normal: {mean: 0, "
      "std: 1}}, seed: 4, layout: {transpose: [0, 1]}}\n");
  ASSERT_EQ(result.outcome, ReduceResult::Outcome::kReduced)
      << result.original.message;
  EXPECT_EQ(result.reduced.inputs[0].layout.kind, Layout::Kind::kTranspose);
  EXPECT_TRUE(said(result.kept,
                   "layout of `input` (transpose [0, 1]): "
                   "contiguous, the case passes"))
      << kept_text(result);
}

}  // namespace
}  // namespace casebook
