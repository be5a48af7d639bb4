// The bound-check slot of the GPU kernels that take indices: kernels record
// the lowest offending position with atomicMin, the launcher reads it back.
// No device assert (it would poison the context and, under NDEBUG, vanish).
#pragma once

#include "common/gpu_portability.h"
#include "common/scalar_convert.h"

namespace CASEBOOK_GPU_NS {

using FirstBadPosition = unsigned long long;
constexpr FirstBadPosition kNoBadPosition = ~0ull;

__device__ __forceinline__ void record_bad_position(FirstBadPosition* slot,
                                                    int64_t position) {
  atomicMin(slot, static_cast<FirstBadPosition>(position));
}

inline CasebookKernelStatus reset_bad_position(FirstBadPosition* slot,
                                               cudaStream_t stream,
                                               const char* kernel) {
  // All bytes 0xff: kNoBadPosition.
  CASEBOOK_GPU_CHECK(cudaMemsetAsync(slot, 0xff, sizeof(*slot), stream),
                     kernel);
  return casebook::kernels::ok_status();
}

// Waits for the stream, then turns a recorded position into the status
// "<what> V at position P is outside [0, high)", reading V from `indices`.
inline CasebookKernelStatus read_bad_position(
    const FirstBadPosition* slot, cudaStream_t stream, const void* indices,
    CasebookScalarType index_type, int64_t index_stride, const char* what,
    int64_t high, const char* kernel) {
  FirstBadPosition position = kNoBadPosition;
  CASEBOOK_GPU_CHECK(cudaMemcpyAsync(&position, slot, sizeof(position),
                                     cudaMemcpyDeviceToHost, stream),
                     kernel);
  CASEBOOK_GPU_CHECK(cudaStreamSynchronize(stream), kernel);
  if (position == kNoBadPosition) return casebook::kernels::ok_status();
  const int64_t row = static_cast<int64_t>(position);
  const size_t element = index_type == CASEBOOK_INT32 ? 4 : 8;
  int64_t value64 = 0;
  int32_t value32 = 0;
  void* value = index_type == CASEBOOK_INT32 ? static_cast<void*>(&value32)
                                             : static_cast<void*>(&value64);
  CASEBOOK_GPU_CHECK(cudaMemcpy(value,
                                static_cast<const char*>(indices) +
                                    row * index_stride * element,
                                element, cudaMemcpyDeviceToHost),
                     kernel);
  return casebook::kernels::index_out_of_range(
      what, row, index_type == CASEBOOK_INT32 ? value32 : value64, 0, high);
}

}  // namespace CASEBOOK_GPU_NS
