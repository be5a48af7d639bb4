#include "casebook/backend.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace casebook {
namespace {

struct Registered {
  std::vector<Backend> backends{Backend::kCpu, Backend::kCuda, Backend::kHip};
  std::vector<std::pair<Backend, std::string>> names;  // registered only
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

std::string backend_names() {
  std::string names;
  for (Backend backend : all_backends()) {
    names += (names.empty() ? "" : ", ") + std::string(backend_name(backend));
  }
  return names;
}

Backend register_backend_name(std::string_view name) {
  if (!valid_name(name)) {
    throw std::invalid_argument(
        "a backend's name is lower-case letters, digits and '_', not '" +
        std::string(name) + "'");
  }
  if (parse_backend(name)) {
    throw std::invalid_argument("the backend name '" + std::string(name) +
                                "' is taken");
  }
  Registered& table = registered();
  const Backend backend = static_cast<Backend>(table.next++);
  table.backends.push_back(backend);
  table.names.emplace_back(backend, std::string(name));
  return backend;
}

void unregister_backend_name(Backend backend) {
  Registered& table = registered();
  table.names.erase(std::remove_if(table.names.begin(), table.names.end(),
                                   [backend](const auto& entry) {
                                     return entry.first == backend;
                                   }),
                    table.names.end());
  if (static_cast<int>(backend) > static_cast<int>(Backend::kHip)) {
    table.backends.erase(
        std::remove(table.backends.begin(), table.backends.end(), backend),
        table.backends.end());
  }
}

}  // namespace casebook
