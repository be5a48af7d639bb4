// The one answer to "can this backend run?". Every caller (the probe, the GPU
// workers, execute.cpp's per-op check, the judge, the CLI's --require) asks
// here and nowhere else.
//
//   ready   something can run on it
//   absent  no device, no driver, no runtime, or casebook was built without
//           it: its runs are SKIP, the reason shown once
//   broken  a device is there (or a part of casebook for it is), but the probe,
//           the plugin load, the LibTorch flavour or the runtime fails: its
//           runs are ERROR with the reason, and the exit status is 1
//
// A GPU backend has two parts, each judged alone: LibTorch's device (torch.*
// ops) and the kernel plugin (kernels.* ops). The backend is broken when
// either part is broken, ready when either is ready, else absent. A case runs
// where the part its op needs is ready (part_readiness): the runner plans and
// judges by that part, and the child asks the same function.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>

#include "casebook/backend.h"

namespace casebook {

struct OpDef;

enum class Readiness { kReady, kAbsent, kBroken };
std::string_view readiness_name(Readiness readiness);  // "ready", ...

// What `when` conditions read of a ready device: "capability" ("9.0", CUDA)
// or "gfx" ("gfx90a", HIP).
using DeviceFacts = std::map<std::string, std::string>;

struct PartReadiness {
  Readiness state = Readiness::kAbsent;
  std::string reason;       // absent or broken: why
  std::string description;  // ready: runtime, driver, device
  DeviceFacts facts;        // ready: the device's facts, where it says them
  bool ready() const { return state == Readiness::kReady; }
};

struct BackendReadiness {
  Readiness state = Readiness::kAbsent;
  std::string reason;
  std::string description;
  DeviceFacts facts;      // ready: LibTorch's device's, then the plugin's
  PartReadiness torch;    // torch.* ops on the backend's LibTorch device
  PartReadiness kernels;  // kernels.* ops through the kernel plugin
  bool ready() const { return state == Readiness::kReady; }
};

// The whole backend as one part: its state, reason, description and facts.
PartReadiness whole_backend(const BackendReadiness& readiness);

// The part of `readiness` (the backend's) that `op` needs: LibTorch's device
// for ops placed on the backend's device, the kernel plugin for host ops that
// reach the GPU through it (kernels.*), the whole backend for other host ops
// (validate.*) and for cpu. The one rule; the planner, the judge and the
// child ask it.
PartReadiness part_readiness(const BackendReadiness& readiness, Backend backend,
                             const OpDef& op);

// The backend from its two parts (the rule in the header comment). cpu is
// always ready.
BackendReadiness combine_readiness(Backend backend, PartReadiness torch,
                                   PartReadiness kernels);

// Whether the host shows a device of this backend without initialising any
// runtime: an NVIDIA device node or driver entry (/dev/nvidia0,
// /proc/driver/nvidia/gpus/*) for cuda, the AMD KFD node (/dev/kfd) for hip.
// `root` only for tests.
bool device_node_present(Backend backend,
                         const std::filesystem::path& root = "/");

// A runtime that was asked and failed (an error from cudaGetDeviceCount, or 0
// devices): absent where the host shows no device, broken where it does (the
// device is there and the runtime cannot reach it: a driver/runtime mismatch,
// a container without the device, a LibTorch without its CUDA part). Absent
// says what the host lacks ("no CUDA device: no NVIDIA driver or device (no
// /dev/nvidia0, ...)", BackendHooks::missing_driver_or_device), not the
// runtime's words for it ("CUDA driver version is insufficient for CUDA
// runtime version" is what CUDA says when there is no driver at all).
PartReadiness runtime_failure(Backend backend, const std::string& reason,
                              bool device_present);

// What a probe child that died or gave no answer means: broken, always, and
// each part with it (a probe only counts devices; it must not crash or hang).
BackendReadiness probe_failure(const std::string& reason);

// The probe child's report, one JSON object per backend, and back.
std::string readiness_to_json(const BackendReadiness& readiness);
// Throws std::exception on text that is not such an object.
BackendReadiness readiness_from_json(const std::string& json);

}  // namespace casebook
