#include "child/execute.h"

#include <ATen/ATen.h>
#include <cxxabi.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <typeinfo>

#include "casebook/diagnosis.h"
#include "casebook/internal_error.h"
#include "casebook/shape_text.h"
#include "child/gradients.h"
#include "compare/compare.h"
#include "compare/value_text.h"
#include "device/backend_hooks.h"
#include "device/kernel_plugin.h"
#include "ops/op_helpers.h"
#include "process/child_limits.h"
#include "process/subprocess.h"
#include "tensors/materialise.h"

namespace casebook {
namespace {

std::string demangled_type(const std::exception& error) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(
      abi::__cxa_demangle(typeid(error).name(), nullptr, nullptr, &status),
      std::free);
  return status == 0 && name ? std::string(name.get())
                             : std::string(typeid(error).name());
}

// Keeps the first error as the verdict's message; later ones are possible
// consequences, never causes (a sticky CUDA error repeats on every call).
void record_error(ChildReport* report, Family family,
                  const std::string& message, const std::string& type) {
  if (report->status != ChildReport::Status::kError) {
    report->status = ChildReport::Status::kError;
    report->family = family;
    report->message = message;
    report->exception_type = type;
    report->outputs.clear();
    return;
  }
  if (message == report->message) return;
  for (const std::string& seen : report->consequences) {
    if (seen == message) return;
  }
  report->consequences.push_back(message);
}

// casebook broke, not the case: the report says so and holds nothing else
// (an error seen before it may be its consequence, not the case's doing).
void record_internal(ChildReport* report, const InternalError& error) {
  report->status = ChildReport::Status::kError;
  report->internal = true;
  report->family = Family::kNone;
  report->message = error.what();
  report->exception_type = "casebook::InternalError";
  report->consequences.clear();
  report->positions.reset();
  report->outputs.clear();
}

// How `again` differs from `first` under the case's `deterministic`: empty
// when it does not; else "at output 0 index [3] (run 1: 0.5, this run: 0.25)".
std::string repeat_difference(const Case& kase,
                              const std::vector<at::Tensor>& first,
                              const std::vector<at::Tensor>& again) {
  if (first.size() != again.size()) return "in its number of outputs";
  for (size_t i = 0; i < first.size(); ++i) {
    const at::Tensor a = first[i].cpu();
    const at::Tensor b = again[i].cpu();
    const std::string which = "at output " + std::to_string(i);
    if (a.sizes() != b.sizes() || a.scalar_type() != b.scalar_type()) {
      return which + " in its shape or dtype";
    }
    at::Tensor differs;
    if (kase.deterministic == Case::Determinism::kBitwise) {
      // The bits: NaN payloads and signed zeros count, as they do for an
      // atomics-order bug.
      const at::Tensor x = a.contiguous().reshape({-1});
      const at::Tensor y = b.contiguous().reshape({-1});
      const auto size = x.element_size();
      const at::ScalarType bits = size == 1   ? at::kByte
                                  : size == 2 ? at::kShort
                                  : size == 4 ? at::kInt
                                              : at::kLong;
      differs = x.scalar_type() == at::kBool ? x.ne(y)
                                             : x.view(bits).ne(y.view(bits));
    } else {
      const Comparison comparison =
          compare_outputs({a}, {b}, kase.tolerance_rule(), "run 1");
      if (comparison.equal()) continue;
      return which + ": " + comparison.report;
    }
    if (!differs.any().item<bool>()) continue;
    const int64_t flat = differs.nonzero()[0][0].item<int64_t>();
    const std::vector<int64_t> index = unravel(flat, a.sizes());
    const at::Tensor x = a.contiguous().reshape({-1});
    const at::Tensor y = b.contiguous().reshape({-1});
    return which + " index " + shape_text(index) +
           " (run 1: " + reported_element(x, flat, 9) +
           ", this run: " + reported_element(y, flat, 9) + "; " +
           std::to_string(differs.sum().item<int64_t>()) + " of " +
           std::to_string(x.numel()) + " elements differ, bitwise)";
  }
  return {};
}

bool poisons_gpu_process(Family family) {
  return family == Family::kDeviceAssert || family == Family::kIllegalAddress ||
         family == Family::kCrash;
}

}  // namespace

std::vector<at::Tensor> make_inputs(const Case& kase, const OpDef& op,
                                    const RunRequest& request,
                                    at::Device device) {
  std::vector<at::Tensor> inputs;
  inputs.reserve(kase.inputs.size());
  for (const TensorSpec& spec : kase.inputs) {
    if (!spec.same_as.empty()) {  // its target's tensor, once made: below
      inputs.emplace_back();
      continue;
    }
    MaterialisedTensor made = materialise(spec);
    at::Tensor tensor = device.is_cpu() ? made.view : place_on(made, device);
    if (request.kind == JobKind::kReferenceCpu64 &&
        at::isFloatingType(tensor.scalar_type())) {
      tensor = tensor.to(at::kDouble);
    }
    // A reference of its own computes from contiguous inputs unless the case
    // keeps the layout: a layout bug it shared would pass (case.h).
    const bool reference = request.kind == JobKind::kReferenceCpu64 ||
                           request.kind == JobKind::kReferenceTorch;
    if (reference && !kase.reference_keeps_layout) tensor = tensor.contiguous();
    inputs.push_back(tensor);
  }
  share_aliases(kase.inputs, &inputs);
  return inputs;
}

namespace {

// The cpu64 reference computes in float64 throughout: a floating `dtype`
// argument (softmax(dtype: float32)) becomes float64 too, and the judge
// casts the result to the run's output dtype at the end.
std::map<std::string, ArgValue> args_for(const Case& kase,
                                         const RunRequest& request) {
  if (request.kind != JobKind::kReferenceCpu64) return kase.args;
  return promote_dtype_args(kase.args);
}

// A case of `steps`: the step running now, and what runs after each step
// (the synchronised rerun's synchronisation; empty otherwise).
struct StepWatch {
  int current = -1;
  std::function<void()> after_step;
};

// The op once, on freshly made inputs (a repeat must not see what an
// in-place op did to the inputs of the run before).
NamedOutputs call_op(const Case& kase, const OpDef& op,
                     const RunRequest& request, const BackendRuntime& runtime,
                     at::Device device,
                     const std::map<std::string, ArgValue>& args,
                     bool check_gradients, double* seconds, EntryCount* count,
                     StepWatch* watch) {
  std::vector<at::Tensor> inputs = make_inputs(kase, op, request, device);
  require_gradients(kase, &inputs);
  OpCall call{inputs,
              args,
              request.backend,
              device,
              count,
              &watch->current,
              &watch->after_step,
              request.kind == JobKind::kReferenceCpu64};
  auto start = std::chrono::steady_clock::now();
  NamedOutputs outputs;
  if (request.kind == JobKind::kReferenceTorch) {
    outputs.tensors = op.torch_reference(call);
  } else if (op.run_named) {
    outputs = op.run_named(call);
  } else {
    outputs.tensors = op.run(call);
  }
  append_gradients(kase, inputs, device, &outputs);
  if (check_gradients && request.backend == Backend::kCpu &&
      request.kind == JobKind::kRun) {
    check_finite_differences(kase, op, inputs);
  }
  *seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return outputs;
}

// The op, then its repeats (`repeat`: only a judged run is repeated, the
// reference runs once): the first run's outputs, or nullopt where a repeat
// differed from it (recorded in `report` as not deterministic).
std::optional<NamedOutputs> repeated_outputs(
    const Case& kase, const OpDef& op, const RunRequest& request,
    const BackendRuntime& runtime, at::Device device, StepWatch* watch,
    EntryCount* count, ChildReport* report) {
  const std::map<std::string, ArgValue> args = args_for(kase, request);
  NamedOutputs outputs = call_op(kase, op, request, runtime, device, args, true,
                                 &report->seconds, count, watch);
  for (size_t i = 0; i < outputs.tensors.size(); ++i) {
    refuse_oversized_output(outputs.tensors[i], i);
  }
  const int repeats = request.kind == JobKind::kRun ? kase.repeat : 1;
  for (int run = 2; run <= repeats; ++run) {
    NamedOutputs again = call_op(kase, op, request, runtime, device, args,
                                 false, &report->seconds, nullptr, watch);
    if (kase.deterministic == Case::Determinism::kNone) continue;
    const std::string difference =
        repeat_difference(kase, outputs.tensors, again.tensors);
    if (!difference.empty()) {
      record_error(report, Family::kMismatch,
                   "not deterministic: run " + std::to_string(run) + " of " +
                       std::to_string(repeats) + " differs from run 1 " +
                       difference,
                   "casebook::NotDeterministic");
      return std::nullopt;
    }
  }
  return outputs;
}

// The outputs as files in the request's folder, named in the report.
void write_outputs(const NamedOutputs& outputs, const RunRequest& request,
                   ChildReport* report) {
  report->status = ChildReport::Status::kOutputs;
  for (size_t i = 0; i < outputs.tensors.size(); ++i) {
    std::string path =
        request.output_dir + "/output" + std::to_string(i) + ".bin";
    report->outputs.push_back(write_tensor_file(outputs.tensors[i], path));
    if (i < outputs.names.size())
      report->outputs.back().name = outputs.names[i];
  }
}

// Runs the op and writes its outputs; every exception becomes an error.
void run_op(const Case& kase, const OpDef& op, const RunRequest& request,
            const BackendRuntime& runtime, at::Device device, StepWatch* watch,
            ChildReport* report) {
  // The first run's count, as its outputs, is the one judged; it is
  // reported after an error too (a check that rejects entries).
  EntryCount count;
  // An error of a case of `steps` is placed at the step that raised it.
  auto place = [&kase, watch, report] {
    if (!kase.steps.empty() && watch->current >= 0 && !report->step) {
      report->step = watch->current;
    }
  };
  try {
    const std::optional<NamedOutputs> outputs = repeated_outputs(
        kase, op, request, runtime, device, watch, &count, report);
    if (!outputs) return;
    write_outputs(*outputs, request, report);
  } catch (const InternalError& error) {
    record_internal(report, error);
    place();
    return;  // no count: the run says nothing of the case
  } catch (const OpError& error) {
    record_error(report, error.family(), error.what(), "casebook::OpError");
    if (!error.positions().empty()) report->positions = error.positions();
    place();
  } catch (const InvalidCaseError& error) {
    record_error(report, Family::kInvalidCase, error.what(),
                 "casebook::InvalidCaseError");
    place();
  } catch (const c10::Error& error) {
    const std::string type = demangled_type(error);
    record_error(report, classify_error(error.what_without_backtrace(), type),
                 error.what_without_backtrace(), type);
    place();
  } catch (const std::exception& error) {
    const std::string type = demangled_type(error);
    record_error(report, classify_error(error.what(), type), error.what(),
                 type);
    place();
  }
  if (count.reported) {
    report->processed = count.processed;
    if (!report->positions) report->positions = count.rejected;
  }
}

}  // namespace

namespace {

// Waits for the backend's queued work (LibTorch's device, then the kernel
// plugin's); the late errors each reported, first first.
std::vector<std::string> synchronize_backend(const BackendRuntime& runtime,
                                             bool* poisoned) {
  std::vector<std::string> late;
  bool torch_poisoned = false;
  std::string text =
      backend_hooks(runtime.backend).synchronize_torch(&torch_poisoned);
  if (!text.empty()) late.push_back(std::move(text));
  bool plugin_poisoned = false;
  if (runtime.plugin != nullptr) {
    text = plugin_synchronize(*runtime.plugin, &plugin_poisoned);
    if (!text.empty()) late.push_back(std::move(text));
  }
  *poisoned = *poisoned || torch_poisoned || plugin_poisoned;
  return late;
}

// execute_request, with an InternalError raised outside the op's own run
// (the backend's synchronisation, the readiness of its part) reported as
// internal rather than ending the child as a crash the case would be blamed
// for.
ChildReport execute_reporting_internal(const CaseTable& table,
                                       const RunRequest& request,
                                       const BackendRuntime& runtime) {
  try {
    return execute_request(table, request, runtime);
  } catch (const InternalError& error) {
    ChildReport report;
    record_internal(&report, error);
    // A GPU worker that broke mid-run may hold a device in any state: it
    // takes no further case.
    report.poisoned = is_gpu(request.backend);
    return report;
  }
}

}  // namespace

void apply_child_environment(const ChildEnvironment& environment) {
  for (const auto& [name, value] : environment) {
    setenv(name.c_str(), value.c_str(), 1);
  }
}

ChildReport execute_request(const CaseTable& table, const RunRequest& request,
                            const BackendRuntime& runtime) {
  const Case& kase = *table.cases.at(request.case_index);
  const OpDef& op = *table.ops.at(request.case_index);
  ChildReport report;
  report.status = ChildReport::Status::kOutputs;  // none yet, no error yet
  const bool gpu = is_gpu(request.backend);
  at::Device device(at::kCPU);
  if (gpu) {
    // The part of the backend this op needs, as the one module judges it:
    // absent is a skip, broken an error; neither ever runs.
    const PartReadiness part = runtime.part_for(op);
    if (part.state == Readiness::kAbsent) {
      report.status = ChildReport::Status::kSkipped;
      report.message = part.reason;
      return report;
    }
    if (part.state == Readiness::kBroken) {
      record_error(&report, Family::kOpUnavailable,
                   std::string(backend_name(request.backend)) +
                       " is broken: " + part.reason,
                   {});
      return report;
    }
    if (op.placement == OpDef::Placement::kBackendDevice) {
      device = at::Device(backend_hooks(request.backend).torch_device, 0);
    }
  }
  StepWatch watch;
  bool poisoned = false;
  // The synchronised rerun of a case of `steps`: each step's work is waited
  // for before the next starts, so its late error surfaces at its own step.
  if (gpu && request.synchronise_steps) {
    watch.after_step = [&runtime, &poisoned] {
      const std::vector<std::string> late =
          synchronize_backend(runtime, &poisoned);
      if (!late.empty()) throw std::runtime_error(late.front());
    };
  }
  run_op(kase, op, request, runtime, device, &watch, &report);
  if (gpu) {
    // CUDA reports errors late: synchronise so that this case's error is
    // seen here, not blamed on the next case.
    const bool failed = report.status == ChildReport::Status::kError;
    for (const std::string& late : synchronize_backend(runtime, &poisoned)) {
      record_error(&report, classify_error(late, {}), late, {});
    }
    // Seen after the last step: at the synchronisation that follows it.
    if (!failed && report.status == ChildReport::Status::kError &&
        !kase.steps.empty()) {
      report.step = static_cast<int>(kase.steps.size());
    }
    report.poisoned =
        poisoned || (report.status == ChildReport::Status::kError &&
                     poisons_gpu_process(report.family));
  }
  return report;
}

void warm_up_cpu(const std::string& scratch_dir) {
  TensorSpec spec;
  spec.name = "warm_up";
  spec.shape = {8, 16};
  spec.source = TensorSpec::Source::kFill;
  spec.fill.kind = Fill::Kind::kNormal;
  spec.fill.second = 1.0;
  ChildReport report;
  report.status = ChildReport::Status::kOutputs;
  try {
    at::Tensor output = at::softmax(materialise(spec).view, 1);
    const std::string path = scratch_dir + "/warm_up.bin";
    report.outputs.push_back(write_tensor_file(output, path));
    std::remove(path.c_str());
  } catch (const std::exception& error) {
    // Only a slower first child follows; never a wrong verdict.
    report.message = error.what();
  }
  (void)encode_report(report);
}

int run_one_shot_child(const CaseTable& table, const RunRequest& request,
                       int report_fd) {
  if (request.backend == Backend::kCpu) limit_child_memory();
  BackendRuntime runtime = open_backend_runtime(request.backend);
  ChildReport report = execute_reporting_internal(table, request, runtime);
  if (!write_all(report_fd, encode_report(report))) return 1;
  if (!request.then_kind) return 0;
  // The second part: reported on its own line, whatever the first gave (an
  // error of the reference does not stop the run the case judges).
  RunRequest then = request;
  then.kind = *request.then_kind;
  then.output_dir = request.then_output_dir;
  then.then_kind.reset();
  report = execute_reporting_internal(table, then, runtime);
  return write_all(report_fd, encode_report(report)) ? 0 : 1;
}

int run_gpu_worker(const CaseTable& table, Backend backend, int report_fd,
                   int request_fd) {
  BackendRuntime runtime = open_backend_runtime(backend);
  FILE* requests = fdopen(request_fd, "r");
  if (requests == nullptr) return 1;
  char* line = nullptr;
  size_t capacity = 0;
  while (getline(&line, &capacity, requests) > 0) {
    RunRequest request = decode_request(line);
    ChildReport report = execute_reporting_internal(table, request, runtime);
    if (!write_all(report_fd, encode_report(report))) break;
    if (report.poisoned) {
      std::free(line);
      return kWorkerPoisonedStatus;
    }
  }
  std::free(line);
  return 0;
}

ForkServerWork cpu_fork_server_work(const CaseTable& table,
                                    const ChildEnvironment& environment,
                                    const std::string& scratch_dir) {
  ForkServerWork work;
  work.prepare = [&environment, &scratch_dir] {
    apply_child_environment(environment);
    warm_up_cpu(scratch_dir);
  };
  work.run = [&table](const std::string& message, int report_fd) {
    return run_one_shot_child(table, decode_request(message), report_fd);
  };
  return work;
}

}  // namespace casebook
