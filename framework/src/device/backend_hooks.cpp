#include "device/backend_hooks.h"

#include <stdexcept>

#include "device/torch_gpu.h"

namespace casebook {
namespace {

DeviceFacts compute_capability(int major, int minor, const std::string&) {
  return {{"capability", std::to_string(major) + "." + std::to_string(minor)}};
}

DeviceFacts gfx_target(int, int, const std::string& arch) {
  return {{"gfx", arch}};
}

std::vector<BackendHooks> make_table() {
  BackendHooks cpu;
  cpu.backend = Backend::kCpu;

  BackendHooks cuda;
  cuda.backend = Backend::kCuda;
  cuda.runtime = "CUDA";
  cuda.vendor_device = "an NVIDIA GPU";
  cuda.device_files = {"dev/nvidia0"};
  cuda.device_folders = {"proc/driver/nvidia/gpus"};
  cuda.kernel_plugin_file = "libcasebook_kernels_cuda.so";
  cuda.device_facts = compute_capability;
  cuda.launch_blocking = {{"CUDA_LAUNCH_BLOCKING", "1"}};
  cuda.torch_device = c10::DeviceType::CUDA;
  cuda.probe_torch = probe_torch_gpu;
  cuda.synchronize_torch = synchronize_torch_gpu;

  BackendHooks hip;
  hip.backend = Backend::kHip;
  hip.runtime = "HIP";
  hip.vendor_device = "an AMD GPU";
  hip.device_files = {"dev/kfd"};
  hip.kernel_plugin_file = "libcasebook_kernels_hip.so";
  hip.device_facts = gfx_target;
  hip.torch_device = c10::DeviceType::CUDA;
  hip.probe_torch = probe_torch_gpu;
  hip.synchronize_torch = synchronize_torch_gpu;
  return {cpu, cuda, hip};
}

}  // namespace

const BackendHooks& backend_hooks(Backend backend) {
  static const std::vector<BackendHooks> table = make_table();
  for (const BackendHooks& hooks : table) {
    if (hooks.backend == backend) return hooks;
  }
  throw std::logic_error("internal error: no hooks for backend " +
                         std::string(backend_name(backend)));
}

}  // namespace casebook
