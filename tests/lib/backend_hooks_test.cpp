// The hooks table (device/backend_hooks.h): every backend has its entry, and
// what the device code says of a backend comes from it: the runtime's name,
// the device nodes, the plugin file the build makes, the facts, the switch
// that only CUDA has, LibTorch's `cuda` device on ROCm too.
#include "device/backend_hooks.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "device/backend_runtime.h"
#include "device/kernel_plugin.h"

namespace casebook {
namespace {

namespace fs = std::filesystem;

TEST(BackendHooks, EveryBackendHasItsEntry) {
  for (Backend backend : all_backends()) {
    const BackendHooks& hooks = backend_hooks(backend);
    EXPECT_EQ(hooks.backend, backend);
    EXPECT_EQ(hooks.probe_torch != nullptr, is_gpu(backend));
    EXPECT_EQ(hooks.synchronize_torch != nullptr, is_gpu(backend));
    EXPECT_EQ(hooks.device_facts != nullptr, is_gpu(backend));
    EXPECT_EQ(hooks.runtime.empty(), !is_gpu(backend));
  }
}

TEST(BackendHooks, ThePluginFilesAreTheOnesTheBuildMakes) {
  for (Backend backend : {Backend::kCuda, Backend::kHip}) {
    const std::string name(backend_name(backend));
    EXPECT_EQ(kernel_plugin_file_name(backend),
              "libcasebook_kernels_" + name + ".so");
  }
  EXPECT_EQ(kernel_plugin_file_name(Backend::kCpu), "");
}

TEST(BackendHooks, EachGpuHasItsOwnLaunchBlockingSwitchAndRocmKeepsCudaNames) {
  using Environment = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(launch_blocking_environment(Backend::kCuda),
            (Environment{{"CUDA_LAUNCH_BLOCKING", "1"}}));
  // HIP's own, never CUDA's, though LibTorch's device there is kCUDA.
  EXPECT_EQ(launch_blocking_environment(Backend::kHip),
            (Environment{{"HIP_LAUNCH_BLOCKING", "1"},
                         {"AMD_SERIALIZE_KERNEL", "3"}}));
  EXPECT_TRUE(launch_blocking_environment(Backend::kCpu).empty());
  EXPECT_EQ(backend_hooks(Backend::kCuda).torch_device, c10::DeviceType::CUDA);
  EXPECT_EQ(backend_hooks(Backend::kHip).torch_device, c10::DeviceType::CUDA);
  EXPECT_EQ(backend_hooks(Backend::kCpu).torch_device, c10::DeviceType::CPU);
}

TEST(BackendHooks, EachGpuSaysItsOwnFacts) {
  EXPECT_EQ(backend_hooks(Backend::kCuda).device_facts(9, 0, "sm_90"),
            (DeviceFacts{{"capability", "9.0"}}));
  EXPECT_EQ(backend_hooks(Backend::kHip).device_facts(0, 0, "gfx90a"),
            (DeviceFacts{{"gfx", "gfx90a"}}));
}

TEST(BackendHooks, TheRuntimesFailureNamesItsDeviceNode) {
  EXPECT_EQ(runtime_failure(Backend::kHip, "hipErrorNoDevice", true).reason,
            "a HIP device is present (/dev/kfd) but the runtime cannot use "
            "it: hipErrorNoDevice");
  EXPECT_EQ(runtime_failure(Backend::kCuda, "cudaErrorNoDevice", false).reason,
            "no CUDA device: no NVIDIA driver or device (no /dev/nvidia0, "
            "nothing in /proc/driver/nvidia/gpus)");
  // The nodes are the table's: an AMD node shows no NVIDIA device.
  char pattern[] = "/tmp/casebook-hooks-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const fs::path root = pattern;
  fs::create_directories(root / "dev");
  std::ofstream(root / "dev/kfd") << "";
  EXPECT_TRUE(device_node_present(Backend::kHip, root));
  EXPECT_FALSE(device_node_present(Backend::kCuda, root));
  fs::create_directories(root / "proc/driver/nvidia/gpus/0000:01:00.0");
  EXPECT_TRUE(device_node_present(Backend::kCuda, root));
  fs::remove_all(root);
}

}  // namespace
}  // namespace casebook
