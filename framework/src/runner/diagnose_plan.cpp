#include "runner/diagnose_plan.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <iterator>

#include "casebook/joined.h"
#include "casebook/neighbors.h"
#include "casebook/shape_text.h"
#include "device/backend_hooks.h"
#include "device/backend_runtime.h"
#include "tensors/materialise.h"

namespace casebook {
namespace {

PlannedRerun make_rerun(std::string name, std::string change, Backend backend,
                        RerunKind kind) {
  PlannedRerun rerun;
  rerun.name = std::move(name);
  rerun.change = std::move(change);
  rerun.backend = backend;
  rerun.kind = kind;
  return rerun;
}

// `spec`'s numbers, as rounded to its dtype, written as `values` (a fill or
// a file made once), so that its dtype can change and the numbers stay.
void as_values(TensorSpec* spec) {
  const at::Tensor view = materialise(*spec).view;
  const at::Tensor values = view.to(at::kDouble).contiguous().reshape({-1});
  spec->float_values.assign(values.data_ptr<double>(),
                            values.data_ptr<double>() + values.numel());
  spec->int_values.clear();
  spec->shape = view.sizes().vec();
  spec->shape_given = true;
  spec->source = TensorSpec::Source::kValues;  // a file's dtype is the file's
}

// The expected outputs follow the inputs: an output the case expects in a
// dtype the inputs were changed from is expected in `dtype`, its values
// (if any) within the tolerance they were written with (the old dtype's,
// where the case names none), since they hold only the old precision.
void with_output_dtype(Case* changed, const std::vector<std::string>& from,
                       DType dtype, std::string* detail) {
  std::vector<std::string> moved;
  for (OutputExpectation& output : changed->outputs) {
    const std::optional<DType> old =
        output.values ? std::optional<DType>(output.values->dtype)
                      : output.dtype;
    if (!old || std::find(from.begin(), from.end(),
                          std::string(dtype_name(*old))) == from.end()) {
      continue;
    }
    if (output.values) {
      if (!output.tolerance && !changed->tolerance) {
        output.tolerance = default_tolerance(*old);
      }
      as_values(&*output.values);
      output.values->dtype = dtype;
    }
    if (output.dtype) output.dtype = dtype;
    moved.push_back(output.key);
  }
  if (moved.empty()) return;
  *detail += "; expected output";
  *detail += moved.size() == 1 ? " " : "s ";
  *detail += joined(moved) + " as " + std::string(dtype_name(dtype));
}

// The case with every floating input as `dtype`, holding the case's own
// numbers (as rounded to its dtype): only the precision of the op changes.
std::optional<Case> with_precision(const Case& kase, DType dtype,
                                   std::string* detail, std::string* why_not) {
  Case changed = kase;
  std::vector<std::string> from;
  bool any = false;
  for (TensorSpec& spec : changed.inputs) {
    if (!is_floating(spec.dtype) || !spec.same_as.empty()) continue;
    any = true;
    if (spec.dtype == dtype) continue;
    const std::string name(dtype_name(spec.dtype));
    if (std::find(from.begin(), from.end(), name) == from.end()) {
      from.push_back(name);
    }
    as_values(&spec);
    spec.dtype = dtype;
  }
  if (!any) {
    *why_not = "no floating input to change";
  } else if (from.empty()) {
    *why_not =
        "every floating input already is " + std::string(dtype_name(dtype));
  }
  if (!why_not->empty()) return std::nullopt;
  *detail += joined(from) + " -> " + std::string(dtype_name(dtype));
  follow_aliases(changed.inputs);  // an alias is its target's tensor
  with_output_dtype(&changed, from, dtype, detail);
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

const Neighbor* neighbor_named(const NeighborExpansion& every,
                               const std::string& param) {
  for (const Neighbor& neighbor : every.neighbors) {
    if (neighbor.rule == "label_limits" && neighbor.param == param) {
      return &neighbor;
    }
  }
  return nullptr;
}

// Appends to `detail` the first four labels that differ between `before`
// and `after` ("target[2]: 7 -> 0"), then how many more do.
void tell_changes(const TensorSpec& before, const TensorSpec& after,
                  std::string* detail) {
  int shown = 0;
  int more = 0;
  for (size_t at = 0; at < after.int_values.size(); ++at) {
    if (after.int_values[at] == before.int_values[at]) continue;
    if (shown == 4) {
      ++more;
      continue;
    }
    *detail += std::string(detail->empty() ? "" : ", ") + after.name + "[" +
               std::to_string(at) +
               "]: " + std::to_string(before.int_values[at]) + " -> " +
               std::to_string(after.int_values[at]);
    ++shown;
  }
  if (more > 0) *detail += " and " + std::to_string(more) + " more";
}

// The first element of the input the rule rewrote, in a neighbour.
std::optional<int64_t> first_label(const Neighbor* neighbor,
                                   const std::string& input) {
  if (neighbor == nullptr) return std::nullopt;
  for (const TensorSpec& spec : neighbor->value.inputs) {
    if (spec.name == input && !spec.int_values.empty()) {
      return spec.int_values.front();
    }
  }
  return std::nullopt;
}

}  // namespace

RerunStack rerun_stack(const Case& kase, const std::string& asked,
                       const std::map<Backend, BackendReadiness>& status,
                       std::string_view torch_flavour, const OpDef* op) {
  RerunStack stack;
  const std::string flavour(torch_flavour);
  stack.text = "LibTorch build: " + flavour;
  std::vector<std::string> ready;
  for (const auto& [backend, seen] : status) {
    if (seen.ready()) {
      ready.push_back(std::string(backend_name(backend)) + " (" +
                      seen.description + ")");
    }
  }
  stack.text +=
      "; GPU backends ready: " + (ready.empty() ? "none" : joined(ready));
  std::vector<Backend> wanted;
  if (!asked.empty()) {
    if (const auto backend = parse_backend(asked)) wanted.push_back(*backend);
  } else {
    // The probed GPU backends, in the backends' order (status is ordered).
    for (const auto& [backend, seen] : status) {
      if (kase.runs_on(backend)) wanted.push_back(backend);
    }
  }
  for (Backend backend : wanted) {
    if (!is_gpu(backend) || !status.count(backend)) continue;
    stack.gpu_wanted = true;
    const BackendReadiness& seen = status.at(backend);
    const PartReadiness needed = op != nullptr && seen.ready()
                                     ? part_readiness(seen, backend, *op)
                                     : whole_backend(seen);
    if (needed.ready()) {
      if (!is_gpu(stack.target)) stack.target = backend;
      continue;
    }
    stack.missing_gpus.emplace_back(
        backend,
        std::string(readiness_name(needed.state)) + ": " + needed.reason);
  }
  // A ROCm build of LibTorch serves HIP devices as "cuda"; the NVIDIA
  // variables mean nothing there (and are never set on a ROCm stack).
  const bool hip_present =
      status.count(Backend::kHip) && status.at(Backend::kHip).ready();
  const bool cuda_present =
      status.count(Backend::kCuda) && status.at(Backend::kCuda).ready();
  stack.rocm = stack.target == Backend::kHip || flavour == "rocm" ||
               (hip_present && !cuda_present);
  if (is_gpu(stack.target)) {
    stack.text += stack.rocm ? "; stack: ROCm" : "; stack: CUDA";
  }
  return stack;
}

std::optional<Case> with_valid_indices(const Case& kase, std::string* detail,
                                       std::string* why_not) {
  const NeighborExpansion every = applicable_neighbors(kase);
  const Neighbor* lowest = neighbor_named(every, "0");
  if (lowest == nullptr) {
    *why_not = "no rule knows the valid range of this op's indices";
    for (const CaseError& error : every.errors) {
      if (error.key_path == "neighbors.label_limits") {
        *why_not += " (" + error.message + ")";
      }
    }
    return std::nullopt;
  }
  // The rule made every label valid and set the first to 0; the values
  // that were valid are kept, so only the offending ones change.
  Case changed = lowest->value;
  changed.id = kase.id;
  changed.summary = kase.summary;
  for (size_t i = 0; i < changed.inputs.size() && i < kase.inputs.size(); ++i) {
    TensorSpec& labels = changed.inputs[i];
    const TensorSpec& before = kase.inputs[i];
    if ((labels.int_values == before.int_values &&
         labels.source == before.source) ||
        !labels.same_as.empty()) {  // an alias follows its target, below
      continue;
    }
    const auto classes = first_label(neighbor_named(every, "C"), labels.name);
    const auto ignored =
        first_label(neighbor_named(every, "ignore_index"), labels.name);
    if (before.source != TensorSpec::Source::kValues) {
      *detail = labels.name + ": its labels (from a " +
                (before.source == TensorSpec::Source::kFill ? "fill" : "file") +
                ") replaced by 0, 1, ..., C-1";
      continue;
    }
    const int64_t first = before.int_values.front();
    if (classes &&
        ((first >= 0 && first < *classes) || (ignored && first == *ignored))) {
      labels.int_values.front() = first;
    }
    tell_changes(before, labels, detail);
  }
  if (detail->empty()) {
    *why_not = "every index is already in range";
    return std::nullopt;
  }
  follow_aliases(changed.inputs);
  return changed;
}

namespace {

// Launch blocking with the stack's switches, from its backend's hooks row:
// HIP's on ROCm (also where a ROCm LibTorch calls its device `cuda`),
// CUDA's on CUDA.
PlannedRerun launch_blocking_rerun(const Case& kase, const RerunStack& stack) {
  const ChildEnvironment switches =
      launch_blocking_environment(stack.rocm ? Backend::kHip : Backend::kCuda);
  std::string switches_text;
  for (const auto& [name, value] : switches) {
    switches_text += (switches_text.empty() ? "" : " ") + name + "=" + value;
  }
  PlannedRerun blocking = make_rerun("launch blocking", switches_text,
                                     stack.target, RerunKind::kLaunchBlocking);
  if (!stack.gpu_wanted) {
    blocking.not_run = "the case runs on the CPU only";
  } else if (is_gpu(stack.target)) {
    blocking.kase = kase;
    blocking.environment = switches;
  } else {
    blocking.not_run = "needs a GPU";
    blocking.needs_gpu = true;
  }
  return blocking;
}

PlannedRerun cpu_rerun(const Case& kase, const RerunStack& stack) {
  PlannedRerun cpu = make_rerun("cpu", "the same case on the CPU",
                                Backend::kCpu, RerunKind::kCpu);
  if (is_gpu(stack.target)) {
    cpu.kase = kase;
  } else {
    cpu.not_run = "the reruns already run on the CPU";
  }
  return cpu;
}

// The precision reruns, in the order they run.
struct PrecisionRerun {
  DType dtype;
  RerunKind kind;
};
constexpr PrecisionRerun kPrecisionReruns[] = {
    {DType::kFloat32, RerunKind::kFloat32},
    {DType::kFloat64, RerunKind::kFloat64},
};

PlannedRerun precision_rerun(const Case& kase, const RerunStack& stack,
                             const PrecisionRerun& precision) {
  const std::string dtype(dtype_name(precision.dtype));
  PlannedRerun rerun = make_rerun(
      dtype, "floating inputs as " + dtype + ", the case's own numbers",
      stack.target, precision.kind);
  try {
    rerun.kase =
        with_precision(kase, precision.dtype, &rerun.detail, &rerun.not_run);
  } catch (const std::exception& error) {
    rerun.not_run =
        std::string("the inputs could not be made: ") + error.what();
  }
  return rerun;
}

PlannedRerun contiguous_rerun(const Case& kase, const RerunStack& stack) {
  PlannedRerun contiguous =
      make_rerun("contiguous", "every input contiguous, the default layout",
                 stack.target, RerunKind::kContiguous);
  contiguous.kase = with_contiguous_inputs(kase, &contiguous.not_run);
  return contiguous;
}

// The families of a first run whose offending indices a rerun replaces.
constexpr Family kIndexFamilies[] = {Family::kIndexOutOfRange,
                                     Family::kDeviceAssert};

PlannedRerun valid_indices_rerun(const Case& kase, const RerunStack& stack) {
  PlannedRerun valid =
      make_rerun("valid indices",
                 "the offending index values replaced by valid ones, as the "
                 "label_limits rule knows them",
                 stack.target, RerunKind::kValidIndices);
  valid.kase = with_valid_indices(kase, &valid.detail, &valid.not_run);
  return valid;
}

PlannedRerun memcheck_rerun(const RerunStack& stack,
                            const std::string& sanitizer) {
  PlannedRerun memcheck = make_rerun("memcheck",
                                     "compute-sanitizer --tool memcheck with "
                                     "PYTORCH_NO_CUDA_MEMORY_CACHING=1",
                                     Backend::kCuda, RerunKind::kMemcheck);
  if (!stack.gpu_wanted) {
    memcheck.not_run = "the case runs on the CPU only";
  } else if (stack.target != Backend::kCuda || stack.rocm) {
    memcheck.not_run = "needs a CUDA device";
    memcheck.needs_gpu = true;
  } else if (sanitizer.empty()) {
    memcheck.not_run =
        "compute-sanitizer is not installed (not on PATH, "
        "nor in $CUDA_HOME/bin or /usr/local/cuda/bin)";
  }
  return memcheck;
}

}  // namespace

std::vector<PlannedRerun> plan_reruns(const Case& kase, const RerunStack& stack,
                                      Family first_family,
                                      const std::string& sanitizer) {
  std::vector<PlannedRerun> reruns;
  reruns.push_back(launch_blocking_rerun(kase, stack));
  reruns.push_back(cpu_rerun(kase, stack));
  for (const PrecisionRerun& precision : kPrecisionReruns) {
    reruns.push_back(precision_rerun(kase, stack, precision));
  }
  reruns.push_back(contiguous_rerun(kase, stack));
  if (std::find(std::begin(kIndexFamilies), std::end(kIndexFamilies),
                first_family) != std::end(kIndexFamilies)) {
    reruns.push_back(valid_indices_rerun(kase, stack));
  }
  reruns.push_back(memcheck_rerun(stack, sanitizer));
  return reruns;
}

std::vector<std::string> non_finite_inputs(const Case& kase) {
  std::vector<std::string> lines;
  for (const TensorSpec& spec : kase.inputs) {
    if (!is_floating(spec.dtype) && !is_complex(spec.dtype)) continue;
    if (!spec.same_as.empty()) continue;  // its target's, told once
    at::Tensor view;
    try {
      view = materialise(spec).view;
    } catch (const std::exception&) {
      continue;
    }
    // A complex element is NaN (inf) when either part is.
    const bool complex = is_complex(spec.dtype);
    const at::Tensor parts = complex ? at::view_as_real(view) : view;
    at::Tensor nan = at::isnan(parts);
    at::Tensor inf = at::isinf(parts);
    if (complex) {
      nan = nan.any(-1);
      inf = at::logical_and(inf.any(-1), nan.logical_not());
    }
    const int64_t nans = nan.sum().item<int64_t>();
    const int64_t infs = inf.sum().item<int64_t>();
    if (nans == 0 && infs == 0) continue;
    std::string line = "input `" + spec.name + "` holds ";
    if (nans > 0) line += std::to_string(nans) + " NaN";
    if (nans > 0 && infs > 0) line += " and ";
    if (infs > 0) line += std::to_string(infs) + " inf";
    line += " among its " + std::to_string(view.numel()) + " elements";
    const at::Tensor positions = at::nonzero(at::logical_or(nan, inf));
    const at::Tensor first = positions[0].contiguous();
    line += " (first at " + shape_text(std::vector<int64_t>(
                                first.data_ptr<int64_t>(),
                                first.data_ptr<int64_t>() + first.numel()));
    lines.push_back(line + ")");
  }
  return lines;
}

std::vector<std::string> gpu_reruns_elsewhere(
    const RerunStack& stack, const std::vector<PlannedRerun>& reruns,
    const std::string& case_file) {
  if (stack.missing_gpus.empty()) return {};
  std::vector<std::string> gpu_reruns;
  for (const PlannedRerun& rerun : reruns) {
    if (rerun.needs_gpu) gpu_reruns.push_back(rerun.name);
  }
  const std::string names = joined(gpu_reruns);
  std::vector<std::string> lines;
  lines.push_back(
      "not run here: the GPU reruns" +
      (names.empty() ? "" : " (" + names + ")") +
      (is_gpu(stack.target) ? "" : "; the reruns above ran on the CPU"));
  for (const auto& [backend, why] : stack.missing_gpus) {
    lines.push_back("  " + std::string(backend_name(backend)) + ": " + why);
  }
  for (const auto& [backend, why] : stack.missing_gpus) {
    lines.push_back("  on a machine with " +
                    std::string(backend_hooks(backend).vendor_device) +
                    ": casebook diagnose " + case_file + " --backend " +
                    std::string(backend_name(backend)));
  }
  return lines;
}

std::vector<Backend> gpu_backends() {
  std::vector<Backend> gpus;
  for (Backend backend : all_backends()) {
    if (is_gpu(backend)) gpus.push_back(backend);
  }
  return gpus;
}

}  // namespace casebook
