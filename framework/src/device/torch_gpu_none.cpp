// LibTorch built without CUDA (Debian's libtorch-dev is CPU only).
#include <torch/version.h>

#include "casebook_build_config.h"
#include "device/torch_gpu.h"

namespace casebook {

PartReadiness probe_torch_gpu(Backend backend) {
  PartReadiness part;
  part.state = Readiness::kAbsent;
  part.reason = std::string("LibTorch ") + TORCH_VERSION +
                " here is built for the CPU only (" CASEBOOK_TORCH_FLAVOUR
                "): torch.* ops have no " +
                std::string(backend_name(backend)) + " device";
  return part;
}

std::string synchronize_torch_gpu(bool* poisoned) {
  *poisoned = false;
  return {};
}

}  // namespace casebook
