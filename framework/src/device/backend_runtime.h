// What a child process has for running on one backend: LibTorch's device and
// the kernel plugin, and how ready each is (device/backend_readiness.h).
// Opening a GPU backend initialises CUDA or HIP: only in a child, never in the
// runner.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "casebook/backend.h"
#include "device/backend_readiness.h"

namespace casebook {

struct KernelPlugin;
struct OpDef;

struct BackendRuntime {
  Backend backend = Backend::kCpu;
  BackendReadiness readiness;            // the one answer; cpu: ready
  const KernelPlugin* plugin = nullptr;  // GPU backends: kernels/ library

  // The part of the backend `op` needs (part_readiness, the one rule).
  PartReadiness part_for(const OpDef& op) const;
};

// For kCpu: nothing to open. For GPU backends: probes LibTorch's device and
// loads the kernel plugin, asking each for its devices, and judges each part.
BackendRuntime open_backend_runtime(Backend backend);

// The kernel plugin `backend` uses in this process: the one its runtime
// opens (a test's replacement's, replace_backend_for_tests), else the plugin
// file beside the executable (load_kernel_plugin, loaded once); null with
// why not. The one answer: open_backend_runtime and the kernels.* ops
// (kernel_ops/) both ask it, so no op call carries a plugin.
const KernelPlugin* backend_kernel_plugin(Backend backend,
                                          std::string* why_not);

// What a child sets so that every launch on `backend` is waited for (the
// synchronised rerun of a case of `steps`, diagnose's launch-blocking rerun):
// its hooks' launch-blocking switch (device/backend_hooks.h;
// CUDA_LAUNCH_BLOCKING=1 on cuda, HIP's own on hip, none on cpu).
std::vector<std::pair<std::string, std::string>> launch_blocking_environment(
    Backend backend);

// For test and bench programs only (the simulated device of
// tests/support/simulated_device.h): from now on, in this process and the
// children it forks, open_backend_runtime(backend) returns what `opener`
// returns. The casebook executable never calls it. An empty opener restores
// the real backend.
using BackendOpener = std::function<BackendRuntime()>;
void replace_backend_for_tests(Backend backend, BackendOpener opener);

}  // namespace casebook
