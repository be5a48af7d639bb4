// What a child process has for running on one backend: LibTorch's device and
// the kernel plugin. Opening a GPU backend initialises CUDA or HIP: only in a
// child, never in the runner.
#pragma once

#include <string>

#include "casebook/backend.h"
#include "gpu/torch_gpu.h"

namespace casebook {

struct KernelPlugin;

struct BackendRuntime {
  Backend backend = Backend::kCpu;
  TorchGpuProbe torch;                   // GPU backends: LibTorch's device
  const KernelPlugin* plugin = nullptr;  // GPU backends: kernels/ library
  std::string plugin_why_not;
  int plugin_device_count = 0;
  std::string plugin_description;

  bool available() const;
  // Why nothing can run here: both reasons when both are missing.
  std::string why_not() const;
};

// For kCpu: nothing to open. For GPU backends: probes LibTorch's device and
// loads the kernel plugin, asking each for its devices.
BackendRuntime open_backend_runtime(Backend backend);

}  // namespace casebook
