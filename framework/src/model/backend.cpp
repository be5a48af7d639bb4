#include "casebook/backend.h"

namespace casebook {

std::string_view backend_name(Backend backend) {
  switch (backend) {
    case Backend::kCpu:
      return "cpu";
    case Backend::kCuda:
      return "cuda";
    case Backend::kHip:
      return "hip";
  }
  return "unknown";
}

std::optional<Backend> parse_backend(std::string_view name) {
  for (Backend backend : all_backends()) {
    if (backend_name(backend) == name) return backend;
  }
  return std::nullopt;
}

const std::vector<Backend>& all_backends() {
  static const std::vector<Backend> backends{Backend::kCpu, Backend::kCuda,
                                             Backend::kHip};
  return backends;
}

}  // namespace casebook
