// Argument checks shared by the CPU references and the GPU launchers, so
// both backends reject the same inputs with the same message.
#pragma once

#include "common/kernel_status.h"

namespace casebook::kernels {

inline CasebookKernelStatus check_floating(const char* kernel, const char* what,
                                           CasebookScalarType type) {
  if (is_floating_type(type)) return ok_status();
  return error_status(CASEBOOK_STATUS_INVALID_ARGUMENT,
                      "%s: %s must be float32, float16 or bfloat16, got %s",
                      kernel, what, scalar_type_name(type));
}

inline CasebookKernelStatus check_index(const char* kernel, const char* what,
                                        CasebookScalarType type) {
  if (is_index_type(type)) return ok_status();
  return error_status(CASEBOOK_STATUS_INVALID_ARGUMENT,
                      "%s: %s must be int32 or int64, got %s", kernel, what,
                      scalar_type_name(type));
}

inline CasebookKernelStatus check_non_negative(const char* kernel,
                                               const char* what,
                                               int64_t value) {
  if (value >= 0) return ok_status();
  return error_status(CASEBOOK_STATUS_INVALID_ARGUMENT,
                      "%s: %s must be >= 0, got %lld", kernel, what,
                      static_cast<long long>(value));
}

inline CasebookKernelStatus check_pointer(const char* kernel, const char* what,
                                          const void* pointer, bool needed) {
  if (pointer != nullptr || !needed) return ok_status();
  return error_status(CASEBOOK_STATUS_INVALID_ARGUMENT, "%s: %s is null",
                      kernel, what);
}

// The first non-OK status of a list, else OK.
inline CasebookKernelStatus first_error(
    std::initializer_list<CasebookKernelStatus> statuses) {
  for (const CasebookKernelStatus& status : statuses) {
    if (status.code != CASEBOOK_STATUS_OK) return status;
  }
  return ok_status();
}

}  // namespace casebook::kernels
