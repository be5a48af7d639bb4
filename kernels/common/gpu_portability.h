// One kernel source, two GPU toolchains: CUDA syntax, mapped to HIP when the
// file is compiled by hipcc (as PyTorch's hipify does, without rewriting
// files). Include it first in every .cu file.
//
// CASEBOOK_GPU_NS names the namespace of a build's symbols (casebook_cuda or
// casebook_hip), so the two builds never define the same symbol.
#pragma once

#if defined(__HIP_PLATFORM_AMD__) || defined(__HIPCC__)
#include <hip/hip_runtime.h>

#define CASEBOOK_GPU_NS casebook_hip
#define CASEBOOK_GPU_API_NAME "HIP"
#define CASEBOOK_GPU_PREFIX "hip"

#define cudaError_t hipError_t
#define cudaSuccess hipSuccess
#define cudaStream_t hipStream_t
#define cudaDeviceProp hipDeviceProp_t
#define cudaGetErrorName hipGetErrorName
#define cudaGetErrorString hipGetErrorString
#define cudaGetLastError hipGetLastError
#define cudaPeekAtLastError hipPeekAtLastError
#define cudaGetDeviceCount hipGetDeviceCount
#define cudaGetDeviceProperties hipGetDeviceProperties
#define cudaGetDevice hipGetDevice
#define cudaSetDevice hipSetDevice
#define cudaRuntimeGetVersion hipRuntimeGetVersion
#define cudaDriverGetVersion hipDriverGetVersion
#define cudaMalloc hipMalloc
#define cudaFree hipFree
#define cudaMemcpy hipMemcpy
#define cudaMemcpyAsync hipMemcpyAsync
#define cudaMemsetAsync hipMemsetAsync
#define cudaMemcpyHostToDevice hipMemcpyHostToDevice
#define cudaMemcpyDeviceToHost hipMemcpyDeviceToHost
#define cudaDeviceSynchronize hipDeviceSynchronize
#define cudaStreamSynchronize hipStreamSynchronize
#define cudaErrorAssert hipErrorAssert
#define cudaErrorIllegalAddress hipErrorIllegalAddress
#define cudaErrorLaunchFailure hipErrorLaunchFailure

// HIP 5.2 has no *_sync shuffles; a wavefront (32 or 64 lanes) is in lockstep.
#define CASEBOOK_SHFL_DOWN(value, offset) __shfl_down((value), (offset))

#else  // CUDA
#include <cuda_runtime.h>

#define CASEBOOK_GPU_NS casebook_cuda
#define CASEBOOK_GPU_API_NAME "CUDA"
#define CASEBOOK_GPU_PREFIX "cuda"

#define CASEBOOK_SHFL_DOWN(value, offset) \
  __shfl_down_sync(0xffffffffu, (value), (offset))
#endif

#include "common/kernel_status.h"

namespace CASEBOOK_GPU_NS {

// The status for a failed runtime call: "cudaErrorIllegalAddress: an illegal
// memory access was encountered (sum: copying the result)".
inline CasebookKernelStatus device_error(cudaError_t error, const char* where) {
  return casebook::kernels::error_status(CASEBOOK_STATUS_DEVICE_ERROR,
                                         "%s: %s (%s)", cudaGetErrorName(error),
                                         cudaGetErrorString(error), where);
}

// Checks the launch just made (bad configuration, no device, a sticky error
// of an earlier kernel) without waiting for the kernel.
inline CasebookKernelStatus launch_status(const char* kernel) {
  const cudaError_t error = cudaGetLastError();
  return error == cudaSuccess ? casebook::kernels::ok_status()
                              : device_error(error, kernel);
}

}  // namespace CASEBOOK_GPU_NS

// Evaluates a runtime call; on failure returns its status from the function.
#define CASEBOOK_GPU_CHECK(call, where)                               \
  do {                                                                \
    const cudaError_t casebook_error_ = (call);                       \
    if (casebook_error_ != cudaSuccess) {                             \
      return ::CASEBOOK_GPU_NS::device_error(casebook_error_, where); \
    }                                                                 \
  } while (0)

// Returns the status from the function unless it is OK.
#define CASEBOOK_RETURN_IF_ERROR(expression)                                  \
  do {                                                                        \
    const CasebookKernelStatus casebook_status_ = (expression);               \
    if (casebook_status_.code != CASEBOOK_STATUS_OK) return casebook_status_; \
  } while (0)
