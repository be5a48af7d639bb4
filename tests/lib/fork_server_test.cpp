// The CPU fork server on its own: it forks a child per request, the child is
// the caller's (waitpid works, its group is its own), runs the request and
// reports; a crashing child leaves the server serving; a dead server makes
// spawn() throw, so that the scheduler can fork the child itself. The child
// that takes a request was forked before it (the spare), and the spare never
// used is reaped with the server.
#include "process/fork_server.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "casebook/loader.h"
#include "child/execute.h"
#include "test_ops.h"

namespace casebook {
namespace {

namespace fs = std::filesystem;

class ForkServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing_support::use_single_thread();
    scratch_ = fs::temp_directory_path() /
               ("casebook-fork-server-" + std::to_string(getpid()));
    fs::create_directories(scratch_);
    scratch_dir_ = scratch_.string();
    for (const char* name : {"identity", "segfault"}) {
      loaded_.push_back(
          load_case_file(fs::path(CASEBOOK_TEST_DATA) / "isolation" /
                         (std::string(name) + ".yaml")));
    }
    for (const LoadedCase& loaded : loaded_) {
      ASSERT_TRUE(loaded.ok()) << loaded.file;
      table_.cases.push_back(&*loaded.value);
      table_.ops.push_back(
          testing_support::registry_with_test_ops().find(loaded.value->op));
      ASSERT_NE(table_.ops.back(), nullptr) << loaded.value->op;
    }
  }
  void TearDown() override { fs::remove_all(scratch_); }

  RunRequest request_for(size_t case_index, const std::string& folder) {
    RunRequest request;
    request.case_index = case_index;
    request.output_dir = (scratch_ / folder).string();
    fs::create_directories(request.output_dir);
    return request;
  }

  // The child's report line, or "" when it ended without one.
  static std::string read_report(const ChildProcess& child) {
    std::string buffer;
    std::string line;
    while (!take_line(&buffer, &line)) {
      pollfd ready{child.from_child, POLLIN, 0};
      if (poll(&ready, 1, 10000) <= 0) return {};
      if (!read_available(child.from_child, &buffer)) {
        return take_line(&buffer, &line) ? line : std::string();
      }
    }
    return line;
  }

  // Reaps `pid` as its parent; fails the test when this process is not.
  static int reap(pid_t pid) {
    int status = 0;
    EXPECT_EQ(waitpid(pid, &status, 0), pid) << "not this process's child";
    return status;
  }

  // Seconds since boot now (/proc/uptime), and when `pid` started
  // (/proc/<pid>/stat, field 22, in clock ticks since boot).
  static double uptime_seconds() {
    std::ifstream uptime("/proc/uptime");
    double seconds = 0;
    uptime >> seconds;
    return seconds;
  }
  static double started_seconds(pid_t pid) {
    std::ifstream stat_file("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat_file)), {});
    std::istringstream fields(text.substr(text.rfind(')') + 2));
    std::string field;
    for (int index = 3; index <= 22 && fields >> field; ++index) {
    }
    return std::stod(field) / static_cast<double>(sysconf(_SC_CLK_TCK));
  }

  fs::path scratch_;
  std::string scratch_dir_;  // scratch_, kept alive for the server's work
  ChildEnvironment environment_;
  std::vector<LoadedCase> loaded_;
  CaseTable table_;
};

TEST_F(ForkServerTest, TheChildIsTheCallersAndReportsTheRunsOutputs) {
  ForkServer server(cpu_fork_server_work(table_, environment_, scratch_dir_),
                    false);
  ChildProcess child = server.spawn(encode_request(request_for(0, "identity")));
  ASSERT_GT(child.pid, 0);
  EXPECT_NE(child.pid, server.pid());
  EXPECT_EQ(getpgid(child.pid), child.pid) << "a process group of its own";

  ChildReport report = decode_report(read_report(child));
  ASSERT_EQ(report.status, ChildReport::Status::kOutputs) << report.message;
  ASSERT_EQ(report.outputs.size(), 1u);
  at::Tensor output = map_tensor_file(report.outputs[0]);
  ASSERT_EQ(output.numel(), 3);
  EXPECT_EQ(output[0].item<float>(), 1.0f);
  EXPECT_EQ(output[2].item<float>(), 3.0f);

  const int status = reap(child.pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  close_fd(&child.from_child);
}

TEST_F(ForkServerTest, ACrashingChildLeavesTheServerServing) {
  ForkServer server(cpu_fork_server_work(table_, environment_, scratch_dir_),
                    false);
  ChildProcess crashing =
      server.spawn(encode_request(request_for(1, "segfault")));
  EXPECT_EQ(read_report(crashing), "");
  const int status = reap(crashing.pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV) << status;
  close_fd(&crashing.from_child);

  ChildProcess next =
      server.spawn(encode_request(request_for(0, "identity_after")));
  EXPECT_EQ(decode_report(read_report(next)).status,
            ChildReport::Status::kOutputs);
  reap(next.pid);
  close_fd(&next.from_child);
}

TEST_F(ForkServerTest, SpawnThrowsOnceTheServerIsGone) {
  ForkServer server(cpu_fork_server_work(table_, environment_, scratch_dir_),
                    false);
  ASSERT_EQ(kill(server.pid(), SIGKILL), 0);
  reap(server.pid());
  EXPECT_THROW(server.spawn(encode_request(request_for(0, "after_death"))),
               std::system_error);
  // Asked again, it still says no rather than hanging.
  EXPECT_THROW(server.spawn(encode_request(request_for(0, "again"))),
               std::system_error);
}

// The spare: a request is answered by a child forked after the previous
// reply, not by a fork made while the caller waits.
TEST_F(ForkServerTest, TheChildThatTakesARequestWasForkedBeforeIt) {
  ForkServer server(cpu_fork_server_work(table_, environment_, scratch_dir_),
                    false);
  ChildProcess first = server.spawn(encode_request(request_for(0, "first")));
  EXPECT_EQ(decode_report(read_report(first)).status,
            ChildReport::Status::kOutputs);
  reap(first.pid);
  close_fd(&first.from_child);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const double asked = uptime_seconds();
  ChildProcess second = server.spawn(encode_request(request_for(0, "second")));
  EXPECT_LT(started_seconds(second.pid), asked - 0.1)
      << "forked when asked, not before";
  EXPECT_EQ(getpgid(second.pid), second.pid) << "a process group of its own";
  EXPECT_EQ(decode_report(read_report(second)).status,
            ChildReport::Status::kOutputs);
  reap(second.pid);
  close_fd(&second.from_child);
}

TEST_F(ForkServerTest, TheServerEndsWithItsOwner) {
  pid_t server_pid = 0;
  {
    ForkServer server(cpu_fork_server_work(table_, environment_, scratch_dir_),
                      false);
    server_pid = server.pid();
    ChildProcess child = server.spawn(encode_request(request_for(0, "one")));
    read_report(child);
    reap(child.pid);
    close_fd(&child.from_child);
  }
  // The destructor reaped it: it is no child of ours any more.
  EXPECT_EQ(waitpid(server_pid, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
  // Nor is the spare it had forked for the next request (in its group).
  EXPECT_EQ(waitpid(-server_pid, nullptr, WNOHANG), -1) << "a spare is left";
  EXPECT_EQ(errno, ECHILD);
}

}  // namespace
}  // namespace casebook
