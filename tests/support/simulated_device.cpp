#include "simulated_device.h"

#include <ATen/ATen.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>

#include "casebook/op_catalog.h"
#include "device/backend_runtime.h"
#include "device/kernel_plugin.h"
#include "kernel_ops/kernel_glue.h"
#include "kernel_ops/kernel_ops.h"

namespace casebook::simulated_device {
namespace {

// The device's state in this process (a worker has its own after fork).
struct DeviceState {
  bool poisoned = false;  // a sticky error surfaced: every call fails
  bool pending = false;   // an error waiting for the next call or synchronize
  bool pending_sticky = false;
};
DeviceState g_state;
int g_live_allocations = 0;
// What the device's launchers run: the CPU references unless a test
// replaced some (use_kernels).
kernel_glue::KernelCpuImplementations g_kernels;

void set_error(CasebookGpuError* error, const char* call, bool sticky) {
  error->code = sticky ? 710 : 2;
  std::snprintf(error->call, sizeof(error->call), "%s", call);
  std::snprintf(error->name, sizeof(error->name), "%s",
                sticky ? "cudaErrorAssert" : "cudaErrorMemoryAllocation");
  std::snprintf(error->text, sizeof(error->text), "%s",
                sticky ? "device-side assert triggered (simulated device)"
                       : "out of memory (simulated device)");
}

// An asynchronous error surfaces at the first call after it; a sticky one at
// every call from then on. Returns nonzero when `call` fails.
int surface(const char* call, CasebookGpuError* error, int* sticky = nullptr) {
  if (g_state.poisoned) {
    set_error(error, call, true);
    if (sticky != nullptr) *sticky = 1;
    return 1;
  }
  if (!g_state.pending) return 0;
  g_state.pending = false;
  set_error(error, call, g_state.pending_sticky);
  if (g_state.pending_sticky) g_state.poisoned = true;
  if (sticky != nullptr) *sticky = g_state.pending_sticky ? 1 : 0;
  return 1;
}

int device_count(int* count, CasebookGpuError*) {
  *count = 1;
  return 0;
}

int describe(char* text, size_t capacity, CasebookGpuError*) {
  std::snprintf(text, capacity, "simulated device (test programs only)");
  return 0;
}

int device_facts(CasebookDeviceFacts* facts, CasebookGpuError*) {
  *facts = CasebookDeviceFacts{};
  facts->major = 8;  // kCapability
  facts->minor = 6;
  std::snprintf(facts->arch, sizeof(facts->arch), "sm_86");
  return 0;
}

int set_device(int, CasebookGpuError* error) {
  return surface("cudaSetDevice", error);
}

int device_malloc(void** pointer, size_t bytes, CasebookGpuError* error) {
  if (surface("cudaMalloc", error) != 0) return 1;
  *pointer = std::malloc(bytes == 0 ? 1 : bytes);
  ++g_live_allocations;
  return 0;
}

int device_free(void* pointer, CasebookGpuError*) {
  if (pointer != nullptr) --g_live_allocations;
  std::free(pointer);
  return 0;
}

int copy(void* destination, const void* source, size_t bytes,
         CasebookGpuError* error) {
  if (surface("cudaMemcpy", error) != 0) return 1;
  // An empty tensor's pointers may be null; memcpy's may not (UBSan).
  if (bytes != 0) std::memcpy(destination, source, bytes);
  return 0;
}

int synchronize(int* sticky, CasebookGpuError* error) {
  *sticky = 0;
  return surface("cudaDeviceSynchronize", error, sticky);
}

// A launch on a poisoned device fails like CUDA's: a device error status.
template <typename Args>
void launch(const Args* args, CasebookKernelStatus* status,
            CasebookKernelStatus (*cpu)(const Args&)) {
  CasebookGpuError error{};
  if (surface("kernel launch", &error) != 0) {
    status->code = CASEBOOK_STATUS_DEVICE_ERROR;
    const std::string message =
        std::string(error.name) + " (" + error.text + ")";
    std::snprintf(status->message, sizeof(status->message), "%s",
                  message.c_str());
    return;
  }
  *status = cpu(*args);
}

// The launchers, one per row of the kernel list (common/kernel_list.h): each
// runs its kernel's CPU reference, or the kernel a test put in its place.
#define CASEBOOK_SIMULATED_LAUNCHER(name, Args)               \
  void name(const Args* args, CasebookKernelStatus* status) { \
    launch(args, status, g_kernels.name);                     \
  }
CASEBOOK_FOR_EACH_KERNEL(CASEBOOK_SIMULATED_LAUNCHER)
#undef CASEBOOK_SIMULATED_LAUNCHER

CasebookKernelPluginV1 make_table() {
  CasebookKernelPluginV1 table{};  // zero: a field left out stays null
  table.abi_version = CASEBOOK_KERNEL_PLUGIN_ABI_VERSION;
  table.struct_size = sizeof(CasebookKernelPluginV1);
  table.backend = "cuda";
  table.build = "simulated device, CPU references";
  table.variant = "";
  table.device_count = &device_count;
  table.describe = &describe;
  table.set_device = &set_device;
  table.device_malloc = &device_malloc;
  table.device_free = &device_free;
  table.copy_to_device = &copy;
  table.copy_to_host = &copy;
  table.synchronize = &synchronize;
  table.device_facts = &device_facts;
#define CASEBOOK_SIMULATED_FILL(name, Args) table.name = &name;
  CASEBOOK_FOR_EACH_KERNEL(CASEBOOK_SIMULATED_FILL)
#undef CASEBOOK_SIMULATED_FILL
  return table;
}
// Built on first use, so no other file's static initialiser sees it empty.
const CasebookKernelPluginV1& table() {
  static const CasebookKernelPluginV1 built = make_table();
  return built;
}

// The device as `backend`'s plugin: its facts are named by that backend's
// hooks (cuda's capability, a registered backend's own).
const KernelPlugin& simulated_plugin(Backend backend = Backend::kCuda) {
  static std::map<Backend, KernelPlugin> plugins;
  auto found = plugins.find(backend);
  if (found == plugins.end()) {
    found = plugins
                .emplace(backend, KernelPlugin{backend, "(simulated device)",
                                               nullptr, &table()})
                .first;
  }
  return found->second;
}

BackendRuntime open_simulated(Backend backend) {
  BackendRuntime runtime;
  runtime.backend = backend;
  runtime.plugin = &simulated_plugin(backend);
  PartReadiness torch;
  torch.state = Readiness::kAbsent;
  torch.reason = "the simulated device has no LibTorch device";
  PartReadiness kernels;
  kernels.state = Readiness::kReady;
  kernels.description = plugin_describe(*runtime.plugin);
  kernels.facts = plugin_device_facts(*runtime.plugin);
  runtime.readiness =
      combine_readiness(backend, std::move(torch), std::move(kernels));
  return runtime;
}

[[noreturn]] void hang() {
  while (true) pause();
}

std::vector<at::Tensor> step(const OpCall& call) {
  const at::Tensor& input = call.input(0);
  if (call.backend == Backend::kCpu) return {input.contiguous().clone()};
  const std::string pid_log = call.arg_string("pid_log", "");
  if (!pid_log.empty()) {
    std::ofstream(pid_log, std::ios::app) << getpid() << "\n";
  }
  const std::string env_log = call.arg_string("env_log", "");
  if (!env_log.empty()) {
    const char* blocking = std::getenv("CUDA_LAUNCH_BLOCKING");
    std::ofstream(env_log, std::ios::app)
        << "CUDA_LAUNCH_BLOCKING=" << (blocking ? blocking : "(unset)") << "\n";
  }
  const KernelPlugin& plugin =
      kernel_glue::require_plugin(call, "testing.simulated_step");
  // Through the kernel glue, as the kernels.* ops go.
  kernel_glue::DeviceTensor device(plugin, input.contiguous());
  at::Tensor output = kernel_glue::copy_to_host(
      plugin, device.data(), input.sizes().vec(), input.scalar_type());
  const std::string then = call.arg_string("then", "pass");
  if (then == "sticky" || then == "error") {
    g_state.pending = true;
    g_state.pending_sticky = then == "sticky";
  } else if (then == "crash") {
    raise(SIGSEGV);
  } else if (then == "hang") {
    const pid_t grandchild = fork();
    if (grandchild == 0) hang();
    std::ofstream(call.arg_string("pid_file", "")) << grandchild << "\n";
    hang();
  } else if (then != "pass") {
    throw OpError(
        Family::kContract,
        "testing.simulated_step: `then` is pass, sticky, error, crash or "
        "hang; got `" +
            then + "`");
  }
  return {output};
}

}  // namespace

void install(Backend backend) {
  replace_backend_for_tests(backend,
                            [backend] { return open_simulated(backend); });
}

void uninstall(Backend backend) { replace_backend_for_tests(backend, nullptr); }

Installed::Installed(Backend backend) : backend_(backend) {
  if (is_gpu(backend_)) install(backend_);
}

Installed::~Installed() {
  if (is_gpu(backend_)) uninstall(backend_);
}

const KernelPlugin& plugin() { return simulated_plugin(); }

void use_kernels(const kernel_glue::KernelCpuImplementations& kernels) {
  g_kernels = kernels;
}

KernelsReplaced::KernelsReplaced(
    const kernel_glue::KernelCpuImplementations& kernels) {
  use_kernels(kernels);
}

KernelsReplaced::~KernelsReplaced() { use_kernels({}); }

int live_allocations() { return g_live_allocations; }

void write_poisoning_set(const std::filesystem::path& folder, int count,
                         const std::set<int>& poisoning) {
  std::filesystem::create_directories(folder);
  for (int i = 0; i < count; ++i) {
    char name[32];
    std::snprintf(name, sizeof(name), "case_%03d.yaml", i);
    const bool poisons = poisoning.count(i) > 0;
    std::ofstream file(folder / name);
    file << "casebook: 1\n"
         << "summary: simulated step " << i << "\n"
         << "op: testing.simulated_step\n"
         << "backends: [cpu, cuda]\n"
         << "args: {then: " << (poisons ? "sticky" : "pass") << "}\n"
         << "inputs:\n  input: {dtype: float32, values: [1, 2, " << i << "]}\n";
    if (poisons) file << "expect:\n  cuda: {error: device_assert}\n";
  }
}

const OpRegistry& registry() {
  static const OpRegistry registry = [] {
    OpRegistry r;
    register_all(r);
    OpDef def;
    def.name = "testing.simulated_step";
    def.inputs = {"input"};
    def.args = {"then", "pid_file", "pid_log", "env_log"};
    def.placement = OpDef::Placement::kHost;
    def.needs_kernel_plugin = true;
    def.run = &step;
    def.file = __FILE__;
    def.line = __LINE__;
    r.add(std::move(def));
    return r;
  }();
  return registry;
}

}  // namespace casebook::simulated_device
