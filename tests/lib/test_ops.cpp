#include "test_ops.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "casebook/op_catalog.h"

namespace casebook::testing_support {
namespace {

[[noreturn]] void hang() {
  while (true) pause();
}

OpDef test_op(const std::string& name, OpFunction run) {
  OpDef def;
  def.name = name;
  def.inputs = {"input"};
  def.args = {"pid_file", "megabytes"};
  def.placement = OpDef::Placement::kHost;
  def.run = std::move(run);
  def.file = __FILE__;
  def.line = __LINE__;
  return def;
}

}  // namespace

void register_test_ops(OpRegistry& registry) {
  registry.add(test_op("testing.identity", [](const OpCall& call) {
    return std::vector<at::Tensor>{call.input(0).clone()};
  }));
  registry.add(
      test_op("testing.segfault", [](const OpCall&) -> std::vector<at::Tensor> {
        raise(SIGSEGV);
        return {};
      }));
  registry.add(
      test_op("testing.abort",
              [](const OpCall&) -> std::vector<at::Tensor> { std::abort(); }));
  registry.add(
      test_op("testing.hang",
              [](const OpCall&) -> std::vector<at::Tensor> { hang(); }));
  registry.add(
      test_op("testing.throw", [](const OpCall&) -> std::vector<at::Tensor> {
        throw std::runtime_error("shape [3] is not what this op takes");
      }));
  // The input plus the number of calls so far in this process: every repeat
  // of a run differs from the one before (deterministic: bitwise fails).
  registry.add(test_op("testing.call_count", [](const OpCall& call) {
    static int calls = 0;
    ++calls;
    return std::vector<at::Tensor>{call.input(0) + calls};
  }));
  // The input plus a drift of 1e-7 per call: repeats differ in their last
  // bits but agree within float32's tolerance (deterministic: tolerance
  // passes, bitwise fails).
  registry.add(test_op("testing.drift", [](const OpCall& call) {
    static int calls = 0;
    ++calls;
    return std::vector<at::Tensor>{call.input(0) + 1e-7 * calls};
  }));
  registry.add(test_op("testing.hang_with_grandchild",
                       [](const OpCall& call) -> std::vector<at::Tensor> {
                         pid_t grandchild = fork();
                         if (grandchild == 0) hang();
                         std::ofstream(call.arg_string("pid_file", ""))
                             << grandchild << "\n";
                         hang();
                       }));
  register_fault_ops(registry);
}

// The fault suite's ops: each misbehaves in a way a real op or kernel can,
// and each must still end in exactly one verdict of its family.
void register_fault_ops(OpRegistry& registry) {
  // Grows by 64 MiB tensors, each written (so the pages are real), until the
  // child's memory limit (RLIMIT_AS, set by the runner) refuses one.
  registry.add(test_op("testing.allocate_until_limit",
                       [](const OpCall& call) -> std::vector<at::Tensor> {
                         std::vector<at::Tensor> held;
                         while (true) {
                           held.push_back(
                               at::empty({int64_t{8} << 20}, at::kDouble));
                           held.back().fill_(1.0);
                         }
                       }));
  // Megabytes on stdout and stderr (a debug print left in a loop), then a
  // correct result.
  registry.add(test_op("testing.flood", [](const OpCall& call) {
    const int64_t megabytes = call.arg_int("megabytes", 16);
    const std::string line(1023, 'x');
    for (int64_t i = 0; i < megabytes * 1024; ++i) {
      std::fprintf(stdout, "%s\n", line.c_str());
      std::fprintf(stderr, "%s\n", line.c_str());
    }
    std::fflush(stdout);
    std::fflush(stderr);
    return std::vector<at::Tensor>{call.input(0).clone()};
  }));
  // Closes every descriptor but stdin/stdout/stderr, the result channel with
  // them, then returns: the result cannot reach the runner.
  registry.add(test_op("testing.close_result_channel", [](const OpCall& call) {
    for (int fd = 3; fd < 4096; ++fd) close(fd);
    return std::vector<at::Tensor>{call.input(0).clone()};
  }));
  // Exits with status 0 and no result (an exit() deep in a library).
  registry.add(test_op("testing.exit_without_result",
                       [](const OpCall&) -> std::vector<at::Tensor> {
                         std::fflush(nullptr);
                         _exit(0);
                       }));
  // A grandchild that keeps the child's stdout and stderr open after the
  // child has returned its result (a daemon a library started).
  registry.add(
      test_op("testing.grandchild_holds_output", [](const OpCall& call) {
        const pid_t grandchild = fork();
        if (grandchild == 0) hang();
        std::ofstream(call.arg_string("pid_file", "")) << grandchild << "\n";
        return std::vector<at::Tensor>{call.input(0).clone()};
      }));
}

const OpRegistry& registry_with_test_ops() {
  static const OpRegistry registry = [] {
    OpRegistry r;
    register_all(r);
    register_test_ops(r);
    return r;
  }();
  return registry;
}

void use_single_thread() { at::set_num_threads(1); }

}  // namespace casebook::testing_support
