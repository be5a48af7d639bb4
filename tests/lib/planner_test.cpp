// The planner's functions (runner/planner.h), called as functions: which GPU
// backends a plan probes, what --require makes of an absent one, the jobs of
// each selected pair (references sharing the CPU's child), NOT RUN after an
// interruption, and the order verdicts are reported in. No child process
// starts here.
#include "runner/planner.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runner/run_state.h"

namespace casebook {
namespace {

namespace fs = std::filesystem;

const Selection kAll = [](const PlannedCase&, Backend) { return true; };

PartReadiness part_of(Readiness state, const std::string& absent_reason) {
  return PartReadiness{
      state, state == Readiness::kAbsent ? absent_reason : "", {}, {}};
}

// A backend whose two parts are `torch` and `kernels`.
BackendStatus status_of(Backend backend, Readiness torch, Readiness kernels) {
  return combine_readiness(backend, part_of(torch, "no device"),
                           part_of(kernels, "no plugin"));
}

// Both parts alike, as on a machine without the device.
BackendStatus status_of(Readiness state) {
  return combine_readiness(Backend::kCuda, part_of(state, "no device"),
                           part_of(state, "no device"));
}

class Planner : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/casebook-planner-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    root_ = pattern;
  }
  void TearDown() override { fs::remove_all(root_); }

  // A case of torch.neg on `backends`; `extra` is appended.
  void write_case(const std::string& stem, const std::string& extra = "",
                  const std::string& backends = "[cpu, cuda]") {
    std::ofstream(root_ / (stem + ".yaml"))
        << "casebook: 1\nsummary: " << stem
        << "\nop: torch.neg\nbackends: " << backends << "\n"
        << "inputs:\n  input: {dtype: float32, values: [1, 2]}\n"
        << extra;
  }

  Plan plan(std::vector<Backend> backends = {Backend::kCpu, Backend::kCuda}) {
    RunOptions options;
    options.backends = std::move(backends);
    return load_plan({root_}, options);
  }

  fs::path root_;
};

std::vector<JobKind> kinds_of(const JobPlan& jobs, const PlannedCase& planned,
                              Backend backend) {
  std::vector<JobKind> kinds;
  for (size_t index : planned.jobs) {
    if (jobs.jobs[index].backend == backend) {
      kinds.push_back(jobs.jobs[index].kind);
    }
  }
  return kinds;
}

TEST_F(Planner, ProbesTheGpuBackendsARunnableCaseRunsOnAndTheRequiredOnes) {
  write_case("skipped", "expect:\n  cuda: skip\n");
  Plan skipped = plan();
  EXPECT_TRUE(backends_to_probe(skipped, kAll, {}).empty());
  // Required: probed all the same, so that its absence can be an error.
  EXPECT_EQ(backends_to_probe(skipped, kAll, {Backend::kCuda}),
            (std::vector<Backend>{Backend::kCuda}));
  // A skip that reads the device's facts may not hold: probed.
  write_case("capability",
             "expect:\n  cuda:\n    - when: {capability: '>=9.0'}\n"
             "      error: index_out_of_range\n    - skip: old devices\n");
  Plan conditional = plan();
  EXPECT_EQ(backends_to_probe(conditional, kAll, {}),
            (std::vector<Backend>{Backend::kCuda}));
  // Unselected: not probed.
  const Selection cpu_only = [](const PlannedCase&, Backend backend) {
    return backend == Backend::kCpu;
  };
  EXPECT_TRUE(backends_to_probe(conditional, cpu_only, {}).empty());
}

TEST_F(Planner, TheRunsExpectationReadsTheProbedDeviceAndLeavesTheCase) {
  write_case("capability",
             "expect:\n  cuda:\n    - when: {capability: '>=9.0'}\n"
             "      skip: hopper\n"
             "  hip:\n    - when: {gfx: [gfx942]}\n      skip: cdna\n",
             "[cpu, cuda, hip]");
  Plan probed = plan({Backend::kCpu, Backend::kCuda, Backend::kHip});
  ASSERT_EQ(probed.cases.size(), 1u);
  const PlannedCase& planned = probed.cases[0];
  ASSERT_TRUE(planned.runnable());
  EXPECT_EQ(expectation_in_run(probed, planned, Backend::kCuda).kind,
            Expectation::Kind::kMatch);  // no device known yet
  probed.device_facts[Backend::kCuda] = {{"capability", "9.0"}};
  EXPECT_EQ(expectation_in_run(probed, planned, Backend::kCuda).reason,
            "hopper");
  // The judge is handed the same answer.
  const PairInRun cuda =
      pair_in_run(probed, {{Backend::kCuda, status_of(Readiness::kReady)}},
                  planned, Backend::kCuda);
  ASSERT_TRUE(cuda.expect.has_value());
  EXPECT_EQ(cuda.expect->reason, "hopper");
  EXPECT_TRUE(cuda.needed.ready());
  // cuda's facts are not hip's.
  probed.device_facts[Backend::kHip] = {{"capability", "9.0"}};
  EXPECT_EQ(expectation_in_run(probed, planned, Backend::kHip).kind,
            Expectation::Kind::kMatch);
  // The case is as it was loaded; the plan's jobs follow the run's answer.
  EXPECT_EQ(planned.value().expectation(Backend::kCuda).kind,
            Expectation::Kind::kMatch);
  const JobPlan jobs =
      plan_jobs(probed,
                {{Backend::kCuda, status_of(Readiness::kReady)},
                 {Backend::kHip, status_of(Readiness::kReady)}},
                kAll);
  EXPECT_TRUE(kinds_of(jobs, probed.cases[0], Backend::kCuda).empty());
  EXPECT_EQ(kinds_of(jobs, probed.cases[0], Backend::kHip).size(), 1u);
}

TEST_F(Planner, ARequiredBackendThatIsAbsentIsBrokenSayingWhy) {
  std::map<Backend, BackendStatus> statuses = {
      {Backend::kCuda, status_of(Readiness::kAbsent)},
      {Backend::kHip, status_of(Readiness::kAbsent)}};
  apply_required({Backend::kCuda}, &statuses);
  EXPECT_EQ(statuses[Backend::kCuda].state, Readiness::kBroken);
  EXPECT_EQ(statuses[Backend::kCuda].reason,
            "required (--require, $CASEBOOK_REQUIRE) but absent: no device");
  EXPECT_EQ(statuses[Backend::kHip].state, Readiness::kAbsent);
}

TEST_F(Planner, ARequiredBackendsAbsentPartIsBrokenAndTheOtherStillRuns) {
  // A CUDA LibTorch on a device, without casebook's kernel plugin.
  std::map<Backend, BackendStatus> statuses = {
      {Backend::kCuda,
       status_of(Backend::kCuda, Readiness::kReady, Readiness::kAbsent)}};
  ASSERT_EQ(statuses[Backend::kCuda].state, Readiness::kReady);
  apply_required({Backend::kCuda}, &statuses);
  const BackendStatus& cuda = statuses[Backend::kCuda];
  EXPECT_EQ(cuda.state, Readiness::kReady);
  EXPECT_EQ(cuda.torch.state, Readiness::kReady);
  EXPECT_EQ(cuda.kernels.state, Readiness::kBroken);
  EXPECT_EQ(cuda.kernels.reason,
            "required (--require, $CASEBOOK_REQUIRE) but absent: no plugin");
}

TEST_F(Planner, AGpuRunNeedsThePartItsOpNeeds) {
  write_case("a_torch");
  std::ofstream(root_ / "b_kernel.yaml")
      << "casebook: 1\nsummary: k\nop: kernels.sum\nbackends: [cpu, cuda]\n"
      << "inputs:\n  input: {dtype: float32, values: [1, 2]}\n";
  Plan mixed = plan();
  ASSERT_EQ(mixed.cases.size(), 2u);
  ASSERT_TRUE(mixed.cases[1].runnable());
  const std::map<Backend, BackendStatus> torch_only = {
      {Backend::kCuda,
       status_of(Backend::kCuda, Readiness::kReady, Readiness::kAbsent)}};
  const JobPlan jobs = plan_jobs(mixed, torch_only, kAll);
  EXPECT_EQ(kinds_of(jobs, mixed.cases[0], Backend::kCuda).size(), 1u);
  EXPECT_TRUE(kinds_of(jobs, mixed.cases[1], Backend::kCuda).empty());
  // The judge is given that part: the kernel case's is the plugin's.
  const std::optional<PartReadiness> kernel_part =
      readiness_for_case(torch_only, mixed.cases[1], Backend::kCuda);
  ASSERT_TRUE(kernel_part.has_value());
  EXPECT_EQ(kernel_part->state, Readiness::kAbsent);
  EXPECT_EQ(kernel_part->reason, "no plugin");
  EXPECT_FALSE(readiness_for_case(torch_only, mixed.cases[1], Backend::kCpu)
                   .has_value());
  // The pair in this run needs that part; the backend itself is there.
  const PairInRun kernel_pair =
      pair_in_run(mixed, torch_only, mixed.cases[1], Backend::kCuda);
  EXPECT_EQ(kernel_pair.needed.state, Readiness::kAbsent);
  EXPECT_EQ(kernel_pair.needed.reason, "no plugin");
  EXPECT_FALSE(kernel_pair.backend_absent);
  EXPECT_TRUE(pair_in_run(mixed, torch_only, mixed.cases[1], Backend::kCpu)
                  .needed.ready());
  // No device at all: every pair on it is the whole backend's skip.
  const PairInRun no_device =
      pair_in_run(mixed, {{Backend::kCuda, status_of(Readiness::kAbsent)}},
                  mixed.cases[0], Backend::kCuda);
  EXPECT_EQ(no_device.needed.state, Readiness::kAbsent);
  EXPECT_TRUE(no_device.backend_absent);
  // The simulated device's shape: the plugin alone.
  const std::map<Backend, BackendStatus> plugin_only = {
      {Backend::kCuda,
       status_of(Backend::kCuda, Readiness::kAbsent, Readiness::kReady)}};
  const JobPlan other = plan_jobs(mixed, plugin_only, kAll);
  EXPECT_TRUE(kinds_of(other, mixed.cases[0], Backend::kCuda).empty());
  EXPECT_EQ(kinds_of(other, mixed.cases[1], Backend::kCuda).size(), 1u);
}

TEST_F(Planner, ABrokenBackendIsNeverHalfRun) {
  write_case("torch_op");
  Plan one = plan();
  // LibTorch's device is there; the plugin file does not load.
  const std::map<Backend, BackendStatus> broken = {
      {Backend::kCuda,
       combine_readiness(
           Backend::kCuda, part_of(Readiness::kReady, ""),
           PartReadiness{Readiness::kBroken, "bad ELF", {}, {}})}};
  ASSERT_EQ(broken.at(Backend::kCuda).state, Readiness::kBroken);
  const JobPlan jobs = plan_jobs(one, broken, kAll);
  EXPECT_TRUE(kinds_of(jobs, one.cases[0], Backend::kCuda).empty());
  const std::optional<PartReadiness> deciding =
      readiness_for_case(broken, one.cases[0], Backend::kCuda);
  ASSERT_TRUE(deciding.has_value());
  EXPECT_EQ(deciding->state, Readiness::kBroken);
  EXPECT_EQ(deciding->reason, "the kernel plugin: bad ELF");
}

TEST_F(Planner, ACpu64CaseSharesTheCpusChildAndRunsOnAReadyGpu) {
  write_case("wide", "reference: cpu64\n");
  Plan wide = plan();
  ASSERT_EQ(wide.cases.size(), 1u);
  const JobPlan ready =
      plan_jobs(wide, {{Backend::kCuda, status_of(Readiness::kReady)}}, kAll);
  const PlannedCase& planned = wide.cases[0];
  ASSERT_EQ(ready.jobs.size(), 3u);
  EXPECT_EQ(kinds_of(ready, planned, Backend::kCpu),
            (std::vector<JobKind>{JobKind::kReferenceCpu64, JobKind::kRun}));
  EXPECT_EQ(kinds_of(ready, planned, Backend::kCuda),
            (std::vector<JobKind>{JobKind::kRun}));
  const Job* reference = reference_job(ready.jobs, planned);
  ASSERT_NE(reference, nullptr);
  EXPECT_EQ(reference->kind, JobKind::kReferenceCpu64);
  ASSERT_GE(reference->then_job, 0);
  const Job& cpu_run = ready.jobs[static_cast<size_t>(reference->then_job)];
  EXPECT_EQ(cpu_run.kind, JobKind::kRun);
  EXPECT_EQ(cpu_run.backend, Backend::kCpu);
  EXPECT_TRUE(cpu_run.second);
  // The run's state starts with every job of the case to finish.
  EXPECT_EQ(RunState(wide.cases, ready.jobs.size()).jobs_left,
            (std::vector<size_t>{3}));
  EXPECT_EQ(ready.table.cases.size(), 1u);
  EXPECT_EQ(ready.order, (std::vector<size_t>{0}));
}

TEST_F(Planner, AGpuThatIsNotReadyGetsNoJobAndACudaOnlyRunNeedsNoCpu) {
  write_case("plain");
  Plan absent = plan();
  const JobPlan without = plan_jobs(
      absent, {{Backend::kCuda, status_of(Readiness::kAbsent)}}, kAll);
  EXPECT_EQ(kinds_of(without, absent.cases[0], Backend::kCuda).size(), 0u);
  EXPECT_EQ(kinds_of(without, absent.cases[0], Backend::kCpu),
            (std::vector<JobKind>{JobKind::kRun}));
  // cuda alone selected, cuda absent: nothing to run, not even the CPU.
  Plan cuda_lane = plan({Backend::kCuda});
  const JobPlan lane = plan_jobs(cuda_lane, {}, kAll);
  EXPECT_TRUE(lane.jobs.empty());
  EXPECT_EQ(lane.order, (std::vector<size_t>{0}));  // still judged: SKIP
  // cuda alone selected and ready: the CPU runs as its reference.
  Plan reference = plan({Backend::kCuda});
  const JobPlan with = plan_jobs(
      reference, {{Backend::kCuda, status_of(Readiness::kReady)}}, kAll);
  EXPECT_EQ(kinds_of(with, reference.cases[0], Backend::kCpu),
            (std::vector<JobKind>{JobKind::kRun}));
}

TEST_F(Planner, ABrokenFileIsOrderedAndJudgedButHasNoJob) {
  write_case("a_fine");
  std::ofstream(root_ / "b_broken.yaml") << "casebook: 1\nsummary: s\n";
  Plan mixed = plan({Backend::kCpu});
  ASSERT_EQ(mixed.cases.size(), 2u);
  const JobPlan jobs = plan_jobs(mixed, {}, kAll);
  EXPECT_EQ(jobs.order, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(jobs.jobs.size(), 1u);
  EXPECT_TRUE(mixed.cases[1].jobs.empty());
  EXPECT_EQ(reference_job(jobs.jobs, mixed.cases[1]), nullptr);
}

TEST_F(Planner, InterruptedCasesAreNotRunAndVerdictsComeInPlanOrder) {
  write_case("a");
  write_case("b");
  Plan two = plan();
  JobPlan jobs =
      plan_jobs(two, {{Backend::kCuda, status_of(Readiness::kReady)}}, kAll);
  RunState state(two.cases, jobs.jobs.size());
  state.jobs_left[0] = 0;  // finished
  const std::vector<CaseVerdict> unrun =
      not_run_verdicts(two, jobs.order, kAll, RunOptions{}, state.jobs_left, 2);
  ASSERT_EQ(unrun.size(), 2u);
  EXPECT_EQ(unrun[0].case_id, "b");
  EXPECT_EQ(unrun[0].backend, Backend::kCpu);
  EXPECT_EQ(unrun[1].backend, Backend::kCuda);
  EXPECT_EQ(unrun[0].verdict, Verdict::kNotRun);
  EXPECT_EQ(unrun[0].message, "not run: interrupted by signal 2");

  std::vector<CaseVerdict> landed;
  for (const auto& [id, backend] :
       std::vector<std::pair<std::string, Backend>>{{"b", Backend::kCuda},
                                                    {"a", Backend::kCuda},
                                                    {"b", Backend::kCpu},
                                                    {"a", Backend::kCpu}}) {
    CaseVerdict verdict;
    verdict.case_id = id;
    verdict.backend = backend;
    verdict.file = two.cases[id == "a" ? 0 : 1].loaded.file;
    landed.push_back(verdict);
  }
  order_verdicts(two, &landed);
  std::vector<std::string> got;
  for (const CaseVerdict& verdict : landed) {
    got.push_back(verdict.case_id + "/" +
                  std::string(backend_name(verdict.backend)));
  }
  EXPECT_EQ(got,
            (std::vector<std::string>{"a/cpu", "a/cuda", "b/cpu", "b/cuda"}));
}

}  // namespace
}  // namespace casebook
