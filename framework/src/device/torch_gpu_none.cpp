// LibTorch built without CUDA (Debian's libtorch-dev is CPU only), or a
// ROCm LibTorch.
#include <torch/version.h>

#include <string_view>

#include "casebook_build_config.h"
#include "device/torch_gpu.h"

namespace casebook {

PartReadiness probe_torch_gpu(Backend backend) {
  PartReadiness part;
  part.state = Readiness::kAbsent;
  // A ROCm LibTorch comes here too: casebook drives no HIP device of
  // LibTorch's yet (framework/CMakeLists.txt).
  const bool rocm = std::string_view(CASEBOOK_TORCH_FLAVOUR) == "rocm";
  part.reason =
      std::string("LibTorch ") + TORCH_VERSION +
      (rocm ? " here is a ROCm build, whose device casebook does "
              "not drive yet"
            : " here is built for the CPU only (" CASEBOOK_TORCH_FLAVOUR ")") +
      ": torch.* ops have no " + std::string(backend_name(backend)) + " device";
  return part;
}

std::string synchronize_torch_gpu(bool* poisoned) {
  *poisoned = false;
  return {};
}

}  // namespace casebook
