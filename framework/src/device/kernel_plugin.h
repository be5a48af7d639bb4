// GPU kernel plugins: libcasebook_kernels_cuda.so and
// libcasebook_kernels_hip.so (kernels/common/plugin_abi.h), loaded with dlopen.
// Internal to casebook_lib.
//
// Only ever call these in a child process (a GPU worker or a probe): loading
// a plugin and asking it anything initialises CUDA or HIP, and the runner
// must never do that (docs/architecture.md, "The process model").
#pragma once

#include <map>
#include <string>

#include "casebook/backend.h"
#include "common/plugin_abi.h"

namespace casebook {

struct KernelPlugin {
  Backend backend = Backend::kCuda;
  std::string path;  // the file dlopen'ed
  void* handle = nullptr;
  const CasebookKernelPluginV1* table = nullptr;
};

// "libcasebook_kernels_cuda.so" / "libcasebook_kernels_hip.so" (empty for cpu).
std::string kernel_plugin_file_name(Backend backend);

// The folder plugins are looked up in: $CASEBOOK_KERNEL_PLUGIN_DIR if set,
// else the folder of the running executable (/proc/self/exe).
std::string kernel_plugin_dir();

// Whether the backend's plugin file is where load_kernel_plugin looks: a
// plugin that is there and does not load is broken, not absent.
bool kernel_plugin_file_present(Backend backend);

// Loads the backend's plugin once per process and returns it; null with
// `why_not` ("built without HIP: no libcasebook_kernels_hip.so beside the
// executable", or dlerror's text, or an ABI mismatch) when it cannot.
const KernelPlugin* load_kernel_plugin(Backend backend, std::string* why_not);

// The first launcher of the kernel list (kernels/common/kernel_list.h) that
// `table` leaves null, or null when it has them all: a plugin missing one is
// refused at load rather than crashing its first case.
const char* first_missing_launcher(const CasebookKernelPluginV1& table);

// The device count; false with `error` such as "cudaGetDeviceCount returned
// cudaErrorNoDevice (no CUDA-capable device is detected)".
bool plugin_device_count(const KernelPlugin& plugin, int* count,
                         std::string* error);

// Waits for the device and reports any pending error ("" when clean);
// *sticky says the context is poisoned and the process must end.
std::string plugin_synchronize(const KernelPlugin& plugin, bool* sticky);

// "CUDA runtime 13000, driver 13000, device 0: NVIDIA H200, compute 9.0
// (nvcc ..., sm_90 + PTX)", or the error that prevented it.
std::string plugin_describe(const KernelPlugin& plugin);

// What `when` conditions read of the device: {"capability": "9.0"} on CUDA,
// {"gfx": "gfx90a"} on HIP; empty when the runtime cannot say.
std::map<std::string, std::string> plugin_device_facts(
    const KernelPlugin& plugin);

// "cudaMalloc returned cudaErrorMemoryAllocation (out of memory)".
std::string describe_gpu_error(const CasebookGpuError& error);

}  // namespace casebook
