// Proof that the harness catches kernel bugs, on the CPU (so CI proves it):
// each kernel's cases run through casebook::run_cases against a registry in
// which kernels.<name>'s CPU implementation is a deliberately broken twin
// (broken_kernels_cpu.h). The bug must come out as FAIL with the right
// family; with the real implementation every case must PASS.
#include <gtest/gtest.h>

#include "broken_kernels_cpu.h"
#include "casebook/ops.h"
#include "casebook/runner.h"
#include "common/kernel_list.h"
#include "kernel_ops/kernel_ops.h"
#include "kernel_test_support.h"

namespace casebook {
namespace {

using kernel_glue::KernelCpuImplementations;
using kernel_tests::failures;
using kernel_tests::kernel_cases;
using kernel_tests::verdict_of;

RunSummary run_on_cpu(const std::vector<std::filesystem::path>& paths,
                      const KernelCpuImplementations& cpu) {
  OpRegistry registry;
  kernel_glue::register_kernel_ops_with(registry, cpu);
  RunOptions options;
  options.backends = {Backend::kCpu};
  options.registry = &registry;
  return run_cases(paths, options);
}

void expect_caught(const RunSummary& summary, const std::string& case_id,
                   Family family, const std::string& message_start) {
  const CaseVerdict verdict = verdict_of(summary, case_id, Backend::kCpu);
  EXPECT_EQ(verdict.verdict, Verdict::kFail)
      << case_id << ": " << verdict.message;
  EXPECT_EQ(verdict.family, family) << case_id << ": " << verdict.message;
  EXPECT_EQ(verdict.message.rfind(message_start, 0), 0u)
      << case_id << ": " << verdict.message;
}

TEST(BrokenKernels, EveryKernelCasePassesWithTheRealImplementations) {
#define CASEBOOK_KERNEL_NAME(name, Args) #name,
  for (const char* kernel : {CASEBOOK_FOR_EACH_KERNEL(CASEBOOK_KERNEL_NAME)}) {
#undef CASEBOOK_KERNEL_NAME
    const RunSummary summary =
        run_on_cpu({kernel_cases(kernel)}, KernelCpuImplementations{});
    EXPECT_GT(summary.verdicts.size(), 10u) << kernel;
    EXPECT_EQ(failures(summary), "") << kernel;
    EXPECT_EQ(summary.exit_code(), 0) << kernel;
  }
}

TEST(BrokenKernels, SumWithItsTailDroppedFailsAsMismatch) {
  KernelCpuImplementations cpu;
  cpu.sum = &broken::sum_tail_dropped_cpu;
  const RunSummary summary = run_on_cpu({kernel_cases("sum")}, cpu);
  // Neighbours of vs_torch/boundaries.yaml, generated around the kernel's
  // block (256) and full grid (262144).
  expect_caught(summary,
                "kernels/sum/vs_torch/boundaries~block_boundaries[257]",
                Family::kMismatch, "");
  expect_caught(summary,
                "kernels/sum/vs_torch/boundaries~block_boundaries[262143]",
                Family::kMismatch, "");
  EXPECT_EQ(summary.exit_code(), 1);
}

TEST(BrokenKernels, SumOfTheFirstBlockOnlyFailsFromOneBlockPlusOne) {
  KernelCpuImplementations cpu;
  cpu.sum = &broken::sum_first_block_only_cpu;
  const RunSummary summary = run_on_cpu({kernel_cases("sum")}, cpu);
  expect_caught(summary,
                "kernels/sum/vs_torch/boundaries~block_boundaries[257]",
                Family::kMismatch, "");
  EXPECT_EQ(verdict_of(summary,
                       "kernels/sum/vs_torch/boundaries~block_boundaries[256]",
                       Backend::kCpu)
                .verdict,
            Verdict::kPass);
}

TEST(BrokenKernels, SumAccumulatingInHalfPrecisionFailsAsMismatch) {
  KernelCpuImplementations cpu;
  cpu.sum = &broken::sum_half_accumulation_cpu;
  const RunSummary summary = run_on_cpu({kernel_cases("sum")}, cpu);
  expect_caught(summary, "kernels/sum/vs_torch/float16_length_4097",
                Family::kMismatch, "");
  expect_caught(summary, "kernels/sum/vs_torch/bfloat16_length_4097",
                Family::kMismatch, "");
}

TEST(BrokenKernels, SoftmaxIgnoringTheStrideFailsAsMismatch) {
  KernelCpuImplementations cpu;
  cpu.softmax = &broken::softmax_stride_ignored_cpu;
  const RunSummary summary = run_on_cpu({kernel_cases("softmax")}, cpu);
  expect_caught(summary, "kernels/softmax/vs_torch/transposed",
                Family::kMismatch, "");
  EXPECT_EQ(
      verdict_of(summary,
                 "kernels/softmax/vs_torch/boundaries~block_boundaries[257]",
                 Backend::kCpu)
          .verdict,
      Verdict::kPass);
}

TEST(BrokenKernels, NllLossWithoutItsBoundCheckReturnsOutputsAndFails) {
  KernelCpuImplementations cpu;
  cpu.nll_loss = &broken::nll_loss_bound_check_removed_cpu;
  // Every bad target of these cases still lands inside the input's storage,
  // so the unchecked twin reads defined memory, as the GPU variant would.
  const RunSummary summary = run_on_cpu({kernel_cases("nll_loss")}, cpu);
  for (const char* id :
       {"kernels/nll_loss/target_equals_classes",
        "kernels/nll_loss/targets_out_of_range_first_reported"}) {
    expect_caught(summary, id, Family::kNone,
                  "expected index_out_of_range, got outputs");
  }
}

// Counting: an implementation that skips targets instead of failing passes
// every case judged against its own CPU reference (the reference skips the
// same targets); `processed` is what catches it, reference or not.
TEST(BrokenKernels, NllLossSkippingTargetsIsCaughtByItsCount) {
  KernelCpuImplementations cpu;
  cpu.nll_loss = &broken::nll_loss_last_class_skipped_cpu;
  const RunSummary summary = run_on_cpu({kernel_cases("nll_loss")}, cpu);
  // 3 and 3 of 4 classes skipped: 3 of the 5 counted targets remain.
  expect_caught(summary, "kernels/nll_loss/every_target_counted",
                Family::kSkippedEntries,
                "processed 3 entries, the case expects `processed: 5`: 2 "
                "skipped instead of failing");
  // The same skip, judged by values against its own reference: unseen.
  EXPECT_EQ(verdict_of(summary, "kernels/nll_loss/boundaries~last_batch[232]",
                       Backend::kCpu)
                .verdict,
            Verdict::kPass);
  // A bad target now gives outputs instead of the error the case expects.
  expect_caught(summary, "kernels/nll_loss/target_equals_classes",
                Family::kNone, "expected index_out_of_range, got outputs");
}

TEST(BrokenKernels, EmbeddingWithoutItsBoundCheckReturnsOutputsAndFails) {
  KernelCpuImplementations cpu;
  cpu.embedding = &broken::embedding_bound_check_removed_cpu;
  // index_past_end is left out: unchecked, it reads past the weight's
  // storage, which on the CPU is undefined behaviour (its GPU variant runs it).
  std::vector<std::filesystem::path> paths;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(
           kernel_cases("embedding"))) {
    if (entry.path().extension() == ".yaml" &&
        entry.path().stem() != "index_past_end") {
      paths.push_back(entry.path());
    }
  }
  const RunSummary summary = run_on_cpu(paths, cpu);
  expect_caught(summary, "kernels/embedding/index_negative", Family::kNone,
                "expected index_out_of_range, got outputs");
}

}  // namespace
}  // namespace casebook
