#include "child/gradients.h"

#include <ATen/ATen.h>
#include <torch/csrc/autograd/autograd.h>

#include <cmath>
#include <functional>
#include <sstream>
#include <string>

#include "casebook/invalid_case_error.h"
#include "casebook/shape_text.h"
#include "tensors/materialise.h"

namespace casebook {
namespace {

constexpr int64_t kMostPerturbedElements = 2000;

size_t input_index(const Case& kase, const std::string& name) {
  for (size_t i = 0; i < kase.inputs.size(); ++i) {
    if (kase.inputs[i].name == name) return i;
  }
  throw InvalidCaseError(
      at_place(kase.grad->where, "`grad.wrt`: no input named `" + name + "`"));
}

// The gradient fed to output `index` (named `name`): the case's, else ones.
at::Tensor grad_output_for(const Case& kase, size_t index,
                           const std::string& name, const at::Tensor& output,
                           c10::Device device) {
  for (const TensorSpec& spec : kase.grad->grad_outputs) {
    if (spec.name != std::to_string(index) &&
        (name.empty() || spec.name != name)) {
      continue;
    }
    MaterialisedTensor made = materialise(spec);
    at::Tensor tensor = device.is_cpu() ? made.view : place_on(made, device);
    CASEBOOK_CHECK_INPUT(tensor.sizes() == output.sizes(), spec.where,
                         "`grad.grad_outputs." + spec.name + "`: shape " +
                             shape_text(tensor.sizes()) +
                             " differs from the output's " +
                             shape_text(output.sizes()));
    return tensor.to(output.scalar_type());
  }
  return at::ones_like(output);
}

// The differentiable outputs and what to feed each.
void backward_pairs(const Case& kase, const NamedOutputs& outputs,
                    c10::Device device, std::vector<at::Tensor>* roots,
                    std::vector<at::Tensor>* feeds) {
  for (size_t i = 0; i < outputs.tensors.size(); ++i) {
    const at::Tensor& output = outputs.tensors[i];
    if (!output.requires_grad()) continue;
    const std::string name = i < outputs.names.size() ? outputs.names[i] : "";
    roots->push_back(output);
    feeds->push_back(grad_output_for(kase, i, name, output, device));
  }
  CASEBOOK_CHECK_INPUT(!roots->empty(), kase.grad->where,
                       "`grad`: no output of `" + kase.op +
                           "` depends on the inputs in `grad.wrt`, so there "
                           "is nothing to differentiate");
}

std::vector<at::Tensor> gradients(const std::vector<at::Tensor>& roots,
                                  const std::vector<at::Tensor>& feeds,
                                  const std::vector<at::Tensor>& leaves) {
  std::vector<at::Tensor> grads =
      torch::autograd::grad(roots, leaves, feeds, /*retain_graph=*/false,
                            /*create_graph=*/false, /*allow_unused=*/true);
  for (size_t i = 0; i < grads.size(); ++i) {
    if (!grads[i].defined()) grads[i] = at::zeros_like(leaves[i]);
  }
  return grads;
}

// `grad.check: finite_differences` runs the op twice per element of
// `grad.wrt`: an InvalidCaseError past kMostPerturbedElements.
void check_perturbed_count(const Case& kase,
                           const std::vector<at::Tensor>& inputs) {
  int64_t elements = 0;
  for (const std::string& name : kase.grad->wrt) {
    elements += inputs.at(input_index(kase, name)).numel();
  }
  CASEBOOK_CHECK_INPUT(
      elements <= kMostPerturbedElements, kase.grad->where,
      "`grad.check: finite_differences` perturbs every element of "
      "`grad.wrt` twice: " +
          std::to_string(elements) + " elements, more than " +
          std::to_string(kMostPerturbedElements) + "; make the case smaller");
}

// float64 copies of the floating inputs (the others as they are),
// contiguous, off the graph of the run itself; an alias still its target.
std::vector<at::Tensor> float64_copies(const Case& kase,
                                       const std::vector<at::Tensor>& inputs) {
  std::vector<at::Tensor> wide;
  for (const at::Tensor& input : inputs) {
    at::Tensor copy = input.detach().clone(at::MemoryFormat::Contiguous);
    wide.push_back(at::isFloatingType(copy.scalar_type()) ? copy.to(at::kDouble)
                                                          : copy);
  }
  share_aliases(kase.inputs, &wide);
  return wide;
}

NamedOutputs run_on_cpu(const Case& kase, const OpDef& op,
                        const std::vector<at::Tensor>& tensors) {
  OpCall call{tensors, kase.args, Backend::kCpu, c10::Device(c10::kCPU)};
  NamedOutputs outputs;
  if (op.run_named) {
    outputs = op.run_named(call);
  } else {
    outputs.tensors = op.run(call);
    outputs.names.resize(outputs.tensors.size());
  }
  return outputs;
}

// sum_k <output_k(tensors), feed_k> over the outputs `fed` marks, the
// feeds in their order.
double fed_objective(const Case& kase, const OpDef& op,
                     const std::vector<at::Tensor>& tensors,
                     const std::vector<bool>& fed,
                     const std::vector<at::Tensor>& feeds) {
  const NamedOutputs outputs = run_on_cpu(kase, op, tensors);
  double total = 0;
  size_t feed = 0;
  for (size_t i = 0; i < outputs.tensors.size() && i < fed.size(); ++i) {
    if (!fed[i]) continue;
    total += (outputs.tensors[i].to(at::kDouble) * feeds[feed++])
                 .sum()
                 .item<double>();
  }
  return total;
}

constexpr double kEps = 1e-6;
constexpr double kRtol = 1e-3;
constexpr double kAtol = 1e-5;

// Perturbs each element of `x` (float64, contiguous, read by `objective`) by
// +-kEps in place and restores it; an OpError (mismatch) at the first
// element whose central difference is not close to `analytic`'s.
void check_against_central_differences(
    const std::string& wrt, at::Tensor x, const at::Tensor& analytic,
    const std::function<double()>& objective) {
  double* data = x.data_ptr<double>();
  const at::Tensor expected = analytic.contiguous().to(at::kDouble);
  const double* analytic_data = expected.data_ptr<double>();
  for (int64_t j = 0; j < x.numel(); ++j) {
    const double saved = data[j];
    data[j] = saved + kEps;
    const double above = objective();
    data[j] = saved - kEps;
    const double below = objective();
    data[j] = saved;
    const double numerical = (above - below) / (2 * kEps);
    const double difference = std::fabs(analytic_data[j] - numerical);
    if (!(difference <= kAtol + kRtol * std::fabs(numerical))) {
      std::ostringstream message;
      message << "grad." << wrt
              << ": the analytic gradient disagrees with finite differences "
                 "at flat index "
              << j << ": analytic " << analytic_data[j] << ", numerical "
              << numerical << " (float64 on the CPU, eps " << kEps << ", rtol "
              << kRtol << ", atol " << kAtol << ")";
      throw OpError(Family::kMismatch, message.str());
    }
  }
}

}  // namespace

void require_gradients(const Case& kase, std::vector<at::Tensor>* inputs) {
  if (!kase.grad) return;
  for (const std::string& name : kase.grad->wrt) {
    at::Tensor& input = inputs->at(input_index(kase, name));
    input = input.detach().requires_grad_(true);
  }
  share_aliases(kase.inputs, inputs);  // the leaf is the alias's tensor too
}

void append_gradients(const Case& kase, const std::vector<at::Tensor>& inputs,
                      c10::Device device, NamedOutputs* outputs) {
  if (!kase.grad) return;
  std::vector<at::Tensor> roots;
  std::vector<at::Tensor> feeds;
  backward_pairs(kase, *outputs, device, &roots, &feeds);
  std::vector<at::Tensor> leaves;
  for (const std::string& name : kase.grad->wrt) {
    leaves.push_back(inputs.at(input_index(kase, name)));
  }
  const std::vector<at::Tensor> grads = gradients(roots, feeds, leaves);
  outputs->names.resize(outputs->tensors.size());
  for (size_t i = 0; i < grads.size(); ++i) {
    outputs->tensors.push_back(grads[i]);
    outputs->names.push_back("grad." + kase.grad->wrt[i]);
  }
  // The forward outputs are compared as values, not as graph nodes.
  for (at::Tensor& tensor : outputs->tensors) tensor = tensor.detach();
}

void check_finite_differences(const Case& kase, const OpDef& op,
                              const std::vector<at::Tensor>& inputs) {
  if (!kase.grad || !kase.grad->finite_differences) return;
  check_perturbed_count(kase, inputs);
  std::vector<at::Tensor> wide = float64_copies(kase, inputs);
  // Analytic, with the same grad_outputs (as float64).
  std::vector<at::Tensor> leaves;
  std::vector<size_t> positions;
  for (const std::string& name : kase.grad->wrt) {
    const size_t index = input_index(kase, name);
    wide[index] = wide[index].requires_grad_(true);
    leaves.push_back(wide[index]);
    positions.push_back(index);
  }
  const NamedOutputs outputs = run_on_cpu(kase, op, wide);
  std::vector<at::Tensor> roots;
  std::vector<at::Tensor> feeds;
  backward_pairs(kase, outputs, c10::Device(c10::kCPU), &roots, &feeds);
  const std::vector<at::Tensor> analytic = gradients(roots, feeds, leaves);
  // Numerical: d/dx sum_k <output_k(x), feed_k>, by central differences.
  std::vector<at::Tensor> plain;
  for (const at::Tensor& tensor : wide) plain.push_back(tensor.detach());
  share_aliases(kase.inputs, &plain);
  std::vector<bool> fed(outputs.tensors.size(), false);
  for (size_t i = 0; i < outputs.tensors.size(); ++i) {
    fed[i] = outputs.tensors[i].requires_grad();
  }
  const std::function<double()> objective = [&] {
    return fed_objective(kase, op, plain, fed, feeds);
  };
  for (size_t w = 0; w < positions.size(); ++w) {
    check_against_central_differences(kase.grad->wrt[w], plain[positions[w]],
                                      analytic[w], objective);
  }
}

}  // namespace casebook
