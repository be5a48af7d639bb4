// A simulated GPU device for the test and bench programs only, never a user
// backend: install() makes it the `cuda` backend (or another, registered by a
// test) of this process and of the children it forks (through
// replace_backend_for_tests, which the casebook executable never calls).
//
// It behaves like a CUDA device where the worker pool can tell: it runs in
// GPU workers through the kernel-plugin table (device memory is host memory,
// the kernels are their CPU references), and its errors are asynchronous: an
// error a case causes surfaces at the next synchronize, or at the next call
// if nobody synchronised, so a worker that skipped the synchronize after a
// case would blame the next case. A sticky error poisons the process: every
// later call fails with it.
//
// The op `testing.simulated_step` (registry()) drives it per case with the
// argument `then`:
//   pass    copies its input to the device and back (the default)
//   sticky  leaves a sticky device assert pending (cudaErrorAssert)
//   error   leaves a non-sticky out-of-memory error pending
//   crash   the process dies of SIGSEGV
//   hang    forks a grandchild that hangs, writes its pid to `pid_file`,
//           then hangs itself
// and appends the pid of the process it ran in to `pid_log` (when given), so
// that a test can count the workers that ran its cases, and the value of
// CUDA_LAUNCH_BLOCKING it ran under to `env_log` (when given).
#pragma once

#include <filesystem>
#include <set>

#include "casebook/ops.h"
#include "common/plugin_abi.h"
#include "kernel_ops/kernel_ops.h"

namespace casebook {
struct KernelPlugin;
}

namespace casebook::simulated_device {

// The compute capability the device reports to `when` conditions.
inline constexpr const char* kCapability = "8.6";

// As `backend` (cuda unless a test registered a backend of its own for it,
// device/backend_hooks.h's BackendRegistration).
void install(Backend backend = Backend::kCuda);
void uninstall(Backend backend = Backend::kCuda);

// install(backend) for a scope, uninstall(backend) at its end; nothing for
// the cpu backend. The kernels.* ops find the device's plugin through the
// backend's runtime (backend_kernel_plugin, device/backend_runtime.h).
class Installed {
 public:
  explicit Installed(Backend backend = Backend::kCuda);
  ~Installed();
  Installed(const Installed&) = delete;
  Installed& operator=(const Installed&) = delete;

 private:
  Backend backend_;
};

// register_all() plus testing.simulated_step, built once.
const OpRegistry& registry();

// Writes `count` cases case_000.yaml ... into `folder`, on cpu and cuda: the
// ones numbered in `poisoning` leave a sticky error and expect device_assert
// on cuda, the others pass. Every one should PASS.
void write_poisoning_set(const std::filesystem::path& folder, int count,
                         const std::set<int>& poisoning);

// The device's kernels: `kernels` (a broken twin, tests/kernels) in place
// of the CPU references, in this process and the children it forks from
// now on; use_kernels({}) puts the references back.
void use_kernels(const kernel_glue::KernelCpuImplementations& kernels);

// use_kernels(kernels) for a scope, the references back at its end.
class KernelsReplaced {
 public:
  explicit KernelsReplaced(
      const kernel_glue::KernelCpuImplementations& kernels);
  ~KernelsReplaced();
  KernelsReplaced(const KernelsReplaced&) = delete;
  KernelsReplaced& operator=(const KernelsReplaced&) = delete;
};

// The device's plugin, as a worker's runtime holds it.
const KernelPlugin& plugin();

// Device buffers allocated and not yet freed in this process.
int live_allocations();

}  // namespace casebook::simulated_device
