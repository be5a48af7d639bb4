// LibTorch built with CUDA (the GPU machine's 2.x). Only in child processes.
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAFunctions.h>
#include <cuda_runtime_api.h>
#include <torch/version.h>

#include <sstream>

#include "gpu/torch_gpu.h"

namespace casebook {

TorchGpuProbe probe_torch_gpu(Backend backend) {
  TorchGpuProbe probe;
  if (backend != Backend::kCuda) {
    probe.why_not = "LibTorch here is a CUDA build: torch.* ops have no " +
                    std::string(backend_name(backend)) + " device";
    return probe;
  }
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    probe.why_not =
        std::string("no CUDA device: cudaGetDeviceCount returned ") +
        cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")";
    return probe;
  }
  if (count == 0) {
    probe.why_not = "no CUDA device: cudaGetDeviceCount returned 0 devices";
    return probe;
  }
  probe.available = true;
  probe.device_count = count;
  int runtime = 0;
  int driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  const cudaDeviceProp* props = at::cuda::getDeviceProperties(0);
  std::ostringstream text;
  text << "LibTorch " << TORCH_VERSION << ", CUDA runtime " << runtime / 1000
       << "." << (runtime % 1000) / 10 << ", driver " << driver / 1000 << "."
       << (driver % 1000) / 10 << ", " << props->name << " (sm_" << props->major
       << props->minor << ")";
  probe.description = text.str();
  return probe;
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
