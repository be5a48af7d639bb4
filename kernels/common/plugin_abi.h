/* The ABI of a GPU kernel plugin (libcasebook_kernels_cuda.so,
 * libcasebook_kernels_hip.so): one extern "C" entry point returns a versioned
 * table of plain C function pointers. Plain C, so that nothing of C++ (name
 * mangling, exceptions, the standard library's ABI) crosses the boundary.
 *
 * Rules: a plugin is dlopen'ed only in a child process (the runner never
 * initialises CUDA or HIP); every function returns 0 on success and fills
 * `error` otherwise; a caller accepts a table whose abi_version equals
 * CASEBOOK_KERNEL_PLUGIN_ABI_VERSION and whose struct_size is at least the
 * size it was compiled with (new functions are only ever appended). */
#ifndef CASEBOOK_KERNELS_PLUGIN_ABI_H_
#define CASEBOOK_KERNELS_PLUGIN_ABI_H_

#include <stddef.h>
#include <stdint.h>

#include "common/kernel_types.h"
#include "embedding/embedding.h"
#include "nll_loss/nll_loss.h"
#include "softmax/softmax.h"
#include "sum/sum.h"

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

  /* Launchers: the kernels' own contracts (kernels/<name>/<name>.h); all
   * pointers in the args are device pointers. */
  void (*nll_loss)(const CasebookNllLossArgs* args,
                   CasebookKernelStatus* status);
  void (*softmax)(const CasebookSoftmaxArgs* args,
                  CasebookKernelStatus* status);
  void (*sum)(const CasebookSumArgs* args, CasebookKernelStatus* status);
  void (*embedding)(const CasebookEmbeddingArgs* args,
                    CasebookKernelStatus* status);
  /* The current device's facts (appended after the launchers: an older
   * table, without it, is refused by its struct_size). */
  int (*device_facts)(CasebookDeviceFacts* facts, CasebookGpuError* error);
} CasebookKernelPluginV1;

typedef const CasebookKernelPluginV1* (*CasebookKernelPluginEntry)(void);

#endif /* CASEBOOK_KERNELS_PLUGIN_ABI_H_ */
