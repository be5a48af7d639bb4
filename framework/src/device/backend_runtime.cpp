#include "device/backend_runtime.h"

#include <map>

#include "casebook/ops.h"
#include "device/backend_hooks.h"
#include "device/kernel_plugin.h"

namespace casebook {
namespace {

std::map<Backend, BackendOpener>& replaced_backends() {
  static std::map<Backend, BackendOpener> openers;
  return openers;
}

// The kernel plugin's part: absent when casebook was built without it or the
// runtime finds no device on a host that shows none; broken when the file is
// there and does not load, or the host shows a device the runtime cannot use.
PartReadiness open_plugin_part(Backend backend, const KernelPlugin** plugin) {
  PartReadiness part;
  std::string why_not;
  *plugin = backend_kernel_plugin(backend, &why_not);
  if (*plugin == nullptr) {
    part.state = kernel_plugin_file_present(backend) ? Readiness::kBroken
                                                     : Readiness::kAbsent;
    part.reason = why_not;
    return part;
  }
  int count = 0;
  std::string error;
  const bool asked = plugin_device_count(**plugin, &count, &error);
  if (!asked || count == 0) {
    return runtime_failure(backend,
                           asked ? "the runtime reports 0 devices" : error,
                           device_node_present(backend));
  }
  part.state = Readiness::kReady;
  part.description = plugin_describe(**plugin);
  part.facts = plugin_device_facts(**plugin);
  return part;
}

}  // namespace

PartReadiness BackendRuntime::part_for(const OpDef& op) const {
  return part_readiness(readiness, backend, op);
}

std::vector<std::pair<std::string, std::string>> launch_blocking_environment(
    Backend backend) {
  return backend_hooks(backend).launch_blocking;
}

BackendRuntime open_backend_runtime(Backend backend) {
  auto replaced = replaced_backends().find(backend);
  if (replaced != replaced_backends().end()) return replaced->second();
  BackendRuntime runtime;
  runtime.backend = backend;
  if (!is_gpu(backend)) {
    runtime.readiness.state = Readiness::kReady;
    runtime.readiness.torch.state = Readiness::kReady;
    runtime.readiness.kernels.state = Readiness::kReady;
    return runtime;
  }
  PartReadiness torch = backend_hooks(backend).probe_torch(backend);
  PartReadiness kernels = open_plugin_part(backend, &runtime.plugin);
  if (!kernels.ready()) runtime.plugin = nullptr;
  runtime.readiness =
      combine_readiness(backend, std::move(torch), std::move(kernels));
  return runtime;
}

const KernelPlugin* backend_kernel_plugin(Backend backend,
                                          std::string* why_not) {
  const auto replaced = replaced_backends().find(backend);
  if (replaced == replaced_backends().end()) {
    return load_kernel_plugin(backend, why_not);
  }
  const BackendRuntime runtime = replaced->second();
  if (runtime.plugin == nullptr && why_not != nullptr) {
    *why_not = runtime.readiness.kernels.reason;
  }
  return runtime.plugin;
}

void replace_backend_for_tests(Backend backend, BackendOpener opener) {
  if (opener) {
    replaced_backends()[backend] = std::move(opener);
  } else {
    replaced_backends().erase(backend);
  }
}

}  // namespace casebook
