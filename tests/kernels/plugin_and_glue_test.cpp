// Loading the kernel plugins (in child processes only), the registration of
// the kernels.* ops, and the glue's translation of statuses into OpErrors.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "casebook/ops.h"
#include "device/kernel_plugin.h"
#include "kernel_ops/kernel_ops.h"
#include "kernel_test_support.h"

namespace casebook {
namespace {

using kernel_tests::executable_dir;
using kernel_tests::run_in_child;

// What a child sees asking the plugin for its devices.
std::string probe(Backend backend) {
  return run_in_child([backend] {
    std::string why_not;
    const KernelPlugin* plugin = load_kernel_plugin(backend, &why_not);
    if (plugin == nullptr) return "absent: " + why_not;
    int count = 0;
    std::string error;
    if (!plugin_device_count(*plugin, &count, &error)) return "error: " + error;
    return "devices: " + std::to_string(count) + " " + plugin_describe(*plugin);
  });
}

TEST(KernelPlugin, HipPluginLoadsAndNamesTheRuntimeError) {
  const std::string seen = probe(Backend::kHip);
  if (!std::filesystem::exists(executable_dir() /
                               kernel_plugin_file_name(Backend::kHip))) {
    EXPECT_EQ(
        seen,
        "absent: built without HIP: no libcasebook_kernels_hip.so beside the "
        "executable");
    return;
  }
  // Without an AMD GPU: "hipGetDeviceCount returned hipErrorNoDevice (...)".
  EXPECT_TRUE(seen.rfind("error: hipGetDeviceCount returned hipError", 0) ==
                  0 ||
              seen.rfind("devices: ", 0) == 0)
      << seen;
}

TEST(KernelPlugin, CudaPluginLoadsAndNamesTheRuntimeError) {
  const std::string seen = probe(Backend::kCuda);
  if (!std::filesystem::exists(executable_dir() /
                               kernel_plugin_file_name(Backend::kCuda))) {
    GTEST_SKIP() << seen;
  }
  EXPECT_TRUE(seen.rfind("error: cudaGetDeviceCount returned cudaError", 0) ==
                  0 ||
              seen.find("compute ") != std::string::npos)
      << seen;
}

TEST(KernelPlugin, BrokenPluginRefusesToLoadWithoutAVariant) {
  const std::filesystem::path broken_dir = executable_dir() / "broken";
  if (!std::filesystem::exists(broken_dir))
    GTEST_SKIP() << "no broken CUDA plugin built";
  const std::string seen = run_in_child([&] {
    setenv("CASEBOOK_KERNEL_PLUGIN_DIR", broken_dir.c_str(), 1);
    unsetenv("CASEBOOK_BROKEN_VARIANT");
    std::string why_not;
    return load_kernel_plugin(Backend::kCuda, &why_not) == nullptr ? why_not
                                                                   : "loaded";
  });
  EXPECT_NE(seen.find("CASEBOOK_BROKEN_VARIANT"), std::string::npos) << seen;
}

TEST(KernelOps, RegistersEachKernelOnceAndNamesBothPlacesOfADuplicate) {
  OpRegistry registry;
  register_kernel_ops(registry);
  for (const char* name : {"kernels.nll_loss", "kernels.softmax", "kernels.sum",
                           "kernels.embedding"}) {
    const OpDef* def = registry.find(name);
    ASSERT_NE(def, nullptr) << name;
    EXPECT_TRUE(def->needs_kernel_plugin);
    EXPECT_EQ(def->placement, OpDef::Placement::kHost);
    EXPECT_TRUE(static_cast<bool>(def->torch_reference)) << name;
  }
  try {
    register_kernel_ops(registry);
    FAIL() << "a second registration was accepted";
  } catch (const std::logic_error& error) {
    const std::string text = error.what();
    EXPECT_NE(text.find("kernels.nll_loss"), std::string::npos) << text;
    EXPECT_NE(text.find("register_kernel_ops.cpp"), std::string::npos) << text;
  }
}

TEST(KernelOps, AnOutOfRangeTargetIsAnIndexErrorWithItsPosition) {
  OpRegistry registry;
  register_kernel_ops(registry);
  const std::vector<at::Tensor> inputs = {
      at::zeros({5, 3}), at::tensor({0, 3, 1, -1, 2}, at::kLong)};
  const std::map<std::string, ArgValue> args;
  const OpCall call{inputs, args, Backend::kCpu, c10::Device(c10::kCPU)};
  try {
    registry.find("kernels.nll_loss")->run(call);
    FAIL() << "no error";
  } catch (const OpError& error) {
    EXPECT_EQ(error.family(), Family::kIndexOutOfRange);
    EXPECT_EQ(error.positions(), std::vector<int64_t>{1});
    EXPECT_STREQ(error.what(),
                 "kernels.nll_loss: target 3 at position 1 is outside [0, 3)");
  }
}

TEST(KernelOps, CpuRunAndTorchReferenceAgreeOnHalfSoftmax) {
  OpRegistry registry;
  register_kernel_ops(registry);
  const std::vector<at::Tensor> inputs = {
      (at::randn({6, 257}) * 3).to(at::kHalf)};
  const std::map<std::string, ArgValue> args;
  const OpCall call{inputs, args, Backend::kCpu, c10::Device(c10::kCPU)};
  const OpDef* def = registry.find("kernels.softmax");
  const at::Tensor ours = def->run(call).at(0);
  const at::Tensor torch = def->torch_reference(call).at(0);
  EXPECT_EQ(ours.scalar_type(), at::kHalf);
  EXPECT_TRUE(
      at::allclose(ours.to(at::kFloat), torch.to(at::kFloat), 1e-3, 1e-5));
}

}  // namespace
}  // namespace casebook
