// The reruns of `casebook diagnose`, planned: where they run (the stack),
// the case and environment each one runs, changing one thing, and why one is
// not run here. Functions of their arguments: no process, no device, no
// probe (the caller hands in what the probe saw and LibTorch's flavour), so
// that the plan is unit-tested alone. The command (cli/diagnose_command.cpp)
// runs the planned reruns and prints them; what their outcomes show is
// diagnosis/conclusions.h.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "casebook/case.h"
#include "child/execute.h"
#include "device/backend_readiness.h"
#include "diagnosis/conclusions.h"

namespace casebook {

struct RerunStack {
  Backend target = Backend::kCpu;  // where the reruns run
  // Launch blocking through HIP's variables: the target is hip, LibTorch is
  // a ROCm build, or hip is ready and cuda is not (ROCm keeps PyTorch's
  // `cuda` names; NVIDIA's switches are never applied to it).
  bool rocm = false;
  // "LibTorch build: cpu; GPU backends ready: none" (then "; stack: CUDA"
  // or "; stack: ROCm" where the target is a GPU).
  std::string text;
  // The GPU backends the case asks for that are not ready here, with why
  // ("absent: no NVIDIA device"): said once, with what to run where.
  std::vector<std::pair<Backend, std::string>> missing_gpus;
  // The case asks for a GPU backend (or `asked` named one) that the probe
  // looked at: the GPU reruns apply to it, here or elsewhere.
  bool gpu_wanted = false;
};

// The backends a diagnosis probes (the `status` rerun_stack takes): every
// GPU backend casebook knows, CUDA, HIP and the registered ones, in order.
std::vector<Backend> gpu_backends();

// The stack: the backend `asked` (a backend's name; empty: the case's first
// GPU backend that is ready, else the CPU), given what the probe saw of the
// GPU backends (`status`; a backend missing from it is not considered) and
// LibTorch's flavour ("cpu", "cuda" or "rocm": CASEBOOK_TORCH_FLAVOUR).
// `op`, the case's op: a GPU backend can rerun it when the part the op needs
// is ready (part_readiness: LibTorch's device or the kernel plugin), as in a
// run; null: when the backend is.
RerunStack rerun_stack(const Case& kase, const std::string& asked,
                       const std::map<Backend, BackendReadiness>& status,
                       std::string_view torch_flavour,
                       const OpDef* op = nullptr);

// One rerun: a change of the case or of its environment.
struct PlannedRerun {
  std::string name;    // "float64"
  std::string change;  // "floating inputs as float64, the case's own numbers"
  RerunKind kind = RerunKind::kCpu;
  Backend backend = Backend::kCpu;
  // The changed case; empty: not run (`not_run` says why). The memcheck
  // rerun runs the case file itself: it has no case, and runs where
  // `not_run` is empty.
  std::optional<Case> kase;
  ChildEnvironment environment;  // set in the rerun's children
  std::string detail;            // what exactly changed: "float32 -> float64"
  std::string not_run;           // why it does not run
  bool needs_gpu = false;  // not run because this machine has no GPU for it
};

// The reruns of `kase` on `stack`, in the order they are run and shown:
// launch blocking, cpu, float32, float64, contiguous, valid indices (only
// after a first run of family index_out_of_range or device_assert), memcheck
// (`sanitizer`: compute-sanitizer's path, empty when absent). A precision
// rerun materialises the case's floating inputs to keep their numbers (an
// input from a fixture file is read); one that cannot be made is not run,
// with the error.
std::vector<PlannedRerun> plan_reruns(const Case& kase, const RerunStack& stack,
                                      Family first_family,
                                      const std::string& sanitizer);

// The case with every out-of-range value of its class-index input replaced
// by a valid one, as the label_limits rule knows them (casebook/neighbors.h:
// its valid labels; the values that were valid kept); `detail` says which
// values changed ("target[2]: 4 -> 0", at most four, then "and N more").
// nullopt, with the reason in `why_not`, where no rule knows the valid range
// or every index already is in range.
std::optional<Case> with_valid_indices(const Case& kase, std::string* detail,
                                       std::string* why_not);

// The inputs that hold NaN or an infinity (floating and complex inputs, the
// elements the op reads; a layout's skipped storage is not counted), a line
// each: "input `logits` holds 1 NaN and 2 inf among its 12 elements (first
// at [0, 1])". An input that cannot be made is left to the run's own error.
std::vector<std::string> non_finite_inputs(const Case& kase);

// Said once, on a machine without the GPU the case asks for (empty where
// none is missing): which reruns could not run, why each missing backend is
// not ready, and on which machine to run what:
//   not run here: the GPU reruns (launch blocking, memcheck); the reruns
//   above ran on the CPU
//     cuda: absent: ...
//     on a machine with an NVIDIA GPU: casebook diagnose <case_file>
//     --backend cuda
std::vector<std::string> gpu_reruns_elsewhere(
    const RerunStack& stack, const std::vector<PlannedRerun>& reruns,
    const std::string& case_file);

}  // namespace casebook
