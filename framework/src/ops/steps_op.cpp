#include "ops/steps_op.h"

#include <ATen/core/Tensor.h>

#include <algorithm>
#include <cctype>
#include <memory>

#include "casebook/joined.h"
#include "ops/names.h"

namespace casebook {
namespace {

// Where a step's tensor comes from, found once when the case is planned.
struct Source {
  bool from_input = true;
  size_t index = 0;      // the case input, or the step
  std::string selector;  // a step's output: "" (0), "1", or a return name
  std::string written;   // as the file says it
  SourceLocation where;
};

struct PlannedStep {
  const OpDef* def = nullptr;
  std::shared_ptr<const OpDef> generated;
  std::string name;
  std::string op;
  std::map<std::string, ArgValue> args;
  std::vector<Source> sources;  // in the order the op's inputs were bound
};

struct StepsPlan {
  std::vector<PlannedStep> steps;
  std::vector<Source> extra_outputs;  // the case's step_outputs
};

Source plan_source(const Case& kase, const std::string& written,
                   const SourceLocation& where) {
  Source source;
  source.written = written;
  source.where = where;
  for (size_t i = 0; i < kase.inputs.size(); ++i) {
    if (kase.inputs[i].name == written) {
      source.index = i;
      return source;
    }
  }
  // The loader checked that the name is an earlier step's.
  const size_t dot = written.find('.');
  const std::string head = written.substr(0, dot);
  source.from_input = false;
  if (dot != std::string::npos) source.selector = written.substr(dot + 1);
  for (size_t i = 0; i < kase.steps.size(); ++i) {
    if (kase.steps[i].name == head) source.index = i;
  }
  return source;
}

bool is_index(const std::string& text) {
  return !text.empty() && text.size() < 10 &&
         std::all_of(
             text.begin(), text.end(),
             [](char c) {
               return std::isdigit(static_cast<unsigned char>(c)) != 0;
             });
}

const at::Tensor& pick(const StepsPlan& plan, const Source& source,
                       const std::vector<at::Tensor>& inputs,
                       const std::vector<NamedOutputs>& done) {
  if (source.from_input) return inputs.at(source.index);
  const NamedOutputs& outputs = done.at(source.index);
  const PlannedStep& step = plan.steps.at(source.index);
  if (source.selector.empty() || is_index(source.selector)) {
    const size_t k = source.selector.empty() ? 0 : std::stoul(source.selector);
    if (k < outputs.tensors.size()) return outputs.tensors[k];
  } else {
    for (size_t k = 0; k < outputs.names.size(); ++k) {
      if (outputs.names[k] == source.selector) return outputs.tensors[k];
    }
  }
  std::vector<std::string> outputs_given;
  for (size_t k = 0; k < outputs.tensors.size(); ++k) {
    outputs_given.push_back(std::to_string(k));
    if (k < outputs.names.size() && !outputs.names[k].empty()) {
      outputs_given.back() += " (" + outputs.names[k] + ")";
    }
  }
  const std::string given = joined(outputs_given);
  throw InvalidCaseError(at_place(
      source.where, "`" + source.written + "`: step `" + step.name + "` (`" +
                        step.op + "`) has no such output; its outputs: " +
                        (given.empty() ? "none" : given)));
}

NamedOutputs run_steps(const StepsPlan& plan, const OpCall& call) {
  std::vector<NamedOutputs> done;
  done.reserve(plan.steps.size());
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const PlannedStep& step = plan.steps[i];
    if (call.step != nullptr) *call.step = static_cast<int>(i);
    std::vector<at::Tensor> inputs;
    inputs.reserve(step.sources.size());
    for (const Source& source : step.sources) {
      inputs.push_back(pick(plan, source, call.inputs, done));
    }
    const std::map<std::string, ArgValue> args =
        call.float64_args ? promote_dtype_args(step.args) : step.args;
    const OpCall each{inputs,     args,    call.backend, call.device,
                      call.count, nullptr, nullptr,      call.float64_args};
    if (step.def->run_named) {
      done.push_back(step.def->run_named(each));
    } else {
      done.push_back({step.def->run(each), {}});
    }
    if (call.after_step != nullptr && *call.after_step) (*call.after_step)();
  }
  NamedOutputs outputs = done.back();
  outputs.names.resize(outputs.tensors.size());
  for (const Source& extra : plan.extra_outputs) {
    outputs.tensors.push_back(pick(plan, extra, call.inputs, done));
    outputs.names.push_back(extra.written);
  }
  return outputs;
}

// One step as the one-op case it would be: its op, args, and inputs named
// by the schema arguments they bind to.
Case step_as_case(const Case& kase, const Step& step) {
  Case one;
  one.file = kase.file;
  one.id = kase.id;
  one.op = step.op;
  one.op_where = step.op_where;
  one.args = step.args;
  for (const StepInput& input : step.inputs) {
    TensorSpec spec;
    spec.name = input.argument;
    spec.where = input.where;
    one.inputs.push_back(std::move(spec));
  }
  return one;
}

}  // namespace

ResolvedOp resolve_steps(const Case& kase, const OpRegistry& registry) {
  ResolvedOp resolved;
  auto plan = std::make_shared<StepsPlan>();
  bool host = false;
  bool device = false;
  bool plugin = false;
  bool random = false;
  for (const Step& step : kase.steps) {
    ResolvedOp each = resolve_op(step_as_case(kase, step), registry);
    for (std::string& problem : each.problems) {
      resolved.problems.push_back(std::move(problem));
    }
    if (each.def == nullptr) continue;
    PlannedStep planned;
    planned.def = each.def;
    planned.generated = std::move(each.generated);
    planned.name = step.name;
    planned.op = step.op;
    planned.args = step.args;
    for (const StepInput& input : step.inputs) {
      planned.sources.push_back(plan_source(kase, input.source, input.where));
    }
    const bool on_host = each.def->placement == OpDef::Placement::kHost;
    host = host || on_host;
    device = device || !on_host;
    plugin = plugin || each.def->needs_kernel_plugin;
    random = random || each.def->random;
    plan->steps.push_back(std::move(planned));
  }
  if (host && device) {
    resolved.problems.push_back(
        format_location(kase.op_where) +
        ": `steps` mixes ops that run on the host (validate.*, kernels.*) "
        "with ops that run on the backend's LibTorch device; casebook runs "
        "a sequence of one kind");
  }
  if (!resolved.problems.empty()) return resolved;
  for (const StepInput& extra : kase.step_outputs) {
    plan->extra_outputs.push_back(plan_source(kase, extra.source, extra.where));
  }
  auto def = std::make_shared<OpDef>();
  def->name = kase.op;
  for (const TensorSpec& spec : kase.inputs) def->inputs.push_back(spec.name);
  def->placement =
      host ? OpDef::Placement::kHost : OpDef::Placement::kBackendDevice;
  def->needs_kernel_plugin = plugin;
  def->random = random;
  def->file = __FILE__;
  def->line = __LINE__;
  def->run_named = [plan](const OpCall& call) {
    return run_steps(*plan, call);
  };
  def->run = [plan](const OpCall& call) {
    return run_steps(*plan, call).tensors;
  };
  resolved.def = def.get();
  resolved.generated = std::move(def);
  return resolved;
}

}  // namespace casebook
