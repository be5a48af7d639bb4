/* Types every kernel's launch API shares: element types and the status a
 * kernel returns. Plain C, so that the plugin ABI (plugin_abi.h) can carry
 * them across a dlopen boundary; no framework types anywhere. */
#ifndef CASEBOOK_KERNELS_KERNEL_TYPES_H_
#define CASEBOOK_KERNELS_KERNEL_TYPES_H_

#include <stddef.h>
#include <stdint.h>

/* Element types of kernel inputs and outputs. float16 and bfloat16 travel as
 * their 16-bit patterns and are always accumulated in float32. */
typedef enum CasebookScalarType {
  CASEBOOK_FLOAT32 = 0,
  CASEBOOK_FLOAT16 = 1,
  CASEBOOK_BFLOAT16 = 2,
  CASEBOOK_INT32 = 3,
  CASEBOOK_INT64 = 4
} CasebookScalarType;

typedef enum CasebookStatusCode {
  CASEBOOK_STATUS_OK = 0,
  /* An index input holds a value outside [low, high): `position` is the
   * first (lowest) offending position, `value` what it holds. */
  CASEBOOK_STATUS_INDEX_OUT_OF_RANGE = 1,
  /* A size, stride, type or workspace the kernel does not accept. */
  CASEBOOK_STATUS_INVALID_ARGUMENT = 2,
  /* The GPU runtime reported an error; `message` starts with its name
   * ("cudaErrorIllegalAddress: ..."). */
  CASEBOOK_STATUS_DEVICE_ERROR = 3
} CasebookStatusCode;

typedef struct CasebookKernelStatus {
  int32_t code; /* CasebookStatusCode */
  int64_t position;
  int64_t value;
  int64_t low;
  int64_t high;
  char message[256]; /* always set when code != OK, NUL-terminated */
} CasebookKernelStatus;

#endif /* CASEBOOK_KERNELS_KERNEL_TYPES_H_ */
