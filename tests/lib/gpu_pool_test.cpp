// The GPU worker pool end to end, on the simulated device
// (tests/support/simulated_device.h) standing in for cuda: real worker
// processes, real pipes, real kills. Reuse across cases, retirement on a
// sticky error, the confirming rerun, at most two fresh workers per poisoning
// case, a timeout taking down the worker's group, strict isolation.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "runner/session.h"
#include "simulated_device.h"
#include "test_ops.h"

namespace casebook {
namespace {

namespace fs = std::filesystem;

class GpuPool : public ::testing::Test {
 protected:
  void SetUp() override {
    testing_support::use_single_thread();
    std::string pattern = (fs::temp_directory_path() / "gpu-pool-XXXXXX");
    dir_ = mkdtemp(pattern.data());
    simulated_device::install();
  }
  void TearDown() override {
    simulated_device::uninstall();
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  // cases/case_NNN.yaml: testing.simulated_step with `then`, expecting
  // `expect_cuda` (a family) on cuda when not empty.
  void write_case(int number, const std::string& then,
                  const std::string& expect_cuda = "", double timeout = 30.0) {
    char name[32];
    std::snprintf(name, sizeof(name), "case_%03d.yaml", number);
    fs::create_directories(dir_ / "cases");
    std::ofstream file(dir_ / "cases" / name);
    file << "casebook: 1\n"
         << "summary: simulated step " << number << " (" << then << ")\n"
         << "op: testing.simulated_step\n"
         << "backends: [cpu, cuda]\n"
         << "args: {then: " << then << ", pid_log: '" << pid_log().string()
         << "', pid_file: '" << (dir_ / "grandchild.pid").string() << "'}\n"
         << "inputs:\n  input: {dtype: float32, values: [1, 2, " << number
         << "]}\n"
         << "timeout: " << timeout << "\n";
    if (!expect_cuda.empty()) {
      file << "expect:\n  cuda: {error: " << expect_cuda << "}\n";
    }
  }

  Execution run(Isolation isolation = Isolation::kPooled) {
    RunOptions options;
    options.backends = {Backend::kCpu, Backend::kCuda};
    options.isolation = isolation;
    options.jobs = 2;
    options.registry = &simulated_device::registry();
    Plan plan = load_plan({dir_ / "cases"}, options);
    return execute_plan(
        plan, options, [](const PlannedCase&, Backend) { return true; },
        nullptr);
  }

  fs::path pid_log() const { return dir_ / "pids.log"; }

  // The pids of the processes that ran testing.simulated_step on cuda, in
  // order.
  std::vector<pid_t> worker_pids() const {
    std::vector<pid_t> pids;
    std::ifstream in(pid_log());
    for (pid_t pid; in >> pid;) pids.push_back(pid);
    return pids;
  }

  static const CaseVerdict& verdict(const Execution& execution, int number,
                                    Backend backend) {
    char id[32];
    std::snprintf(id, sizeof(id), "case_%03d", number);
    for (const CaseVerdict& v : execution.summary.verdicts) {
      if (v.case_id == id && v.backend == backend) return v;
    }
    throw std::runtime_error(std::string("no verdict for ") + id);
  }

  fs::path dir_;
};

TEST_F(GpuPool, OneWorkerRunsEveryCleanCase) {
  for (int i = 0; i < 5; ++i) write_case(i, "pass");
  Execution execution = run();
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(verdict(execution, i, Backend::kCuda).verdict, Verdict::kPass)
        << verdict(execution, i, Backend::kCuda).message;
  }
  EXPECT_EQ(execution.workers_started, 1);
  EXPECT_EQ(execution.confirm_reruns, 0);
  const std::vector<pid_t> pids = worker_pids();
  ASSERT_EQ(pids.size(), 5u);
  EXPECT_EQ(std::set<pid_t>(pids.begin(), pids.end()).size(), 1u);
  EXPECT_NE(pids.front(), getpid());
}

TEST_F(GpuPool, AStickyErrorRetiresTheWorkerAndIsConfirmedAlone) {
  write_case(0, "pass");
  write_case(1, "sticky", "device_assert");
  write_case(2, "pass");
  Execution execution = run();
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(verdict(execution, i, Backend::kCuda).verdict, Verdict::kPass)
        << verdict(execution, i, Backend::kCuda).message;
  }
  const CaseVerdict& poisoning = verdict(execution, 1, Backend::kCuda);
  EXPECT_EQ(poisoning.family, Family::kDeviceAssert);
  EXPECT_NE(poisoning.message.find("cudaErrorAssert"), std::string::npos);
  EXPECT_NE(poisoning.details.find("rerun alone in a fresh process: confirmed"),
            std::string::npos)
      << poisoning.details;
  // The first worker, a fresh one for the rerun, a fresh one after it.
  EXPECT_EQ(execution.workers_started, 3);
  EXPECT_EQ(execution.confirm_reruns, 1);
  const std::vector<pid_t> pids = worker_pids();
  ASSERT_EQ(pids.size(), 4u);  // case 0, case 1, its rerun, case 2
  EXPECT_EQ(pids[0], pids[1]);
  EXPECT_NE(pids[2], pids[1]);
  EXPECT_NE(pids[3], pids[2]);
  EXPECT_NE(pids[3], pids[1]);
}

// Without the synchronize after each case, the sticky error of case 1 would
// surface in case 2 and blame it: the device reports errors late.
TEST_F(GpuPool, AnUnexpectedStickyErrorFailsItsOwnCaseNotTheNext) {
  write_case(0, "sticky");
  write_case(1, "pass");
  Execution execution = run();
  const CaseVerdict& poisoning = verdict(execution, 0, Backend::kCuda);
  EXPECT_EQ(poisoning.verdict, Verdict::kFail);
  EXPECT_EQ(poisoning.family, Family::kDeviceAssert);
  EXPECT_EQ(verdict(execution, 1, Backend::kCuda).verdict, Verdict::kPass);
}

TEST_F(GpuPool, ANonStickyErrorKeepsTheWorker) {
  write_case(0, "pass");
  write_case(1, "error", "out_of_memory");
  write_case(2, "pass");
  Execution execution = run();
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(verdict(execution, i, Backend::kCuda).verdict, Verdict::kPass)
        << verdict(execution, i, Backend::kCuda).message;
  }
  EXPECT_EQ(execution.workers_started, 1);
  EXPECT_EQ(execution.confirm_reruns, 0);
}

TEST_F(GpuPool, ACrashIsRerunAloneAndTheNextCaseGetsAFreshWorker) {
  write_case(0, "pass");
  write_case(1, "crash", "crash");
  write_case(2, "pass");
  Execution execution = run();
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(verdict(execution, i, Backend::kCuda).verdict, Verdict::kPass)
        << verdict(execution, i, Backend::kCuda).message;
  }
  EXPECT_NE(verdict(execution, 1, Backend::kCuda).message.find("signal 11"),
            std::string::npos);
  EXPECT_EQ(execution.workers_started, 3);
  EXPECT_EQ(execution.confirm_reruns, 1);
}

TEST_F(GpuPool, ATimeoutTakesDownTheWorkersGroupAndIsNotRerun) {
  write_case(0, "hang", "", 0.5);
  write_case(1, "pass");
  Execution execution = run();
  const CaseVerdict& hung = verdict(execution, 0, Backend::kCuda);
  EXPECT_EQ(hung.verdict, Verdict::kTimeout);
  // The seconds as the case file wrote them, as `casebook show` says them.
  EXPECT_NE(hung.message.find(
                "no result after 0.5 s: killed the run's process group"),
            std::string::npos)
      << hung.message;
  EXPECT_EQ(verdict(execution, 1, Backend::kCuda).verdict, Verdict::kPass);
  EXPECT_EQ(execution.workers_started, 2);
  EXPECT_EQ(execution.confirm_reruns, 0);
  pid_t grandchild = 0;
  std::ifstream(dir_ / "grandchild.pid") >> grandchild;
  ASSERT_GT(grandchild, 0);
  // Killed with the group; gone once its new parent reaped it.
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    gone = kill(grandchild, 0) != 0 && errno == ESRCH;
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(gone) << "grandchild " << grandchild << " outlived the timeout";
}

TEST_F(GpuPool, StrictIsolationGivesEveryRunAFreshWorker) {
  for (int i = 0; i < 3; ++i) write_case(i, "pass");
  Execution execution = run(Isolation::kStrict);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(verdict(execution, i, Backend::kCuda).verdict, Verdict::kPass);
  }
  EXPECT_EQ(execution.workers_started, 3);
  const std::vector<pid_t> pids = worker_pids();
  EXPECT_EQ(std::set<pid_t>(pids.begin(), pids.end()).size(), 3u);
}

// The set of the issue: 100 cases, poisoning ones at 10, 50 and 90. Every
// verdict PASS; one worker to start, two fresh ones per poisoning case.
TEST_F(GpuPool, HundredCasesWithThreePoisoningOnesAllPassWithSevenWorkers) {
  simulated_device::write_poisoning_set(dir_ / "cases", 100, {10, 50, 90});
  Execution execution = run();
  ASSERT_EQ(execution.summary.verdicts.size(), 200u);
  for (const CaseVerdict& v : execution.summary.verdicts) {
    EXPECT_EQ(v.verdict, Verdict::kPass)
        << v.case_id << " " << backend_name(v.backend) << ": " << v.message;
  }
  EXPECT_EQ(execution.workers_started, 7);
  EXPECT_EQ(execution.confirm_reruns, 3);
}

// `when: {capability: ...}` reads the capability the device's probe
// reported (the simulated device's 8.6), for expect.cuda entries only.
TEST_F(GpuPool, ConditionsOnTheDeviceReadItsProbedCapability) {
  write_case(0, "sticky");
  write_case(1, "pass");
  {
    std::ofstream more(dir_ / "cases" / "case_000.yaml", std::ios::app);
    more << "expect:\n  cuda:\n"
         << "    - {when: {capability: '>=9.0'}, skip: sm_90 only}\n"
         << "    - {when: {capability: '" << simulated_device::kCapability
         << "'}, error: device_assert}\n";
  }
  {
    std::ofstream more(dir_ / "cases" / "case_001.yaml", std::ios::app);
    more
        << "expect:\n  cuda: [{when: {capability: '<8.0'}, skip: pre-sm_80}]\n";
  }
  Execution execution = run();
  EXPECT_EQ(verdict(execution, 0, Backend::kCuda).verdict, Verdict::kPass)
      << verdict(execution, 0, Backend::kCuda).message;
  EXPECT_EQ(verdict(execution, 1, Backend::kCuda).verdict, Verdict::kPass)
      << verdict(execution, 1, Backend::kCuda).message;
  EXPECT_EQ(execution.backends[Backend::kCuda].facts.at("capability"),
            simulated_device::kCapability);
}

// Before the probe no device fact is known, so an unconditional skip after
// a condition on one would have kept the backend from being probed at all.
TEST_F(GpuPool, ASkipThatADeviceConditionMayOverrideStillProbes) {
  write_case(0, "sticky");
  {
    std::ofstream more(dir_ / "cases" / "case_000.yaml", std::ios::app);
    more << "expect:\n  cuda:\n"
         << "    - {when: {capability: '8.6'}, error: device_assert}\n"
         << "    - {skip: asserts only on sm_86}\n";
  }
  Execution execution = run();
  EXPECT_EQ(verdict(execution, 0, Backend::kCuda).verdict, Verdict::kPass)
      << verdict(execution, 0, Backend::kCuda).message;
}

}  // namespace
}  // namespace casebook
