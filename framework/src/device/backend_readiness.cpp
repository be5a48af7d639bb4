#include "device/backend_readiness.h"

#include <nlohmann/json.hpp>
#include <system_error>

#include "casebook/ops.h"
#include "device/backend_hooks.h"

namespace casebook {
namespace fs = std::filesystem;

std::string_view readiness_name(Readiness readiness) {
  switch (readiness) {
    case Readiness::kReady:
      return "ready";
    case Readiness::kAbsent:
      return "absent";
    case Readiness::kBroken:
      return "broken";
  }
  return "broken";
}

namespace {

// The parts' names in reasons: "LibTorch's CUDA device", "the kernel plugin".
std::string torch_part_name(Backend backend) {
  return "LibTorch's " + std::string(backend_hooks(backend).runtime) +
         " device";
}
constexpr const char* kPluginPartName = "the kernel plugin";

// A broken part's reason names the part, as the backend's does.
PartReadiness named_part(PartReadiness part, const std::string& name) {
  if (part.state == Readiness::kBroken) {
    part.reason = name + ": " + part.reason;
  }
  return part;
}

}  // namespace

PartReadiness part_readiness(const BackendReadiness& readiness, Backend backend,
                             const OpDef& op) {
  if (is_gpu(backend) && op.placement == OpDef::Placement::kBackendDevice) {
    return named_part(readiness.torch, torch_part_name(backend));
  }
  if (is_gpu(backend) && op.needs_kernel_plugin) {
    return named_part(readiness.kernels, kPluginPartName);
  }
  return whole_backend(readiness);
}

PartReadiness whole_backend(const BackendReadiness& readiness) {
  return PartReadiness{readiness.state, readiness.reason, readiness.description,
                       readiness.facts};
}

BackendReadiness combine_readiness(Backend backend, PartReadiness torch,
                                   PartReadiness kernels) {
  BackendReadiness result;
  if (!is_gpu(backend)) {
    result.state = Readiness::kReady;
    return result;
  }
  if (torch.state == Readiness::kBroken ||
      kernels.state == Readiness::kBroken) {
    result.state = Readiness::kBroken;
    if (torch.state == Readiness::kBroken) {
      result.reason = torch_part_name(backend) + ": " + torch.reason;
    }
    if (kernels.state == Readiness::kBroken) {
      result.reason += (result.reason.empty() ? "" : "; ") +
                       std::string(kPluginPartName) + ": " + kernels.reason;
    }
  } else if (torch.ready() || kernels.ready()) {
    result.state = Readiness::kReady;
    result.facts = torch.facts;
    result.facts.insert(kernels.facts.begin(), kernels.facts.end());
    result.description = torch.description;
    if (!kernels.description.empty()) {
      result.description += (result.description.empty() ? "" : "; kernels: ") +
                            kernels.description;
    }
    // A ready backend with a part that cannot run says so: its cases skip.
    if (!torch.ready()) {
      result.description +=
          "; " + torch_part_name(backend) + " absent: " + torch.reason;
    }
    if (!kernels.ready()) {
      result.description +=
          "; " + std::string(kPluginPartName) + " absent: " + kernels.reason;
    }
  } else {
    // The kernel plugin speaks for the device when it asked the runtime;
    // without it, both reasons, and one where both parts asked the same
    // runtime the same question (a CUDA LibTorch and the CUDA plugin on a
    // machine without a driver).
    result.state = Readiness::kAbsent;
    result.reason =
        kernels.reason.empty() || kernels.reason == torch.reason ? torch.reason
        : torch.reason.empty() ? kernels.reason
                               : kernels.reason + "; " + torch.reason;
  }
  result.torch = std::move(torch);
  result.kernels = std::move(kernels);
  return result;
}

bool device_node_present(Backend backend, const fs::path& root) {
  if (!is_gpu(backend)) return true;
  const BackendHooks& hooks = backend_hooks(backend);
  std::error_code error;
  for (std::string_view file : hooks.device_files) {
    if (fs::exists(root / file, error)) return true;
  }
  for (std::string_view folder : hooks.device_folders) {
    if (fs::is_directory(root / folder, error) &&
        fs::directory_iterator(root / folder, error) !=
            fs::directory_iterator()) {
      return true;
    }
  }
  return false;
}

namespace {

// "no NVIDIA driver or device (no /dev/nvidia0, nothing in
// /proc/driver/nvidia/gpus)": what the host lacks, by the paths looked at.
std::string no_driver_or_device(const BackendHooks& hooks) {
  std::string looked;
  for (std::string_view file : hooks.device_files) {
    looked += (looked.empty() ? "no /" : ", no /") + std::string(file);
  }
  for (std::string_view folder : hooks.device_folders) {
    looked += (looked.empty() ? "nothing in /" : ", nothing in /") +
              std::string(folder);
  }
  return "no " + std::string(hooks.missing_driver_or_device) +
         (looked.empty() ? "" : " (" + looked + ")");
}

}  // namespace

PartReadiness runtime_failure(Backend backend, const std::string& reason,
                              bool device_present) {
  PartReadiness part;
  const BackendHooks& hooks = backend_hooks(backend);
  const std::string device(hooks.runtime);
  if (device_present) {
    part.state = Readiness::kBroken;
    const std::string_view shown =
        !hooks.device_files.empty()     ? hooks.device_files.front()
        : !hooks.device_folders.empty() ? hooks.device_folders.front()
                                        : std::string_view("its device node");
    part.reason = "a " + device + " device is present (/" + std::string(shown) +
                  ") but the runtime cannot use it: " + reason;
  } else {
    part.state = Readiness::kAbsent;
    part.reason =
        "no " + device + " device: " +
        (hooks.missing_driver_or_device.empty() ? reason
                                                : no_driver_or_device(hooks));
  }
  return part;
}

BackendReadiness probe_failure(const std::string& reason) {
  BackendReadiness result;
  result.state = Readiness::kBroken;
  result.reason = reason;
  result.torch = PartReadiness{Readiness::kBroken, reason, {}, {}};
  result.kernels = result.torch;
  return result;
}

namespace {

nlohmann::json part_json(const PartReadiness& part) {
  return {{"state", std::string(readiness_name(part.state))},
          {"reason", part.reason},
          {"description", part.description},
          {"facts", part.facts}};
}

Readiness parse_state(const std::string& name) {
  if (name == "ready") return Readiness::kReady;
  if (name == "absent") return Readiness::kAbsent;
  return Readiness::kBroken;
}

PartReadiness part_from(const nlohmann::json& json) {
  PartReadiness part;
  part.state = parse_state(json.at("state").get<std::string>());
  part.reason = json.value("reason", "");
  part.description = json.value("description", "");
  part.facts = json.value("facts", DeviceFacts{});
  return part;
}

}  // namespace

std::string readiness_to_json(const BackendReadiness& readiness) {
  nlohmann::json json = {
      {"state", std::string(readiness_name(readiness.state))},
      {"reason", readiness.reason},
      {"description", readiness.description},
      {"facts", readiness.facts},
      {"torch", part_json(readiness.torch)},
      {"kernels", part_json(readiness.kernels)}};
  return json.dump();
}

BackendReadiness readiness_from_json(const std::string& text) {
  const nlohmann::json json = nlohmann::json::parse(text);
  BackendReadiness readiness;
  readiness.state = parse_state(json.at("state").get<std::string>());
  readiness.reason = json.value("reason", "");
  readiness.description = json.value("description", "");
  readiness.facts = json.value("facts", DeviceFacts{});
  readiness.torch = part_from(json.at("torch"));
  readiness.kernels = part_from(json.at("kernels"));
  return readiness;
}

}  // namespace casebook
