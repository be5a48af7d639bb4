// The CPU fork server on its own: it forks a child per request, the child is
// the caller's (waitpid works, its group is its own), runs the request and
// reports; a crashing child leaves the server serving; a dead server makes
// spawn() throw, so that the scheduler can fork the child itself.
#include "process/fork_server.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>
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

TEST_F(ForkServerTest, TheServerEndsWithItsOwner) {
  pid_t server_pid = 0;
  {
    ForkServer server(cpu_fork_server_work(table_, environment_, scratch_dir_),
                      false);
    server_pid = server.pid();
  }
  // The destructor reaped it: it is no child of ours any more.
  EXPECT_EQ(waitpid(server_pid, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

}  // namespace
}  // namespace casebook
