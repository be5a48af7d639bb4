/* The ABI of a GPU kernel plugin (libcasebook_kernels_cuda.so,
 * libcasebook_kernels_hip.so): one extern "C" entry point returns a versioned
 * table of plain C function pointers. Plain C, so that nothing of C++ (name
 * mangling, exceptions, the standard library's ABI) crosses the boundary.
 *
 * Rules: a plugin is dlopen'ed only in a child process (the runner never
 * initialises CUDA or HIP); every function returns 0 on success and fills
 * `error` otherwise; a caller accepts a table whose abi_version equals
 * CASEBOOK_KERNEL_PLUGIN_ABI_VERSION and whose struct_size is at least the
 * size it was compiled with (new functions are only ever appended).
 *
 * The launcher fields are generated from the kernel list
 * (common/kernel_list.h); the layout of ABI 1 is pinned below, so a plugin
 * built before the list existed still loads: same entry point, same version,
 * same offsets. */
#ifndef CASEBOOK_KERNELS_PLUGIN_ABI_H_
#define CASEBOOK_KERNELS_PLUGIN_ABI_H_

#include <stddef.h>
#include <stdint.h>

#include "common/kernel_list.h"
#include "common/kernel_types.h"

#define CASEBOOK_KERNEL_PLUGIN_ABI_VERSION 1
#define CASEBOOK_KERNEL_PLUGIN_ENTRY "casebook_kernel_plugin_v1"

/* A failed runtime call: call "cudaGetDeviceCount", name "cudaErrorNoDevice",
 * text "no CUDA-capable device is detected". */
typedef struct CasebookGpuError {
  int32_t code;
  char call[64];
  char name[64];
  char text[192];
} CasebookGpuError;

/* What a case's `when` conditions may read of the device in use: for CUDA
 * its compute capability (major, minor) and "sm_<major><minor>"; for HIP its
 * gfx target without feature flags ("gfx90a" of "gfx90a:sramecc+:xnack-"),
 * major and minor 0. */
typedef struct CasebookDeviceFacts {
  int32_t major;
  int32_t minor;
  char arch[64];
} CasebookDeviceFacts;

/* A launcher's field: void (*nll_loss)(const CasebookNllLossArgs* args,
 * CasebookKernelStatus* status); */
#define CASEBOOK_KERNEL_LAUNCHER_FIELD(name, Args) \
  void (*name)(const Args* args, CasebookKernelStatus* status);

typedef struct CasebookKernelPluginV1 {
  uint32_t abi_version; /* CASEBOOK_KERNEL_PLUGIN_ABI_VERSION */
  uint32_t struct_size; /* sizeof(CasebookKernelPluginV1) of the plugin */
  const char* backend;  /* "cuda" or "hip" */
  const char* build; /* compiler and targets, e.g. "nvcc 13.0, sm_90 + PTX" */
  const char*
      variant; /* "" for the real kernels; a broken test variant's name */

  int (*device_count)(int* count, CasebookGpuError* error);
  /* "CUDA runtime 13000, driver 13000, device 0: NVIDIA H200, compute 9.0" */
  int (*describe)(char* text, size_t capacity, CasebookGpuError* error);
  int (*set_device)(int device, CasebookGpuError* error);
  int (*device_malloc)(void** pointer, size_t bytes, CasebookGpuError* error);
  int (*device_free)(void* pointer, CasebookGpuError* error);
  int (*copy_to_device)(void* device_destination, const void* host_source,
                        size_t bytes, CasebookGpuError* error);
  int (*copy_to_host)(void* host_destination, const void* device_source,
                      size_t bytes, CasebookGpuError* error);
  /* Waits for the device; reports any pending error and sets *sticky when it
   * poisons the context (device assert, illegal address, launch failure...):
   * the process must then end. */
  int (*synchronize)(int* sticky, CasebookGpuError* error);

  /* Launchers, one per row of CASEBOOK_FOR_EACH_KERNEL_V1: the kernels' own
   * contracts (kernels/<name>/<name>.h); all pointers in the args are device
   * pointers. */
  CASEBOOK_FOR_EACH_KERNEL_V1(CASEBOOK_KERNEL_LAUNCHER_FIELD)
  /* The current device's facts (appended after the launchers: an older
   * table, without it, is refused by its struct_size). */
  int (*device_facts)(CasebookDeviceFacts* facts, CasebookGpuError* error);
  /* Launchers added since ABI 1 (CASEBOOK_FOR_EACH_KERNEL_APPENDED). */
  CASEBOOK_FOR_EACH_KERNEL_APPENDED(CASEBOOK_KERNEL_LAUNCHER_FIELD)
} CasebookKernelPluginV1;

typedef const CasebookKernelPluginV1* (*CasebookKernelPluginEntry)(void);

/* ABI 1 as released: three strings after the two 32-bit words, then eight
 * runtime calls, four launchers and device_facts. If these fail, the list
 * changed a released layout: put the new row in
 * CASEBOOK_FOR_EACH_KERNEL_APPENDED instead. */
#if defined(__cplusplus)
#define CASEBOOK_ABI_STATIC_ASSERT(condition, why) static_assert(condition, why)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define CASEBOOK_ABI_STATIC_ASSERT(condition, why) \
  _Static_assert(condition, why)
#else /* C99: an array of negative size where the condition fails */
#define CASEBOOK_ABI_CONCAT2(a, b) a##b
#define CASEBOOK_ABI_CONCAT(a, b) CASEBOOK_ABI_CONCAT2(a, b)
#define CASEBOOK_ABI_STATIC_ASSERT(condition, why)      \
  typedef char CASEBOOK_ABI_CONCAT(casebook_abi_check_, \
                                   __LINE__)[(condition) ? 1 : -1]
#endif
#define CASEBOOK_ABI_V1_SLOT(pointers) \
  (2 * sizeof(uint32_t) + (pointers) * sizeof(void*))
CASEBOOK_ABI_STATIC_ASSERT(
    offsetof(CasebookKernelPluginV1, nll_loss) == CASEBOOK_ABI_V1_SLOT(11),
    "ABI 1: the launchers start after the eight runtime calls");
CASEBOOK_ABI_STATIC_ASSERT(
    offsetof(CasebookKernelPluginV1, softmax) == CASEBOOK_ABI_V1_SLOT(12) &&
        offsetof(CasebookKernelPluginV1, sum) == CASEBOOK_ABI_V1_SLOT(13) &&
        offsetof(CasebookKernelPluginV1, embedding) == CASEBOOK_ABI_V1_SLOT(14),
    "ABI 1: nll_loss, softmax, sum, embedding, in that order");
CASEBOOK_ABI_STATIC_ASSERT(
    offsetof(CasebookKernelPluginV1, device_facts) == CASEBOOK_ABI_V1_SLOT(15),
    "ABI 1: device_facts follows the four launchers of ABI 1");
CASEBOOK_ABI_STATIC_ASSERT(
    sizeof(CasebookKernelPluginV1) ==
        CASEBOOK_ABI_V1_SLOT(
            16 + CASEBOOK_KERNEL_COUNT(CASEBOOK_FOR_EACH_KERNEL_APPENDED)),
    "every function pointer after device_facts is a row of the kernel list");
#undef CASEBOOK_ABI_V1_SLOT
#undef CASEBOOK_ABI_STATIC_ASSERT
#undef CASEBOOK_ABI_CONCAT
#undef CASEBOOK_ABI_CONCAT2

#endif /* CASEBOOK_KERNELS_PLUGIN_ABI_H_ */
