// `grad`: a backward run after the forward one (casebook's addition to
// format 1, issue 10). Needs case.op and case.inputs already read.
#include <algorithm>
#include <string>
#include <vector>

#include "casebook/joined.h"
#include "casebook/op_traits.h"
#include "model/sections.h"

namespace casebook::model {
namespace {

const std::vector<std::string> kGradKeys{"wrt", "grad_outputs", "check"};

std::vector<std::string> input_name_list(const Case& out) {
  std::vector<std::string> names;
  names.reserve(out.inputs.size());
  for (const TensorSpec& spec : out.inputs) names.push_back(spec.name);
  return names;
}

const TensorSpec* grad_input(const Case& out, const std::string& name) {
  for (const TensorSpec& spec : out.inputs) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

void read_wrt(Reader& reader, const Entry& entry, Case& out, GradSpec& grad) {
  const std::string path = "grad.wrt";
  std::vector<YAML::Node> items;
  if (entry.value.IsSequence()) {
    for (const YAML::Node& item : entry.value) items.push_back(item);
  } else {
    items.push_back(entry.value);
  }
  if (items.empty()) {
    reader.error(reader.where(entry), path,
                 "expected the names of inputs to differentiate; got an "
                 "empty list");
    return;
  }
  for (size_t i = 0; i < items.size(); ++i) {
    const YAML::Node& item = items[i];
    const std::string item_path =
        entry.value.IsSequence() ? path + "[" + std::to_string(i) + "]" : path;
    const Scalar scalar = resolve_scalar(item);
    if (!item.IsScalar() || scalar.kind != Scalar::Kind::kString) {
      reader.error(item, item_path,
                   "expected an input name; got " + describe(item));
      continue;
    }
    const TensorSpec* input = grad_input(out, scalar.text);
    if (input == nullptr) {
      const std::vector<std::string> names = input_name_list(out);
      reader.error(item, item_path,
                   "no input named `" + scalar.text + "`" +
                       (names.empty() ? std::string()
                                      : "; the inputs are " + joined(names)));
      continue;
    }
    if (!input->same_as.empty()) {
      // One tensor, one leaf: its gradient sums every use of it.
      reader.error(item, item_path,
                   "`" + scalar.text + "` is input `" + input->same_as +
                       "` itself (`same_as`): name `" + input->same_as +
                       "`, whose gradient is the one tensor's");
      continue;
    }
    if (!is_floating(input->dtype)) {
      reader.error(item, item_path,
                   "`" + scalar.text + "` is " +
                       std::string(dtype_name(input->dtype)) +
                       ": only floating inputs have gradients");
      continue;
    }
    if (std::find(grad.wrt.begin(), grad.wrt.end(), scalar.text) !=
        grad.wrt.end()) {
      reader.error(item, item_path, "`" + scalar.text + "` is listed twice");
      continue;
    }
    grad.wrt.push_back(scalar.text);
  }
}

// `grad.grad_outputs`: a map of output names (or indices) to tensors, each
// appended to grad.grad_outputs; errors go to the reader.
void read_grad_outputs(Reader& reader, const Entry& outputs, const Case& out,
                       GradSpec& grad) {
  const auto tensors =
      reader.read_map(outputs.value, reader.where(outputs), "grad.grad_outputs",
                      {}, "a map of output names (or indices) to tensors");
  if (!tensors) return;
  for (const Entry& tensor : *tensors) {
    auto spec = read_tensor(
        reader, tensor, join_path("grad.grad_outputs", tensor.key), out.file);
    if (spec) grad.grad_outputs.push_back(std::move(*spec));
  }
}

}  // namespace

void read_grad(Reader& reader, const Entry& entry, Case& out) {
  const auto map =
      reader.read_map(entry.value, reader.where(entry), "grad", kGradKeys,
                      "a map with wrt, grad_outputs, check");
  if (!map) return;
  GradSpec grad;
  grad.where = reader.where(entry);
  const OpTraitsTable& traits = installed_op_traits();
  auto through_autograd = [&traits](const std::string& op) {
    const OpTraits* found = traits.find(op);
    return found != nullptr && found->gradients;
  };
  // A case of `steps`: the gradients flow through every step.
  bool autograd = out.steps.empty() ? through_autograd(out.op) : true;
  for (const Step& step : out.steps) {
    autograd = autograd && through_autograd(step.op);
  }
  if (!autograd) {
    reader.error(reader.where(entry), "grad",
                 "gradients are for " + traits.wording.with_gradients +
                     " (LibTorch's autograd); got op `" + out.op + "`");
    return;
  }
  if (const Entry* wrt = find_entry(*map, "wrt")) {
    read_wrt(reader, *wrt, out, grad);
  } else {
    // Every floating input, as torch.autograd.gradcheck takes them.
    for (const TensorSpec& spec : out.inputs) {
      // An alias is its target's tensor, not a leaf of its own.
      if (is_floating(spec.dtype) && spec.same_as.empty()) {
        grad.wrt.push_back(spec.name);
      }
    }
    if (grad.wrt.empty() && !out.inputs.empty()) {
      reader.error(reader.where(entry), "grad.wrt",
                   "required key missing: no input is floating, so none has "
                   "a gradient");
    }
  }
  if (const Entry* outputs = find_entry(*map, "grad_outputs")) {
    read_grad_outputs(reader, *outputs, out, grad);
  }
  if (const Entry* check = find_entry(*map, "check")) {
    const Scalar scalar = resolve_scalar(check->value);
    if (check->value.IsScalar() && scalar.text == "finite_differences") {
      grad.finite_differences = true;
    } else {
      reader.error(
          reader.where(*check), "grad.check",
          "expected finite_differences; got " + describe(check->value));
    }
  }
  out.grad = std::move(grad);
}

}  // namespace casebook::model
