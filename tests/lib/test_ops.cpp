#include "test_ops.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <stdexcept>

namespace casebook::testing_support {
namespace {

[[noreturn]] void hang() {
  while (true) pause();
}

OpDef test_op(const std::string& name, OpFunction run) {
  OpDef def;
  def.name = name;
  def.inputs = {"input"};
  def.args = {"pid_file"};
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
  registry.add(test_op("testing.hang_with_grandchild",
                       [](const OpCall& call) -> std::vector<at::Tensor> {
                         pid_t grandchild = fork();
                         if (grandchild == 0) hang();
                         std::ofstream(call.arg_string("pid_file", ""))
                             << grandchild << "\n";
                         hang();
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
