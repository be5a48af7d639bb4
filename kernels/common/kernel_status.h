// Building CasebookKernelStatus values (C++ only; host code of every backend).
#pragma once

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <initializer_list>

#include "common/kernel_types.h"

namespace casebook::kernels {

inline CasebookKernelStatus ok_status() {
  CasebookKernelStatus status;
  std::memset(&status, 0, sizeof(status));
  status.code = CASEBOOK_STATUS_OK;
  status.position = -1;
  return status;
}

inline CasebookKernelStatus error_status(CasebookStatusCode code,
                                         const char* format, ...)
    __attribute__((format(printf, 2, 3)));

inline CasebookKernelStatus error_status(CasebookStatusCode code,
                                         const char* format, ...) {
  CasebookKernelStatus status = ok_status();
  status.code = code;
  va_list args;
  va_start(args, format);
  std::vsnprintf(status.message, sizeof(status.message), format, args);
  va_end(args);
  return status;
}

// "target 4 at position 2 is outside [0, 4)"; `what` names the index input.
inline CasebookKernelStatus index_out_of_range(const char* what,
                                               int64_t position, int64_t value,
                                               int64_t low, int64_t high) {
  CasebookKernelStatus status = error_status(
      CASEBOOK_STATUS_INDEX_OUT_OF_RANGE,
      "%s %lld at position %lld is outside [%lld, %lld)", what,
      static_cast<long long>(value), static_cast<long long>(position),
      static_cast<long long>(low), static_cast<long long>(high));
  status.position = position;
  status.value = value;
  status.low = low;
  status.high = high;
  return status;
}

inline const char* scalar_type_name(CasebookScalarType type) {
  switch (type) {
    case CASEBOOK_FLOAT32:
      return "float32";
    case CASEBOOK_FLOAT16:
      return "float16";
    case CASEBOOK_BFLOAT16:
      return "bfloat16";
    case CASEBOOK_INT32:
      return "int32";
    case CASEBOOK_INT64:
      return "int64";
  }
  return "unknown";
}

inline bool is_floating_type(CasebookScalarType type) {
  return type == CASEBOOK_FLOAT32 || type == CASEBOOK_FLOAT16 ||
         type == CASEBOOK_BFLOAT16;
}

inline bool is_index_type(CasebookScalarType type) {
  return type == CASEBOOK_INT32 || type == CASEBOOK_INT64;
}

}  // namespace casebook::kernels
