// `casebook diagnose CASE`: reruns one case in fresh processes, each rerun
// changing one thing, and says which change altered the outcome. Every rerun
// expects the outputs to match the reference, so an outcome is what happened
// (outputs that match, an error of a family, a mismatch), not the verdict
// against the case's own expectation.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <optional>

#include "casebook/diagnosis.h"
#include "casebook_build_config.h"
#include "cli/commands.h"
#include "cli/memcheck.h"
#include "runner/session.h"
#include "tensors/materialise.h"

namespace casebook {
namespace fs = std::filesystem;
namespace {

struct Variant {
  std::string name;    // "float64"
  std::string change;  // "inputs as float64 (the same numbers)"
  Backend backend = Backend::kCpu;
  std::optional<Case> kase;  // the changed case; empty: not run
  ChildEnvironment environment;
  std::string not_run;     // why it did not run
  bool could_not = false;  // not run because this machine lacks something
  std::string hint;        // what a changed outcome suggests
};

Variant make_variant(std::string name, std::string change, Backend backend) {
  Variant variant;
  variant.name = std::move(name);
  variant.change = std::move(change);
  variant.backend = backend;
  return variant;
}

std::string outcome_text(const CaseVerdict& verdict) {
  std::string text(verdict_name(verdict.verdict));
  if (verdict.verdict == Verdict::kPass) {
    return text + " (the outputs match the reference)";
  }
  if (verdict.family != Family::kNone) {
    text += " " + std::string(family_name(verdict.family));
  }
  return text + ": " + verdict.message.substr(0, verdict.message.find('\n'));
}

bool same_outcome(const CaseVerdict& a, const CaseVerdict& b) {
  return a.verdict == b.verdict && a.family == b.family;
}

// Runs `kase` on `backend` alone in fresh processes (strict isolation),
// expecting a match everywhere.
CaseVerdict run_variant(const LoadedCase& loaded, Case kase, Backend backend,
                        const ChildEnvironment& environment) {
  kase.expect.clear();  // every backend: match the reference
  Plan plan;
  PlannedCase planned;
  planned.loaded = loaded;
  planned.loaded.value = std::move(kase);
  ResolvedOp resolved = resolve_op(planned.value(), default_registry());
  planned.op = resolved.def;
  planned.generated_op = std::move(resolved.generated);
  planned.reported = {backend};
  plan.cases.push_back(std::move(planned));
  RunOptions options;
  options.backends = {backend};
  options.isolation = Isolation::kStrict;
  options.child_environment = environment;
  Execution execution = execute_plan(
      plan, options, [](const PlannedCase&, Backend) { return true; }, nullptr);
  if (execution.summary.verdicts.empty()) {
    CaseVerdict none;
    none.verdict = Verdict::kNotRun;
    none.message = "internal error: no verdict; please report";
    return none;
  }
  return execution.summary.verdicts.front();
}

// The case with every floating input as `dtype`, holding the case's own
// numbers (as rounded to its dtype): only the precision of the op changes.
std::optional<Case> with_precision(const Case& kase, DType dtype,
                                   std::string* why_not) {
  Case changed = kase;
  bool any = false;
  bool all_already = true;
  for (TensorSpec& spec : changed.inputs) {
    if (!is_floating(spec.dtype)) continue;
    any = true;
    all_already = all_already && spec.dtype == dtype;
    const at::Tensor view = materialise(spec).view;
    const at::Tensor values = view.to(at::kDouble).contiguous().reshape({-1});
    spec.float_values.assign(values.data_ptr<double>(),
                             values.data_ptr<double>() + values.numel());
    spec.int_values.clear();
    spec.shape = view.sizes().vec();
    spec.shape_given = true;
    spec.source = TensorSpec::Source::kValues;  // a file's dtype is the file's
    spec.dtype = dtype;
  }
  if (!any) *why_not = "no floating input to change";
  if (any && all_already) {
    *why_not =
        "every floating input already is " + std::string(dtype_name(dtype));
  }
  if (!why_not->empty()) return std::nullopt;
  return changed;
}

std::optional<Case> with_contiguous_inputs(const Case& kase,
                                           std::string* why_not) {
  Case changed = kase;
  bool any = false;
  for (TensorSpec& spec : changed.inputs) {
    any = any || spec.layout.kind != Layout::Kind::kDefault;
    spec.layout = Layout{};
  }
  if (!any) *why_not = "every input already is contiguous";
  return any ? std::optional<Case>(changed) : std::nullopt;
}

struct Stack {
  Backend target = Backend::kCpu;  // where the reruns run
  bool rocm = false;               // launch blocking through HIP variables
  std::string text;
};

Stack detect_stack(const Case& kase, const std::string& asked,
                   const std::map<Backend, BackendStatus>& status,
                   std::vector<std::string>* could_not) {
  Stack stack;
  const std::string flavour = CASEBOOK_TORCH_FLAVOUR;
  stack.text = "LibTorch build: " + flavour;
  for (const auto& [backend, seen] : status) {
    stack.text +=
        "; " + std::string(backend_name(backend)) + ": " +
        (seen.ready() ? seen.description
                      : std::string(readiness_name(seen.state)) + " (" +
                            seen.reason + ")");
  }
  std::vector<Backend> wanted;
  if (!asked.empty()) {
    wanted.push_back(*parse_backend(asked));
  } else {
    for (Backend backend : {Backend::kCuda, Backend::kHip}) {
      if (kase.runs_on(backend)) wanted.push_back(backend);
    }
  }
  for (Backend backend : wanted) {
    if (!is_gpu(backend)) break;
    if (status.at(backend).ready()) {
      stack.target = backend;
      break;
    }
    could_not->push_back("the run on " + std::string(backend_name(backend)) +
                         ": " + status.at(backend).reason);
  }
  // A ROCm build of LibTorch serves HIP devices as "cuda"; the NVIDIA
  // variables mean nothing there (and are never set on a ROCm stack).
  const bool hip_present =
      status.count(Backend::kHip) && status.at(Backend::kHip).ready();
  const bool cuda_present =
      status.count(Backend::kCuda) && status.at(Backend::kCuda).ready();
  stack.rocm = stack.target == Backend::kHip || flavour == "rocm" ||
               (hip_present && !cuda_present);
  if (is_gpu(stack.target))
    stack.text += stack.rocm ? "; stack: ROCm" : "; stack: CUDA";
  return stack;
}

std::vector<Variant> plan_variants(const Case& kase, const Stack& stack,
                                   const std::string& sanitizer) {
  std::vector<Variant> variants;
  const bool gpu = is_gpu(stack.target);
  Variant blocking =
      make_variant("launch blocking",
                   stack.rocm ? "HIP_LAUNCH_BLOCKING=1 AMD_SERIALIZE_KERNEL=3"
                              : "CUDA_LAUNCH_BLOCKING=1",
                   stack.target);
  blocking.hint =
      "the failure depends on asynchronous execution: with blocking launches "
      "an error is reported by the launch that caused it";
  if (gpu) {
    blocking.kase = kase;
    blocking.environment =
        stack.rocm ? ChildEnvironment{{"HIP_LAUNCH_BLOCKING", "1"},
                                      {"AMD_SERIALIZE_KERNEL", "3"}}
                   : ChildEnvironment{{"CUDA_LAUNCH_BLOCKING", "1"}};
  } else {
    blocking.not_run = "no GPU backend here";
    blocking.could_not = true;
  }
  variants.push_back(blocking);

  Variant cpu = make_variant("cpu", "the same case on the CPU", Backend::kCpu);
  cpu.hint =
      "the GPU path differs from the CPU path (a hint where to look, "
      "not a validation of the GPU run)";
  if (gpu) {
    cpu.kase = kase;
  } else {
    cpu.not_run = "the reruns already run on the CPU";
  }
  variants.push_back(cpu);

  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    Variant precision =
        make_variant(std::string(dtype_name(dtype)),
                     "floating inputs as " + std::string(dtype_name(dtype)) +
                         " (the case's own numbers)",
                     stack.target);
    precision.hint =
        "the outcome depends on the precision (rounding, "
        "accumulation or overflow in the case's dtype)";
    try {
      precision.kase = with_precision(kase, dtype, &precision.not_run);
    } catch (const std::exception& error) {
      precision.not_run =
          std::string("the inputs could not be made: ") + error.what();
    }
    variants.push_back(precision);
  }

  Variant contiguous = make_variant(
      "contiguous", "every input contiguous (default layout)", stack.target);
  contiguous.hint =
      "the op mishandles strides, a storage offset or a "
      "non-contiguous layout";
  contiguous.kase = with_contiguous_inputs(kase, &contiguous.not_run);
  variants.push_back(contiguous);

  Variant memcheck = make_variant("memcheck",
                                  "compute-sanitizer --tool memcheck with "
                                  "PYTORCH_NO_CUDA_MEMORY_CACHING=1",
                                  Backend::kCuda);
  if (stack.target != Backend::kCuda || stack.rocm) {
    memcheck.not_run = "no CUDA device here (compute-sanitizer needs one)";
    memcheck.could_not = true;
  } else if (sanitizer.empty()) {
    memcheck.not_run =
        "compute-sanitizer is not installed (not on PATH, "
        "nor in $CUDA_HOME/bin or /usr/local/cuda/bin)";
    memcheck.could_not = true;
  }
  variants.push_back(memcheck);
  return variants;
}

}  // namespace

int diagnose_command(const std::string& argument, const std::string& backend) {
  if (!backend.empty() && !parse_backend(backend)) {
    std::cerr
        << "casebook diagnose: --backend: expected cpu, cuda or hip; got `"
        << backend << "`\n";
    return kExitUsage;
  }
  fs::path file;
  if (!resolve_case_argument(argument, &file)) return kExitUsage;
  at::set_num_threads(1);  // no OpenMP pool in the runner before forks
  LoadedCase loaded = load_case_file(file);
  std::vector<std::string> problems;
  for (const CaseError& error : loaded.errors)
    problems.push_back(error.to_string());
  if (loaded.ok()) {
    problems = check_case_against_op(*loaded.value, default_registry());
  }
  if (!problems.empty()) {
    std::cout << "ERROR " << loaded.id
              << ": the case file is wrong; nothing to rerun\n";
    for (const std::string& problem : problems)
      std::cout << "  " << problem << "\n";
    return 1;
  }
  const Case& kase = *loaded.value;
  std::vector<std::string> could_not;
  const auto status = probe_backends({Backend::kCuda, Backend::kHip});
  const Stack stack = detect_stack(kase, backend, status, &could_not);
  const std::string sanitizer = find_compute_sanitizer();
  std::cout << "diagnose " << loaded.id << " (" << file.string() << ")\n"
            << "  " << stack.text << "\n"
            << "  reruns on: " << backend_name(stack.target)
            << ", each in a fresh process, expecting the outputs to match "
               "the reference\n\n";
  const CaseVerdict baseline = run_variant(loaded, kase, stack.target, {});
  std::cout << std::left << std::setw(18) << "as written"
            << outcome_text(baseline) << "\n";

  std::vector<std::string> changed;
  for (Variant& variant : plan_variants(kase, stack, sanitizer)) {
    std::cout << std::setw(18) << variant.name;
    if (variant.name == "memcheck" && variant.not_run.empty()) {
      MemcheckResult memcheck = run_memcheck(
          sanitizer, file, std::min(600.0, 120.0 + 5.0 * kase.timeout_seconds));
      std::cout << memcheck.summary << "\n";
      if (memcheck.errors > 0)
        changed.push_back("memcheck: " + memcheck.summary);
      continue;
    }
    if (!variant.kase) {
      std::cout << "not run: " << variant.not_run << "\n";
      if (variant.could_not)
        could_not.push_back(variant.name + ": " + variant.not_run);
      continue;
    }
    const CaseVerdict seen = run_variant(loaded, *variant.kase, variant.backend,
                                         variant.environment);
    const bool same = same_outcome(seen, baseline);
    std::cout << (same ? "same outcome: " : "CHANGED: ") << outcome_text(seen)
              << "\n";
    std::cout << std::setw(18) << ""
              << "(" << variant.change << ")\n";
    if (!same) {
      changed.push_back(variant.name + " changed the outcome (" +
                        std::string(verdict_name(baseline.verdict)) + " -> " +
                        std::string(verdict_name(seen.verdict)) +
                        "): " + variant.hint);
    }
  }
  std::cout << "\nconclusion:\n";
  if (changed.empty()) std::cout << "  no single change altered the outcome\n";
  for (const std::string& line : changed) std::cout << "  " << line << "\n";
  if (!could_not.empty()) {
    std::cout << "\ncould not do here:\n";
    for (const std::string& line : could_not) std::cout << "  " << line << "\n";
  }
  std::cout << "\nnotes:\n"
               "  a CPU success is a hint, not a CUDA validation: the CPU runs "
               "other kernels\n"
               "  blocking mode is for diagnosis, not for timing: it "
               "serialises every launch\n";
  if (baseline.family != Family::kNone) {
    std::cout << "\n" << explain_family(baseline.family);
  }
  return 0;
}

}  // namespace casebook
