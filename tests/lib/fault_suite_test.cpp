// The fault suite: ops that segfault, abort, throw, hang, allocate until the
// child's memory limit, print megabytes to stdout and stderr, close their
// result channel, exit 0 without a result, or leave a grandchild holding the
// output open, run together with well-behaved neighbours. Each gets exactly
// one verdict of its family, the run completes, no process outlives it, and
// the JUnit file lists every case.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "casebook/runner.h"
#include "process_state.h"
#include "runner/junit.h"
#include "runner/output.h"
#include "test_ops.h"

namespace casebook {
namespace {
namespace fs = std::filesystem;

struct Fault {
  const char* op;
  Verdict verdict;
  Family family;
  const char* message_part;  // in the verdict's message
};

// The processes whose parent is `parent` (zombies included: they are
// reaped by their parent, which then still runs).
std::set<pid_t> children_of(pid_t parent) {
  std::set<pid_t> found;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return found;
  while (const dirent* entry = readdir(proc)) {
    const pid_t pid = static_cast<pid_t>(std::atoi(entry->d_name));
    if (pid <= 0) continue;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), {});
    const size_t close = text.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(text.substr(close + 2));
    char state = 0;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent) found.insert(pid);
  }
  closedir(proc);
  return found;
}

class FaultSuite : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("casebook-faults-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "cases");
    // A child may map 1 GiB beyond LibTorch: allocate_until_limit stops
    // there, far below this machine's memory.
    setenv("CASEBOOK_CHILD_MEMORY", "1G", 1);
  }
  void TearDown() override {
    unsetenv("CASEBOOK_CHILD_MEMORY");
    fs::remove_all(dir_);
  }
  void write_case(const std::string& name, const std::string& op,
                  const std::string& extra = "", int timeout = 10) {
    std::ofstream(dir_ / "cases" / (name + ".yaml"))
        << "casebook: 1\nsummary: " << op << " in the fault suite\nop: " << op
        << "\nbackends: [cpu]\ntimeout: " << timeout << "\n"
        << extra << "inputs:\n  input: {dtype: float32, values: [1, 2, 3]}\n";
  }
  fs::path dir_;
};

TEST_F(FaultSuite, EachFaultIsOneVerdictOfItsFamilyAndNothingSurvives) {
  const std::vector<Fault> faults = {
      {"testing.segfault", Verdict::kFail, Family::kCrash, "signal 11"},
      {"testing.abort", Verdict::kFail, Family::kCrash, "signal 6"},
      {"testing.throw", Verdict::kFail, Family::kContract,
       "shape [3] is not what this op takes"},
      {"testing.hang", Verdict::kTimeout, Family::kTimeout, ""},
      {"testing.allocate_until_limit", Verdict::kFail, Family::kOutOfMemory,
       ""},
      {"testing.flood", Verdict::kPass, Family::kNone, ""},
      {"testing.close_result_channel", Verdict::kFail, Family::kCrash, ""},
      {"testing.exit_without_result", Verdict::kFail, Family::kCrash, ""},
      {"testing.grandchild_holds_output", Verdict::kPass, Family::kNone, ""},
  };
  const fs::path pid_file = dir_ / "grandchild.pid";
  write_case("a_first", "testing.identity");
  for (const Fault& fault : faults) {
    const std::string name = std::string(fault.op).substr(8);
    std::string extra;
    if (name == "grandchild_holds_output") {
      extra = "args: {pid_file: \"" + pid_file.string() + "\"}\n";
    }
    if (name == "flood") extra = "args: {megabytes: 16}\n";
    write_case(name, fault.op, extra, name == "hang" ? 1 : 10);
  }
  write_case("z_last", "testing.identity");

  testing_support::use_single_thread();
  RunOptions options;
  options.backends = {Backend::kCpu};
  options.jobs = 2;
  options.registry = &testing_support::registry_with_test_ops();
  // Children write to the runner's stdout and stderr: send this run's to a
  // file (the flood would fill the test log), and restore them after.
  const fs::path output = dir_ / "children.out";
  std::fflush(stdout);
  std::fflush(stderr);
  const int saved_out = dup(1);
  const int saved_err = dup(2);
  const int sink = open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT_GE(sink, 0);
  dup2(sink, 1);
  dup2(sink, 2);
  close(sink);
  const auto started = std::chrono::steady_clock::now();
  const RunSummary summary = run_cases({dir_ / "cases"}, options);
  std::fflush(stdout);
  std::fflush(stderr);
  dup2(saved_out, 1);
  dup2(saved_err, 2);
  close(saved_out);
  close(saved_err);
  // 16 MiB on each stream went through, and the run went on.
  EXPECT_GE(fs::file_size(output), uint64_t{32} << 20);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started)
          .count();
  EXPECT_LT(seconds, 60.0);

  // Exactly one verdict per case.
  std::map<std::string, int> verdicts_per_case;
  for (const CaseVerdict& verdict : summary.verdicts) {
    ++verdicts_per_case[verdict.case_id];
  }
  EXPECT_EQ(verdicts_per_case.size(), faults.size() + 2);
  for (const auto& [id, count] : verdicts_per_case) {
    EXPECT_EQ(count, 1) << id;
  }
  auto find = [&](const std::string& id) -> const CaseVerdict* {
    for (const CaseVerdict& verdict : summary.verdicts) {
      if (verdict.case_id == id) return &verdict;
    }
    return nullptr;
  };
  for (const Fault& fault : faults) {
    const std::string name = std::string(fault.op).substr(8);
    const CaseVerdict* verdict = find(name);
    ASSERT_NE(verdict, nullptr) << name;
    EXPECT_EQ(verdict->verdict, fault.verdict)
        << name << ": " << verdict_name(verdict->verdict) << " "
        << verdict->message;
    EXPECT_EQ(verdict->family, fault.family)
        << name << ": " << family_name(verdict->family) << " "
        << verdict->message;
    EXPECT_NE(verdict->message.find(fault.message_part), std::string::npos)
        << name << ": " << verdict->message;
  }
  ASSERT_NE(find("a_first"), nullptr);
  ASSERT_NE(find("z_last"), nullptr);
  EXPECT_EQ(find("a_first")->verdict, Verdict::kPass);
  EXPECT_EQ(find("z_last")->verdict, Verdict::kPass);

  // No process outlives the run: no child of this process, and not the
  // grandchild that held the output.
  pid_t grandchild = 0;
  std::ifstream(pid_file) >> grandchild;
  EXPECT_GT(grandchild, 0);
  for (int i = 0; i < 100 && (testing_support::process_running(grandchild) ||
                              !children_of(getpid()).empty());
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (grandchild > 0) {
    EXPECT_FALSE(testing_support::process_running(grandchild))
        << "grandchild " << grandchild;
    if (testing_support::process_running(grandchild)) kill(grandchild, SIGKILL);
  }
  EXPECT_TRUE(children_of(getpid()).empty());

  // The JUnit file lists every case.
  const fs::path junit = dir_ / "junit.xml";
  write_junit(junit, summary, Environment{});
  std::ifstream in(junit);
  const std::string xml((std::istreambuf_iterator<char>(in)), {});
  for (const auto& [id, count] : verdicts_per_case) {
    EXPECT_NE(xml.find("classname=\"" + id + "\" name=\"cpu\""),
              std::string::npos)
        << id;
  }
  EXPECT_NE(xml.find("tests=\"" + std::to_string(faults.size() + 2) + "\""),
            std::string::npos)
      << xml.substr(0, 400);
}

}  // namespace
}  // namespace casebook
