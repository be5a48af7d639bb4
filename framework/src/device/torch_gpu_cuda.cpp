// LibTorch built with CUDA (the GPU machine's 2.x). Only in child processes.
// It asks the CUDA runtime itself, then LibTorch, and says which one failed.
#include <ATen/Context.h>  // at::hasCUDA
#include <cuda_runtime_api.h>
#include <torch/version.h>

#include <sstream>

#include "device/torch_gpu.h"

namespace casebook {

PartReadiness probe_torch_gpu(Backend backend) {
  PartReadiness part;
  if (backend != Backend::kCuda) {
    part.reason = "LibTorch here is a CUDA build: torch.* ops have no " +
                  std::string(backend_name(backend)) + " device";
    return part;
  }
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    const std::string reason =
        status != cudaSuccess
            ? std::string("cudaGetDeviceCount returned ") +
                  cudaGetErrorName(status) + " (" + cudaGetErrorString(status) +
                  ")"
            : std::string("cudaGetDeviceCount returned 0 devices");
    return runtime_failure(backend, reason, device_node_present(backend));
  }
  // The runtime sees a device: LibTorch must too. A CUDA LibTorch whose CUDA
  // part was not loaded (libtorch_cuda.so dropped by --as-needed) would
  // otherwise pass for a CPU-only one and skip everything.
  if (!at::hasCUDA()) {
    part.state = Readiness::kBroken;
    part.reason = "LibTorch " TORCH_VERSION
                  " is a CUDA build and the CUDA runtime sees " +
                  std::to_string(count) +
                  " device(s), but at::hasCUDA() is false: libtorch_cuda.so "
                  "is not loaded (linked with --as-needed?)";
    return part;
  }
  cudaDeviceProp props{};
  status = cudaGetDeviceProperties(&props, 0);
  if (status != cudaSuccess) {
    part.state = Readiness::kBroken;
    part.reason = std::string("cudaGetDeviceProperties returned ") +
                  cudaGetErrorName(status) + " (" + cudaGetErrorString(status) +
                  ")";
    return part;
  }
  part.state = Readiness::kReady;
  int runtime = 0;
  int driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  std::ostringstream text;
  text << "LibTorch " << TORCH_VERSION << ", CUDA runtime " << runtime / 1000
       << "." << (runtime % 1000) / 10 << ", driver " << driver / 1000 << "."
       << (driver % 1000) / 10 << ", " << count << " device(s), " << props.name
       << " (sm_" << props.major << props.minor << ")";
  part.description = text.str();
  part.facts["capability"] =
      std::to_string(props.major) + "." + std::to_string(props.minor);
  return part;
}

std::string synchronize_torch_gpu(bool* poisoned) {
  *poisoned = false;
  cudaError_t status = cudaDeviceSynchronize();
  if (status == cudaSuccess) status = cudaGetLastError();
  if (status == cudaSuccess) return {};
  // Any error seen here may have come from an earlier kernel: nothing proves
  // it harmless, so the worker retires (NVIDIA: restart the process).
  *poisoned = true;
  return std::string("CUDA error: ") + cudaGetErrorString(status) + " (" +
         cudaGetErrorName(status) + ")";
}

}  // namespace casebook
