// What a GPU stack calls things: PyTorch's device names as casebook's
// backends (a ROCm PyTorch keeps the `cuda` names for AMD GPUs), and the
// switches its runtime reads.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "casebook/backend.h"

namespace casebook {

// The backend of a tensor on PyTorch's device `device` ("cpu", "cuda": the
// words torch.device and c10::DeviceTypeName give). `rocm`: PyTorch is a
// ROCm build (torch.version.hip is set; a ROCm LibTorch), which keeps the
// `cuda` names for AMD GPUs, so that its `cuda` is casebook's hip. nullopt
// for a device no backend is ("mps", "meta").
std::optional<Backend> backend_of_torch_device(std::string_view device,
                                               bool rocm);

// The variables that make every kernel launch of a built-in GPU backend
// wait for its end, as (name, value): CUDA_LAUNCH_BLOCKING=1 on cuda;
// HIP_LAUNCH_BLOCKING=1 and AMD_SERIALIZE_KERNEL=3 (wait before and after
// each kernel) on hip, ROCm's own (HIP's debug variables), never CUDA's.
// Empty for cpu and a registered backend (its hooks say its own). The one
// table: the device's hooks (the synchronised reruns) and the advice read it.
const std::vector<std::pair<std::string, std::string>>&
launch_blocking_variables(Backend backend);

}  // namespace casebook
