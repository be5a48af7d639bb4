#include "device/backend_hooks.h"

#include <list>
#include <stdexcept>

#include "casebook/gpu_stack.h"
#include "casebook/internal_error.h"
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
  cuda.missing_driver_or_device = "NVIDIA driver or device";
  cuda.device_files = {"dev/nvidia0"};
  cuda.device_folders = {"proc/driver/nvidia/gpus"};
  cuda.kernel_plugin_file = "libcasebook_kernels_cuda.so";
  cuda.device_facts = compute_capability;
  cuda.launch_blocking = launch_blocking_variables(Backend::kCuda);
  cuda.torch_device = c10::DeviceType::CUDA;
  cuda.probe_torch = probe_torch_gpu;
  cuda.synchronize_torch = synchronize_torch_gpu;

  BackendHooks hip;
  hip.backend = Backend::kHip;
  hip.runtime = "HIP";
  hip.vendor_device = "an AMD GPU";
  hip.missing_driver_or_device = "AMD GPU driver (amdgpu/KFD) or device";
  hip.device_files = {"dev/kfd"};
  hip.kernel_plugin_file = "libcasebook_kernels_hip.so";
  hip.device_facts = gfx_target;
  // HIP's own switches; CUDA's are never applied to ROCm.
  hip.launch_blocking = launch_blocking_variables(Backend::kHip);
  hip.torch_device = c10::DeviceType::CUDA;
  hip.probe_torch = probe_torch_gpu;
  hip.synchronize_torch = synchronize_torch_gpu;
  return {cpu, cuda, hip};
}

// The rows; registered ones are appended and removed. A list: a row's
// address stays while others come and go.
std::list<BackendHooks>& table() {
  static std::list<BackendHooks> rows = [] {
    std::vector<BackendHooks> built_in = make_table();
    return std::list<BackendHooks>(built_in.begin(), built_in.end());
  }();
  return rows;
}

}  // namespace

const BackendHooks& backend_hooks(Backend backend) {
  for (const BackendHooks& hooks : table()) {
    if (hooks.backend == backend) return hooks;
  }
  CASEBOOK_UNREACHABLE("no hooks for backend " +
                       std::string(backend_name(backend)));
}

namespace {

// A row a child can use: every function it calls is there. Throws
// std::invalid_argument naming the first that is missing.
const BackendHooks& checked_row(const BackendHooks& hooks) {
  const char* missing = hooks.probe_torch == nullptr ? "probe_torch"
                        : hooks.synchronize_torch == nullptr
                            ? "synchronize_torch"
                        : hooks.device_facts == nullptr ? "device_facts"
                                                        : nullptr;
  if (missing != nullptr) {
    throw std::invalid_argument(std::string("a backend's hooks need ") +
                                missing);
  }
  return hooks;
}

}  // namespace

BackendRegistration::BackendRegistration(std::string_view name,
                                         BackendHooks hooks,
                                         std::vector<DeviceFactName> fact_names)
    : backend_((checked_row(hooks),
                register_backend_name(name, std::move(fact_names)))) {
  hooks.backend = backend_;
  try {
    table().push_back(std::move(hooks));
  } catch (...) {
    unregister_backend_name(backend_);
    throw;
  }
}

BackendRegistration::~BackendRegistration() {
  std::list<BackendHooks>& rows = table();
  for (auto row = rows.begin(); row != rows.end(); ++row) {
    if (row->backend == backend_) {
      rows.erase(row);
      break;
    }
  }
  unregister_backend_name(backend_);
}

}  // namespace casebook
