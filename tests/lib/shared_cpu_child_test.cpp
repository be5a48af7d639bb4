// A case's CPU reference (cpu64, torch) and its CPU run share one child: a
// `cpu64` case costs one fork, not two, with the verdicts of two children;
// a child lost in the reference fails the run too, and says so once.
#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "casebook/op_catalog.h"
#include "casebook/runner.h"
#include "test_ops.h"

namespace casebook {
namespace {

namespace fs = std::filesystem;

// Set before the run; the children inherit it through fork().
std::string g_pid_log;

// Logs "<pid> <dtype>" for every call, then does what `when` says on the
// part it names: float64 (the cpu64 reference) or float32 (the run).
OpDef logging_op(const std::string& name, const std::string& what,
                 at::ScalarType when) {
  OpDef def;
  def.name = name;
  def.inputs = {"input"};
  def.placement = OpDef::Placement::kHost;
  def.file = __FILE__;
  def.line = __LINE__;
  def.run = [what, when](const OpCall& call) {
    const at::Tensor& input = call.input(0);
    std::ofstream(g_pid_log, std::ios::app)
        << getpid() << " " << c10::toString(input.scalar_type()) << "\n";
    if (input.scalar_type() == when) {
      if (what == "segfault") raise(SIGSEGV);
      if (what == "hang") {
        while (true) pause();
      }
    }
    return std::vector<at::Tensor>{input.clone()};
  };
  return def;
}

const OpRegistry& registry() {
  static const OpRegistry registry = [] {
    OpRegistry r;
    register_all(r);
    testing_support::register_test_ops(r);
    r.add(logging_op("testing.pid_log", "", at::kDouble));
    r.add(logging_op("testing.segfault_in_reference", "segfault", at::kDouble));
    r.add(logging_op("testing.segfault_in_run", "segfault", at::kFloat));
    r.add(logging_op("testing.hang_in_reference", "hang", at::kDouble));
    return r;
  }();
  return registry;
}

class SharedCpuChild : public ::testing::Test {
 protected:
  void SetUp() override {
    testing_support::use_single_thread();
    char pattern[] = "/tmp/casebook-shared-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    root_ = pattern;
    g_pid_log = (root_ / "pids.log").string();
  }
  void TearDown() override { fs::remove_all(root_); }

  void write_case(const std::string& stem, const std::string& op,
                  const std::string& extra = "") {
    fs::create_directories(root_ / "cases");
    std::ofstream(root_ / "cases" / (stem + ".yaml"))
        << "casebook: 1\nsummary: " << stem << "\nop: " << op
        << "\nbackends: [cpu]\nreference: cpu64\n"
        << "inputs:\n  input: {dtype: float32, values: [1, 2, 3]}\n"
        << extra;
  }

  RunSummary run(bool fork_server, int jobs = 2) {
    RunOptions options;
    options.backends = {Backend::kCpu};
    options.jobs = jobs;
    options.cpu_fork_server = fork_server;
    options.registry = &registry();
    return run_cases({root_ / "cases"}, options);
  }

  // pid -> the dtypes it ran, in order.
  std::map<std::string, std::vector<std::string>> calls() const {
    std::map<std::string, std::vector<std::string>> by_pid;
    std::ifstream in(g_pid_log);
    for (std::string pid, dtype; in >> pid >> dtype;) {
      by_pid[pid].push_back(dtype);
    }
    return by_pid;
  }

  fs::path root_;
};

const CaseVerdict& shared_cpu_child_find(const RunSummary& summary,
                                         const std::string& id) {
  for (const CaseVerdict& verdict : summary.verdicts) {
    if (verdict.case_id == id) return verdict;
  }
  throw std::runtime_error("no verdict for " + id);
}

size_t shared_cpu_child_count_of(const std::string& text,
                                 const std::string& part) {
  size_t count = 0;
  for (size_t at = text.find(part); at != std::string::npos;
       at = text.find(part, at + 1)) {
    ++count;
  }
  return count;
}

// The words a run lost in its shared reference's child says, once.
void expect_lost_in_the_reference(const CaseVerdict& verdict,
                                  const std::string& how) {
  EXPECT_EQ(shared_cpu_child_count_of(verdict.message, how), 1u)
      << verdict.message;
  EXPECT_NE(verdict.message.find(
                "while running the reference (cpu64) that shares it"),
            std::string::npos)
      << verdict.message;
}

TEST_F(SharedCpuChild, ACpu64CaseCostsOneForkReferenceFirst) {
  for (bool fork_server : {true, false}) {
    SCOPED_TRACE(fork_server ? "fork server" : "runner forks");
    fs::remove(g_pid_log);
    for (int i = 0; i < 4; ++i) {
      write_case("case" + std::to_string(i), "testing.pid_log");
    }
    RunSummary summary = run(fork_server);
    ASSERT_EQ(summary.verdicts.size(), 4u);
    for (const CaseVerdict& verdict : summary.verdicts) {
      EXPECT_EQ(verdict.verdict, Verdict::kPass) << verdict.message;
    }
    const auto by_pid = calls();
    EXPECT_EQ(by_pid.size(), 4u);  // one child a case
    for (const auto& [pid, dtypes] : by_pid) {
      EXPECT_EQ(dtypes, (std::vector<std::string>{"Double", "Float"})) << pid;
    }
  }
}

TEST_F(SharedCpuChild, ACrashInTheReferenceFailsTheRunAndIsReportedOnce) {
  write_case("lost", "testing.segfault_in_reference");
  write_case("fine", "testing.pid_log");
  RunSummary summary = run(true);
  ASSERT_EQ(summary.verdicts.size(), 2u);
  const CaseVerdict& lost = shared_cpu_child_find(summary, "lost");
  EXPECT_EQ(lost.verdict, Verdict::kFail);
  EXPECT_EQ(lost.family, Family::kCrash);
  expect_lost_in_the_reference(lost, "signal 11");
  EXPECT_NE(lost.message.find("the run itself never started"),
            std::string::npos)
      << lost.message;
  EXPECT_EQ(shared_cpu_child_find(summary, "fine").verdict, Verdict::kPass);
  // The crashed child never ran the float32 part.
  size_t children = 0;
  for (const auto& [pid, dtypes] : calls()) {
    ++children;
    if (dtypes.size() == 1) {
      EXPECT_EQ(dtypes[0], "Double");
    }
  }
  EXPECT_EQ(children, 2u);
}

TEST_F(SharedCpuChild, ACrashInTheRunKeepsTheRunsOwnVerdict) {
  write_case("crash", "testing.segfault_in_run");
  RunSummary summary = run(true);
  ASSERT_EQ(summary.verdicts.size(), 1u);
  const CaseVerdict& crash = summary.verdicts[0];
  EXPECT_EQ(crash.verdict, Verdict::kFail);
  EXPECT_EQ(crash.family, Family::kCrash);
  EXPECT_EQ(crash.message.rfind("the run's process terminated by signal 11", 0),
            0u)
      << crash.message;
  EXPECT_EQ(crash.message.find("reference"), std::string::npos)
      << crash.message;
  const auto by_pid = calls();
  ASSERT_EQ(by_pid.size(), 1u);
  EXPECT_EQ(by_pid.begin()->second,
            (std::vector<std::string>{"Double", "Float"}));
}

TEST_F(SharedCpuChild, AHangInTheReferenceTimesOutTheRunOnce) {
  write_case("hang", "testing.hang_in_reference", "timeout: 0.5\n");
  RunSummary summary = run(false, 1);
  ASSERT_EQ(summary.verdicts.size(), 1u);
  const CaseVerdict& hang = summary.verdicts[0];
  EXPECT_EQ(hang.verdict, Verdict::kTimeout);
  EXPECT_EQ(hang.family, Family::kTimeout);
  expect_lost_in_the_reference(hang, "no result after 0.5 s: killed");
  EXPECT_GE(hang.seconds, 0.5);
  EXPECT_LT(hang.seconds, 5.0);
}

}  // namespace
}  // namespace casebook
