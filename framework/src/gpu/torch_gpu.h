// LibTorch's own GPU device (torch.* ops on cuda), as this build of LibTorch
// has it. Every function here initialises CUDA: call them only in a child
// process, never in the runner (a CUDA context does not survive fork()).
#pragma once

#include <string>

#include "casebook/backend.h"

namespace casebook {

struct TorchGpuProbe {
  bool available = false;
  std::string why_not;  // "LibTorch 1.13.1 here is built for the CPU only"
  int device_count = 0;
  std::string description;  // runtime, cuDNN, device name and capability
};

TorchGpuProbe probe_torch_gpu(Backend backend);

// Synchronises the device LibTorch uses and returns the first pending error
// ("" when clean). *poisoned: the error is sticky or cannot be proved
// harmless, so the process must not run another case.
std::string synchronize_torch_gpu(bool* poisoned);

}  // namespace casebook
