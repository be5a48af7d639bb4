#include "process/backend_runtime.h"

#include "kernel_ops/kernel_plugin.h"

namespace casebook {

bool BackendRuntime::available() const {
  if (backend == Backend::kCpu) return true;
  return torch.available || (plugin != nullptr && plugin_device_count > 0);
}

std::string BackendRuntime::why_not() const {
  if (available()) return {};
  // The kernel plugin speaks for the device when it is there: it asked the
  // runtime, which names its error. Without it, both reasons.
  const std::string device = backend == Backend::kCuda ? "CUDA" : "HIP";
  if (plugin != nullptr) return "no " + device + " device: " + plugin_why_not;
  if (plugin_why_not.empty()) return torch.why_not;
  return plugin_why_not + "; " + torch.why_not;
}

BackendRuntime open_backend_runtime(Backend backend) {
  BackendRuntime runtime;
  runtime.backend = backend;
  if (backend == Backend::kCpu) return runtime;
  runtime.torch = probe_torch_gpu(backend);
  runtime.plugin = load_kernel_plugin(backend, &runtime.plugin_why_not);
  if (runtime.plugin != nullptr) {
    std::string error;
    if (plugin_device_count(*runtime.plugin, &runtime.plugin_device_count,
                            &error)) {
      if (runtime.plugin_device_count == 0) {
        runtime.plugin_why_not = "the runtime reports 0 devices";
      } else {
        runtime.plugin_description = plugin_describe(*runtime.plugin);
      }
    } else {
      runtime.plugin_why_not = error;
    }
  }
  return runtime;
}

}  // namespace casebook
