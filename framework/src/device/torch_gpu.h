// LibTorch's own GPU device (torch.* ops on cuda), as this build of LibTorch
// has it. Every function here initialises CUDA: call them only in a child
// process, never in the runner (a CUDA context does not survive fork()).
#pragma once

#include <string>

#include "casebook/backend.h"
#include "device/backend_readiness.h"

namespace casebook {

// The LibTorch part of a GPU backend (device/backend_readiness.h): absent
// for a CPU-only LibTorch or a backend LibTorch was not built for, or when
// the runtime finds no device on a host that shows none; broken when the host
// shows a device that the runtime or LibTorch cannot use.
PartReadiness probe_torch_gpu(Backend backend);

// Synchronises the device LibTorch uses and returns the first pending error
// ("" when clean). *poisoned: the error is sticky or cannot be proved
// harmless, so the process must not run another case.
std::string synchronize_torch_gpu(bool* poisoned);

}  // namespace casebook
