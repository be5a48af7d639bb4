// The rules that keep every value: layouts (contiguous, transposed, sliced
// with a storage offset, channels-last for 4-D), whose neighbours expect
// exactly what the base does; and dtypes (float16, bfloat16, float32,
// float64 siblings of the floating inputs), each with its dtype's default
// tolerance or `reference: cpu64`.
#include <algorithm>

#include "casebook/joined.h"
#include "casebook/limits.h"
#include "model/neighbor_support.h"
#include "model/yaml_reader.h"

namespace casebook::model {
namespace {

const std::vector<std::string> kLayouts{"contiguous", "transposed", "sliced",
                                        "channels_last"};

// Whether `layout` can be given to `input`; sets it when it can.
bool give_layout(TensorSpec& input, const std::string& layout) {
  if (!input.shape_given) return false;
  const size_t rank = input.shape.size();
  if (layout == "contiguous") {
    if (input.layout.kind == Layout::Kind::kDefault) return false;
    input.layout = Layout{};
    return true;
  }
  Layout made;
  if (layout == "transposed") {
    if (rank < 2) return false;
    made.kind = Layout::Kind::kTranspose;
    made.dims = {-2, -1};
  } else if (layout == "sliced") {
    if (rank < 1 || casebook::element_count(input.shape) == 0) return false;
    // A view into a buffer whose rows are one element longer, one element
    // in: x = buffer[1:][..., :n].
    std::vector<int64_t> padded = input.shape;
    padded.back() += 1;
    made.kind = Layout::Kind::kStrided;
    made.stride.assign(rank, 1);
    for (size_t d = rank - 1; d-- > 0;) {
      made.stride[d] = made.stride[d + 1] * padded[d + 1];
    }
    made.storage_offset = 1;
  } else if (layout == "channels_last") {
    if (rank != 4) return false;
    made.kind = Layout::Kind::kPermute;
    made.dims = {0, 2, 3, 1};
  }
  input.layout = std::move(made);
  return true;
}

std::string layout_needs(const std::string& layout) {
  if (layout == "contiguous") return "an input with a `layout`";
  if (layout == "transposed") return "an input of 2 or more dims";
  if (layout == "sliced") return "an input of 1 or more dims and elements";
  return "a 4-D input";
}

// Gives every floating input and grad output of `kase` the dtype `dtype`;
// written `values` are rounded to the nearest the dtype holds.
void recast_floating(Case& kase, DType dtype) {
  auto recast = [dtype](TensorSpec& tensor) {
    if (!is_floating(tensor.dtype)) return;
    tensor.dtype = dtype;
    // The same numbers, rounded to the nearest the dtype holds.
    if (tensor.source == TensorSpec::Source::kValues) {
      tensor.round_to_nearest = true;
    }
  };
  for (TensorSpec& input : kase.inputs) recast(input);
  if (kase.grad) {
    for (TensorSpec& fed : kase.grad->grad_outputs) recast(fed);
  }
}

}  // namespace

RuleResult layouts_rule(const Case& base, const NeighborRule& rule) {
  for (const std::string& name : rule.inputs) {
    if (find_input(base, name) == nullptr) {
      return rule_error("`inputs` names `" + name +
                        "`; the case's inputs are " + input_names(base));
    }
  }
  const bool declared = !rule.layouts.empty();
  RuleResult result;
  for (const std::string& layout : declared ? rule.layouts : kLayouts) {
    Neighbor neighbor = start_neighbor(base, "layouts", layout, "");
    std::vector<std::string> changed;
    for (TensorSpec& input : neighbor.value.inputs) {
      const bool chosen = rule.inputs.empty() ||
                          std::find(rule.inputs.begin(), rule.inputs.end(),
                                    input.name) != rule.inputs.end();
      if (chosen && give_layout(input, layout)) changed.push_back(input.name);
    }
    if (changed.empty()) {
      if (!declared) continue;
      return rule_error("`" + layout + "` needs " + layout_needs(layout) +
                        (rule.inputs.empty() ? "" : " among `inputs`") +
                        "; the case has none");
    }
    neighbor.change = layout + " " + joined(changed);
    neighbor.value.summary = base.summary + " (neighbour layouts[" + layout +
                             "]: " + neighbor.change + ")";
    // The values are unchanged: the base's expectations, but for a known
    // bug, which may be the layout's.
    expect_known_bugs_unknown(neighbor, "its layout");
    result.made.push_back(std::move(neighbor));
  }
  if (result.made.empty()) {
    return rule_error(
        "no layout applies: the inputs are contiguous and none "
        "has 2 or more dims");
  }
  return result;
}

RuleResult dtypes_rule(const Case& base, const NeighborRule& rule) {
  std::vector<const TensorSpec*> floating;
  for (const TensorSpec& input : base.inputs) {
    if (!is_floating(input.dtype)) continue;
    if (input.source == TensorSpec::Source::kFile) {
      return rule_error("input `" + input.name + "` is read from a " +
                        std::string(dtype_name(input.dtype)) +
                        " file, whose dtype cannot change");
    }
    floating.push_back(&input);
  }
  if (floating.empty()) {
    return rule_error(
        "the case has no floating input (inputs: " + input_names(base) + ")");
  }
  if (rule.reference_cpu64 &&
      base.expectation(Backend::kCpu).kind == Expectation::Kind::kError) {
    return rule_error(
        "`reference: cpu64` compares the CPU run with a float64 "
        "reference, but the base case expects the CPU to fail");
  }
  const std::vector<DType> dtypes =
      !rule.dtypes.empty()
          ? rule.dtypes
          : std::vector<DType>{DType::kFloat16, DType::kBFloat16,
                               DType::kFloat32, DType::kFloat64};
  RuleResult result;
  for (DType dtype : dtypes) {
    const bool same = std::all_of(
        floating.begin(), floating.end(),
        [dtype](const TensorSpec* input) { return input->dtype == dtype; });
    if (same) {
      if (rule.dtypes.empty()) continue;  // the base itself
      return rule_error("every floating input is already " +
                        std::string(dtype_name(dtype)));
    }
    const std::string name(dtype_name(dtype));
    Neighbor neighbor =
        start_neighbor(base, "dtypes", name,
                       "floating inputs as " + name +
                           (rule.reference_cpu64 ? ", reference cpu64" : ""));
    recast_floating(neighbor.value, dtype);
    if (rule.reference_cpu64 &&
        neighbor.value.reference == Case::Reference::kCpu) {
      neighbor.value.reference = Case::Reference::kCpu64;
    }
    expect_as_recast(neighbor, base);
    result.made.push_back(std::move(neighbor));
  }
  return result;
}

}  // namespace casebook::model
