// One entry per backend: what casebook knows of it and asks of it, in one
// table (after PyTorch's AcceleratorHooksInterface: one hooks object per
// accelerator). Every place that would say "CUDA or HIP" asks its backend's
// entry instead: the runtime's name in messages, the device nodes the runner
// may look at without initialising anything, the kernel plugin's file, the
// device facts `when` conditions read, the launch-blocking switch, LibTorch's
// device. Adding a built-in backend: its name in casebook/backend.h and its
// row in backend_hooks.cpp; a program's own: a BackendRegistration below.
#pragma once

#include <c10/core/DeviceType.h>

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "casebook/backend.h"
#include "device/backend_readiness.h"

namespace casebook {

struct BackendHooks {
  Backend backend = Backend::kCpu;
  std::string_view runtime;        // "CUDA", "HIP" (messages); cpu: ""
  std::string_view vendor_device;  // "an NVIDIA GPU", "an AMD GPU"
  // What a host without any of device_files and device_folders lacks, said
  // instead of the runtime's own words then ("driver version is
  // insufficient" is how CUDA says there is no driver at all): "NVIDIA
  // driver or device". Empty: the runtime's words.
  std::string_view missing_driver_or_device;
  // What shows a device without initialising a runtime (the runner may look):
  // a file that exists, or a folder with an entry, under the root given.
  std::vector<std::string_view> device_files;    // "dev/nvidia0"
  std::vector<std::string_view> device_folders;  // "proc/driver/nvidia/gpus"
  std::string_view kernel_plugin_file;           // beside the executable
  // The facts `when` conditions read of the device, from the kernel plugin's
  // compute capability (major, minor) and architecture name: CUDA's
  // {"capability": "9.0"}, HIP's {"gfx": "gfx90a"}.
  DeviceFacts (*device_facts)(int major, int minor,
                              const std::string& arch) = nullptr;
  // What makes every launch wait for its end: CUDA_LAUNCH_BLOCKING=1 on
  // cuda; HIP_LAUNCH_BLOCKING=1 and AMD_SERIALIZE_KERNEL=3 on hip (ROCm keeps
  // PyTorch's `cuda` names, but CUDA's switches are never applied to it).
  // The one source: the synchronised rerun of steps and `casebook
  // diagnose`'s launch-blocking rerun both ask it.
  std::vector<std::pair<std::string, std::string>> launch_blocking;
  // LibTorch's device for the backend's torch.* ops: kCUDA on hip too (ROCm
  // keeps PyTorch's `cuda` names).
  c10::DeviceType torch_device = c10::DeviceType::CPU;
  // The LibTorch part of the backend in a child (device/torch_gpu.h): probe
  // and synchronise. Null for cpu.
  PartReadiness (*probe_torch)(Backend backend) = nullptr;
  std::string (*synchronize_torch)(bool* poisoned) = nullptr;
};

// The backend's entry; every backend of casebook/backend.h has one. Throws
// std::logic_error for a value no backend has.
const BackendHooks& backend_hooks(Backend backend);

// A further backend, for as long as this object lives (the row's text, its
// string_views, must outlive it: literals, as the built-in rows use). The
// row needs probe_torch, synchronize_torch and device_facts (a part it does
// not have says absent: an empty kernel_plugin_file is "no kernel plugin");
// a row without one, a taken name or fact is std::invalid_argument, and
// nothing is registered. its name joins
// casebook/backend.h's (case files, --backend, the table's columns), with
// the names of the facts its device reports (`when` conditions of its
// expect entries; hooks.device_facts gives their values), and `hooks`
// becomes its row (hooks.backend is set to the new value). What it
// runs in a child is what its hooks say, or what replace_backend_for_tests
// (device/backend_runtime.h) puts in their place. Made before any run, on
// one thread; a backend added this way touches no file outside device/.
class BackendRegistration {
 public:
  BackendRegistration(std::string_view name, BackendHooks hooks,
                      std::vector<DeviceFactName> fact_names = {});
  ~BackendRegistration();
  BackendRegistration(const BackendRegistration&) = delete;
  BackendRegistration& operator=(const BackendRegistration&) = delete;
  Backend backend() const { return backend_; }

 private:
  Backend backend_;
};

}  // namespace casebook
