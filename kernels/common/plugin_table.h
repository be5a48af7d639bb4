// Builds a plugin's function table (plugin_table.cu); the real entry point
// (plugin_entry.cu) returns it as is, the test-only broken plugin swaps one
// launcher for a broken variant.
#pragma once

#include "common/gpu_portability.h"
#include "common/plugin_abi.h"

// Set by the build: the compiler and the targets, shown by `describe`.
#ifndef CASEBOOK_PLUGIN_BUILD
#define CASEBOOK_PLUGIN_BUILD "unknown build"
#endif

namespace CASEBOOK_GPU_NS {
CasebookKernelPluginV1 make_plugin_table();
}  // namespace CASEBOOK_GPU_NS

// The one exported symbol of a plugin (everything else is hidden).
#define CASEBOOK_PLUGIN_EXPORT extern "C" __attribute__((visibility("default")))
