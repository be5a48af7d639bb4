// The fork rules live in the library: a runner with a second thread, or with
// a GPU runtime initialised, refuses to fork, whoever calls it.
#include "process/fork_rules.h"

#include <ATen/Parallel.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "casebook/runner.h"
#include "child/fork_safe_aten.h"
#include "process/subprocess.h"
#include "test_ops.h"

namespace casebook {
namespace {

TEST(ForkRules, OneThreadAndNoGpuMayFork) {
  EXPECT_EQ(fork_refusal(ForkFacts{}), "");
}

// What every process that forks asks for (the CLI's commands, the test
// programs): ATen's intra-op work on one thread, whatever was set before.
TEST(ForkRules, KeepAtenSingleThreadedLeavesOneIntraOpThread) {
  at::set_num_threads(2);  // sets the count only: no parallel region runs
  keep_aten_single_threaded();
  EXPECT_EQ(at::get_num_threads(), 1);
}

TEST(ForkRules, MoreThanOneThreadIsRefused) {
  ForkFacts facts;
  facts.threads = 5;
  EXPECT_NE(fork_refusal(facts).find("5 threads"), std::string::npos);
}

TEST(ForkRules, AnOpenOrMappedGpuDeviceIsRefused) {
  ForkFacts nvidia;
  nvidia.gpu_files = {"/dev/nvidiactl"};
  EXPECT_NE(fork_refusal(nvidia).find("/dev/nvidiactl is open"),
            std::string::npos);
  ForkFacts kfd;
  kfd.gpu_files = {"/dev/kfd"};
  EXPECT_NE(fork_refusal(kfd).find("/dev/kfd"), std::string::npos);
  ForkFacts mapped;
  mapped.gpu_mappings = {"/dev/nvidia-uvm"};
  EXPECT_NE(fork_refusal(mapped).find("/dev/nvidia-uvm is mapped"),
            std::string::npos);
}

// A tool wrapped around casebook (compute-sanitizer) starts a thread of its
// own in each process it follows; CASEBOOK_TOOL_THREADS says how many, and
// only those are not counted.
TEST(ForkRules, ThreadsAToolStartedAreNotCountedAndNoMore) {
  ForkFacts sanitized;
  sanitized.threads = 2;
  sanitized.tool_threads = 1;
  EXPECT_EQ(fork_refusal(sanitized), "");
  sanitized.threads = 3;
  EXPECT_NE(fork_refusal(sanitized).find("3 threads (1 of them a tool's"),
            std::string::npos);
  for (const auto& [text, count] : std::vector<std::pair<const char*, int>>{
           {"1", 1}, {"16", 16}, {"17", 0}, {"-1", 0}, {"1x", 0}, {"", 0}}) {
    ASSERT_EQ(setenv("CASEBOOK_TOOL_THREADS", text, 1), 0);
    EXPECT_EQ(read_fork_facts().tool_threads, count) << text;
  }
  unsetenv("CASEBOOK_TOOL_THREADS");
  EXPECT_EQ(read_fork_facts().tool_threads, 0);
}

TEST(ForkRules, ThisTestProcessIsSingleThreadedAndHasNoGpu) {
  testing_support::use_single_thread();
  const ForkFacts facts = read_fork_facts();
  EXPECT_EQ(facts.threads, 1);
  EXPECT_TRUE(facts.gpu_files.empty());
  EXPECT_TRUE(facts.gpu_mappings.empty());
}

// What a CUDA LibTorch does on a machine with a driver (seen on an H200):
// libcuda.so is mapped from the start, with no context and no device file
// open. The runner forks all the same (it refused every run before).
TEST(ForkRules, TheCudaDriverLibraryMappedAloneIsNoReasonToRefuse) {
  testing_support::use_single_thread();
  void* driver = dlopen(CASEBOOK_FAKE_CUDA_DRIVER, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(driver, nullptr) << dlerror();
  std::ifstream maps("/proc/self/maps");
  const std::string mapped((std::istreambuf_iterator<char>(maps)), {});
  EXPECT_NE(mapped.find("/libcuda.so"), std::string::npos);
  EXPECT_EQ(fork_refusal(read_fork_facts()), "");
  RunOptions options;
  options.backends = {Backend::kCpu};
  options.registry = &testing_support::registry_with_test_ops();
  const RunSummary summary =
      run_cases({std::filesystem::path(CASEBOOK_TEST_DATA) / "isolation" /
                 "identity.yaml"},
                options);
  dlclose(driver);
  ASSERT_EQ(summary.verdicts.size(), 1u);
  EXPECT_EQ(summary.verdicts[0].verdict, Verdict::kPass);
}

// A real second thread: spawn_child and the whole runner refuse, with an
// internal error naming the thread count; once it ends, they fork again.
TEST(ForkRules, ASecondThreadMakesTheRunnerRefuseToFork) {
  testing_support::use_single_thread();
  std::mutex mutex;
  std::condition_variable wake;
  bool done = false;
  std::thread other([&] {
    std::unique_lock<std::mutex> lock(mutex);
    wake.wait(lock, [&] { return done; });
  });
  try {
    spawn_child([](int, int) { return 0; }, false);
    ADD_FAILURE() << "spawn_child forked with two threads";
  } catch (const ForkRefused& error) {
    EXPECT_NE(
        std::string(error.what()).find("internal error: refusing to fork"),
        std::string::npos)
        << error.what();
    EXPECT_NE(std::string(error.what()).find("2 threads"), std::string::npos)
        << error.what();
  }
  RunOptions options;
  options.backends = {Backend::kCpu};
  options.registry = &testing_support::registry_with_test_ops();
  EXPECT_THROW(run_cases({std::filesystem::path(CASEBOOK_TEST_DATA) /
                          "isolation" / "identity.yaml"},
                         options),
               ForkRefused);
  {
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
  }
  wake.notify_one();
  other.join();
  RunSummary summary = run_cases({std::filesystem::path(CASEBOOK_TEST_DATA) /
                                  "isolation" / "identity.yaml"},
                                 options);
  ASSERT_EQ(summary.verdicts.size(), 1u);
  EXPECT_EQ(summary.verdicts[0].verdict, Verdict::kPass);
}

}  // namespace
}  // namespace casebook
