#include "casebook/backend.h"

#include <algorithm>
#include <list>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

#include "casebook/case.h"
#include "casebook/gpu_stack.h"
#include "casebook/joined.h"

namespace casebook {
namespace {

struct Registered {
  std::vector<Backend> backends = built_in_backends();
  // Registered only. A list: backend_name's views stay while others come
  // and go.
  std::list<std::pair<Backend, std::string>> names;
  std::map<Backend, std::vector<DeviceFactName>> facts{
      {Backend::kCuda, {{"capability", "compute capability"}}},
      {Backend::kHip, {{"gfx", ""}}}};
  int next = static_cast<int>(Backend::kHip) + 1;
};

Registered& registered() {
  static Registered table;
  return table;
}

bool valid_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

}  // namespace

std::string_view backend_name(Backend backend) {
  switch (backend) {
    case Backend::kCpu:
      return "cpu";
    case Backend::kCuda:
      return "cuda";
    case Backend::kHip:
      return "hip";
  }
  for (const auto& [value, name] : registered().names) {
    if (value == backend) return name;
  }
  return "unknown";
}

std::optional<Backend> parse_backend(std::string_view name) {
  for (Backend backend : all_backends()) {
    if (backend_name(backend) == name) return backend;
  }
  return std::nullopt;
}

const std::vector<Backend>& all_backends() { return registered().backends; }

std::optional<Backend> backend_of_torch_device(std::string_view device,
                                               bool rocm) {
  if (device == "cpu") return Backend::kCpu;
  if (device == "cuda") return rocm ? Backend::kHip : Backend::kCuda;
  if (device == "hip") return Backend::kHip;
  return std::nullopt;
}

const std::vector<std::pair<std::string, std::string>>&
launch_blocking_variables(Backend backend) {
  static const std::vector<std::pair<std::string, std::string>> none;
  static const std::vector<std::pair<std::string, std::string>> cuda{
      {"CUDA_LAUNCH_BLOCKING", "1"}};
  static const std::vector<std::pair<std::string, std::string>> hip{
      {"HIP_LAUNCH_BLOCKING", "1"}, {"AMD_SERIALIZE_KERNEL", "3"}};
  if (backend == Backend::kCuda) return cuda;
  return backend == Backend::kHip ? hip : none;
}

const std::vector<Backend>& built_in_backends() {
  static const std::vector<Backend> backends{Backend::kCpu, Backend::kCuda,
                                             Backend::kHip};
  return backends;
}

std::string backend_names() {
  return joined(all_backends(), ", ", backend_name);
}

std::string backend_alternatives() {
  const std::vector<Backend>& every = all_backends();
  std::string names;
  for (size_t i = 0; i < every.size(); ++i) {
    if (i > 0) names += i + 1 == every.size() ? " or " : ", ";
    names += backend_name(every[i]);
  }
  return names;
}

const std::vector<DeviceFactName>& device_fact_names(Backend backend) {
  static const std::vector<DeviceFactName> none;
  const auto found = registered().facts.find(backend);
  return found == registered().facts.end() ? none : found->second;
}

std::optional<Backend> backend_of_device_fact(std::string_view fact) {
  for (const auto& [backend, facts] : registered().facts) {
    for (const DeviceFactName& known : facts) {
      if (known.name == fact) return backend;
    }
  }
  return std::nullopt;
}

Backend register_backend_name(std::string_view name,
                              std::vector<DeviceFactName> facts) {
  if (!valid_name(name)) {
    throw std::invalid_argument(
        "a backend's name is lower-case letters, digits and '_', not '" +
        std::string(name) + "'");
  }
  if (parse_backend(name)) {
    throw std::invalid_argument("the backend name '" + std::string(name) +
                                "' is taken");
  }
  for (const DeviceFactName& fact : facts) {
    if (!valid_name(fact.name) || is_host_fact(fact.name) ||
        backend_of_device_fact(fact.name)) {
      throw std::invalid_argument("the device fact '" + fact.name +
                                  "' is not a new, lower-case name");
    }
  }
  Registered& table = registered();
  const Backend backend = static_cast<Backend>(table.next++);
  table.backends.push_back(backend);
  table.names.emplace_back(backend, std::string(name));
  if (!facts.empty()) table.facts[backend] = std::move(facts);
  return backend;
}

void unregister_backend_name(Backend backend) {
  Registered& table = registered();
  table.names.remove_if(
      [backend](const auto& entry) { return entry.first == backend; });
  if (static_cast<int>(backend) > static_cast<int>(Backend::kHip)) {
    table.facts.erase(backend);
    table.backends.erase(
        std::remove(table.backends.begin(), table.backends.end(), backend),
        table.backends.end());
  }
}

}  // namespace casebook
