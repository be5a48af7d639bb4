// The reruns of `casebook diagnose`: where they run (the stack), and the
// case each one runs, changing one thing (internal to diagnose_command.cpp).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "casebook/case.h"
#include "child/execute.h"
#include "diagnosis/conclusions.h"
#include "runner/plan.h"

namespace casebook {

struct Stack {
  Backend target = Backend::kCpu;  // where the reruns run
  bool rocm = false;               // launch blocking through HIP variables
  std::string text;                // "LibTorch build: cpu; GPU ready: none"
  // The GPU backends the case asks for that are not ready here, with why:
  // said once, with what to run where.
  std::vector<std::pair<Backend, std::string>> missing_gpus;
  // The case asks for a GPU backend (or --backend named one): the GPU
  // reruns apply to it, here or elsewhere.
  bool gpu_wanted = false;
};

// The stack: the backend asked (`asked`, empty: the case's first GPU
// backend that is ready, else the CPU) and how its runtime is told to block.
Stack detect_stack(const Case& kase, const std::string& asked,
                   const std::map<Backend, BackendStatus>& status);

// One rerun: a change of the case or of its environment.
struct Variant {
  std::string name;    // "float64"
  std::string change;  // "floating inputs as float64 (the case's own numbers)"
  RerunKind kind = RerunKind::kCpu;
  Backend backend = Backend::kCpu;
  std::optional<Case> kase;  // the changed case; empty: not run
  ChildEnvironment environment;
  std::string detail;      // what exactly changed: "float32 -> float64"
  std::string not_run;     // why it did not run
  bool needs_gpu = false;  // not run because this machine has no GPU for it
};

// The reruns for `kase` on `stack`, given the family of the first run (the
// valid-index rerun is for index_out_of_range and device_assert only).
std::vector<Variant> plan_variants(const Case& kase, const Stack& stack,
                                   Family first_family,
                                   const std::string& sanitizer);

// The case with every out-of-range value of its class-index input replaced
// by a valid one, as the label_limits rule knows them (casebook/neighbors.h:
// its valid labels; the values that were valid kept); `detail` says which
// values changed ("target[2]: 4 -> 0"). nullopt, with the reason in
// `why_not`, where no rule knows the valid range.
std::optional<Case> with_valid_indices(const Case& kase, std::string* detail,
                                       std::string* why_not);

}  // namespace casebook
