// The function table of a GPU kernel plugin (see plugin_abi.h): the runtime
// calls and the launchers, for CUDA or (through gpu_portability.h) HIP.
#include "common/gpu_portability.h"
// (first: it decides CASEBOOK_GPU_NS for the headers below)
#include <cstdio>
#include <cstring>

#include "common/plugin_table.h"

namespace CASEBOOK_GPU_NS {
namespace {

int fail(cudaError_t code, const char* call, CasebookGpuError* error) {
  if (error != nullptr) {
    error->code = static_cast<int32_t>(code);
    std::snprintf(error->call, sizeof(error->call), "%s", call);
    std::snprintf(error->name, sizeof(error->name), "%s",
                  cudaGetErrorName(code));
    std::snprintf(error->text, sizeof(error->text), "%s",
                  cudaGetErrorString(code));
  }
  return 1;
}

#define CASEBOOK_PLUGIN_CALL(call_name, expression) \
  do {                                              \
    const cudaError_t plugin_error_ = (expression); \
    if (plugin_error_ != cudaSuccess)               \
      return fail(plugin_error_, call_name, error); \
  } while (0)

int device_count(int* count, CasebookGpuError* error) {
  *count = 0;
  CASEBOOK_PLUGIN_CALL(CASEBOOK_GPU_PREFIX "GetDeviceCount",
                       cudaGetDeviceCount(count));
  return 0;
}

int describe(char* text, size_t capacity, CasebookGpuError* error) {
  int runtime = 0, driver = 0, device = 0;
  CASEBOOK_PLUGIN_CALL(CASEBOOK_GPU_PREFIX "RuntimeGetVersion",
                       cudaRuntimeGetVersion(&runtime));
  CASEBOOK_PLUGIN_CALL(CASEBOOK_GPU_PREFIX "DriverGetVersion",
                       cudaDriverGetVersion(&driver));
  CASEBOOK_PLUGIN_CALL(CASEBOOK_GPU_PREFIX "GetDevice", cudaGetDevice(&device));
  cudaDeviceProp properties;
  CASEBOOK_PLUGIN_CALL(CASEBOOK_GPU_PREFIX "GetDeviceProperties",
                       cudaGetDeviceProperties(&properties, device));
#if defined(__HIP_PLATFORM_AMD__) || defined(__HIPCC__)
  std::snprintf(text, capacity, "HIP runtime %d, driver %d, device %d: %s, %s",
                runtime, driver, device, properties.name,
                properties.gcnArchName);
#else
  std::snprintf(text, capacity,
                "CUDA runtime %d, driver %d, device %d: %s, compute %d.%d",
                runtime, driver, device, properties.name, properties.major,
                properties.minor);
#endif
  return 0;
}

int device_facts(CasebookDeviceFacts* facts, CasebookGpuError* error) {
  std::memset(facts, 0, sizeof(*facts));
  int device = 0;
  CASEBOOK_PLUGIN_CALL(CASEBOOK_GPU_PREFIX "GetDevice", cudaGetDevice(&device));
  cudaDeviceProp properties;
  CASEBOOK_PLUGIN_CALL(CASEBOOK_GPU_PREFIX "GetDeviceProperties",
                       cudaGetDeviceProperties(&properties, device));
#if defined(__HIP_PLATFORM_AMD__) || defined(__HIPCC__)
  std::snprintf(facts->arch, sizeof(facts->arch), "%s", properties.gcnArchName);
  char* features = std::strchr(facts->arch, ':');
  if (features != nullptr) *features = '\0';
#else
  facts->major = properties.major;
  facts->minor = properties.minor;
  std::snprintf(facts->arch, sizeof(facts->arch), "sm_%d%d", properties.major,
                properties.minor);
#endif
  return 0;
}

int set_device(int device, CasebookGpuError* error) {
  CASEBOOK_PLUGIN_CALL(CASEBOOK_GPU_PREFIX "SetDevice", cudaSetDevice(device));
  return 0;
}

int device_malloc(void** pointer, size_t bytes, CasebookGpuError* error) {
  *pointer = nullptr;
  if (bytes == 0) return 0;
  CASEBOOK_PLUGIN_CALL(CASEBOOK_GPU_PREFIX "Malloc",
                       cudaMalloc(pointer, bytes));
  return 0;
}

int device_free(void* pointer, CasebookGpuError* error) {
  if (pointer == nullptr) return 0;
  CASEBOOK_PLUGIN_CALL(CASEBOOK_GPU_PREFIX "Free", cudaFree(pointer));
  return 0;
}

int copy_to_device(void* destination, const void* source, size_t bytes,
                   CasebookGpuError* error) {
  if (bytes == 0) return 0;
  CASEBOOK_PLUGIN_CALL(
      CASEBOOK_GPU_PREFIX "Memcpy",
      cudaMemcpy(destination, source, bytes, cudaMemcpyHostToDevice));
  return 0;
}

int copy_to_host(void* destination, const void* source, size_t bytes,
                 CasebookGpuError* error) {
  if (bytes == 0) return 0;
  CASEBOOK_PLUGIN_CALL(
      CASEBOOK_GPU_PREFIX "Memcpy",
      cudaMemcpy(destination, source, bytes, cudaMemcpyDeviceToHost));
  return 0;
}

// Errors after which NVIDIA (and AMD) say the context is unusable.
bool known_sticky(cudaError_t code) {
  return code == cudaErrorAssert || code == cudaErrorIllegalAddress ||
         code == cudaErrorLaunchFailure;
}

int synchronize(int* sticky, CasebookGpuError* error) {
  *sticky = 0;
  const cudaError_t code = cudaDeviceSynchronize();
  const cudaError_t pending = cudaGetLastError();  // clears a non-sticky error
  const cudaError_t first = code != cudaSuccess ? code : pending;
  if (first == cudaSuccess) return 0;
  // A sticky error comes back on every later call, whatever the list says.
  *sticky =
      known_sticky(first) || cudaDeviceSynchronize() != cudaSuccess ? 1 : 0;
  return fail(first, CASEBOOK_GPU_PREFIX "DeviceSynchronize", error);
}

// The launchers, one per row of the kernel list (common/kernel_list.h):
// void sum(const CasebookSumArgs* args, CasebookKernelStatus* status).
#define CASEBOOK_PLUGIN_LAUNCHER(name, Args)                  \
  void name(const Args* args, CasebookKernelStatus* status) { \
    *status = name##_launch(*args);                           \
  }
CASEBOOK_FOR_EACH_KERNEL(CASEBOOK_PLUGIN_LAUNCHER)
#undef CASEBOOK_PLUGIN_LAUNCHER

}  // namespace

CasebookKernelPluginV1 make_plugin_table() {
  CasebookKernelPluginV1 table;
  std::memset(&table, 0, sizeof(table));
  table.abi_version = CASEBOOK_KERNEL_PLUGIN_ABI_VERSION;
  table.struct_size = sizeof(CasebookKernelPluginV1);
  table.backend = CASEBOOK_GPU_PREFIX;
  table.build = CASEBOOK_PLUGIN_BUILD;
  table.variant = "";
  table.device_count = &device_count;
  table.describe = &describe;
  table.device_facts = &device_facts;
  table.set_device = &set_device;
  table.device_malloc = &device_malloc;
  table.device_free = &device_free;
  table.copy_to_device = &copy_to_device;
  table.copy_to_host = &copy_to_host;
  table.synchronize = &synchronize;
#define CASEBOOK_PLUGIN_FILL(name, Args) table.name = &name;
  CASEBOOK_FOR_EACH_KERNEL(CASEBOOK_PLUGIN_FILL)
#undef CASEBOOK_PLUGIN_FILL
  return table;
}

}  // namespace CASEBOOK_GPU_NS
