// The passes of `casebook reduce` on what a tensor holds: layouts, values,
// dtypes (runner/reduce_passes.h).
#include <ATen/ATen.h>

#include <numeric>

#include "casebook/joined.h"
#include "casebook/number_text.h"
#include "casebook/shape_text.h"
#include "runner/reduce_passes.h"
#include "runner/reduce_search.h"
#include "tensors/materialise.h"

namespace casebook::reducing {
namespace {

// Elements searched one set at a time for those whose values matter; past
// this many the values are kept whole (the search would cost about as many
// runs).
constexpr int64_t kMostElementsSearched = 4096;
constexpr size_t kMaxChunks = 4;
constexpr size_t kValuesNamed = 8;

std::string layout_text(const Layout& layout) {
  switch (layout.kind) {
    case Layout::Kind::kTranspose:
      return "transpose " + shape_text(layout.dims);
    case Layout::Kind::kPermute:
      return "permute " + shape_text(layout.dims);
    case Layout::Kind::kStrided:
      return "stride " + shape_text(layout.stride) + ", storage_offset " +
             std::to_string(layout.storage_offset);
    case Layout::Kind::kNonContiguous:
      return "contiguous: false";
    case Layout::Kind::kDefault:
      break;
  }
  return "default";
}

}  // namespace

std::vector<bool> reduce_layouts(Reduction& r) {
  std::vector<bool> fixed(r.best.kase.inputs.size(), false);
  for (size_t i = 0; i < r.best.kase.inputs.size(); ++i) {
    const TensorSpec spec = r.best.kase.inputs[i];
    // An alias (`same_as`) follows its target, here and in every pass.
    if (spec.layout.kind == Layout::Kind::kDefault || !spec.same_as.empty()) {
      continue;
    }
    const std::string what =
        "layout of `" + spec.name + "` (" + layout_text(spec.layout) + ")";
    ReduceState candidate = r.best;
    candidate.kase.inputs[i].layout = Layout{};
    if (r.keep_if_same(std::move(candidate))) {
      r.removed.push_back(what + ": the failure holds contiguous");
      continue;
    }
    const bool strided = spec.layout.kind == Layout::Kind::kStrided;
    fixed[i] = strided;
    r.kept.push_back(
        what + ": contiguous, the case " + r.last_outcome() +
        (strided ? "; its strides kept, so its dims are too" : ""));
  }
  return fixed;
}

namespace {

bool all_equal_to(const at::Tensor& values, double value) {
  return values.numel() > 0 && at::equal(values, at::full_like(values, value));
}

// The value of one element, as a case writes it.
std::string value_text(const at::Tensor& element) {
  if (element.is_complex()) return "(complex)";
  if (element.is_floating_point()) return number_text(element.item<double>());
  if (element.scalar_type() == at::kBool) {
    return element.item<bool>() ? "true" : "false";
  }
  return std::to_string(element.item<int64_t>());
}

// Where index `position` of dim `dim` of input `input` was in the original
// case (a dim resized by a group); itself otherwise.
int64_t original_index(const ReduceState& state, size_t input, int64_t dim,
                       int64_t position) {
  for (const DimGroup& group : state.groups) {
    for (const auto& [which, resized] : group.dims) {
      if (which == input && resized == dim) {
        return group.original.at(static_cast<size_t>(position));
      }
    }
  }
  return position;
}

// The element at row-major `flat` of input `input`, and where it was in
// the original case: "target[0] = 1000 (was target[317])".
std::string element_text(const ReduceState& state, size_t input, int64_t flat) {
  const at::Tensor& values = state.values[input];
  const std::string& name = state.kase.inputs[input].name;
  const std::string value = value_text(values.reshape({-1})[flat]);
  std::vector<int64_t> index(static_cast<size_t>(values.dim()));
  std::vector<int64_t> original(index.size());
  for (int64_t d = values.dim(); d-- > 0;) {
    const size_t at = static_cast<size_t>(d);
    index[at] = flat % values.size(d);
    flat /= values.size(d);
    original[at] = original_index(state, input, d, index[at]);
  }
  return name + shape_text(index) + " = " + value +
         (index == original ? ""
                            : " (was " + name + shape_text(original) + ")");
}

// The input with the elements not at `exact` (row-major positions) set to
// 0.
ReduceState with_exact(const ReduceState& base, size_t input,
                       const std::vector<int64_t>& exact) {
  ReduceState candidate = base;
  const at::Tensor& values = base.values[input];
  at::Tensor flat = at::zeros_like(values).reshape({-1});
  const at::Tensor kept = at::tensor(exact, at::kLong);
  flat.index_copy_(0, kept, values.reshape({-1}).index_select(0, kept));
  set_input_values(candidate, input, flat.reshape(values.sizes()));
  return candidate;
}

// The elements whose values matter, the others 0 (delta debugging).
void keep_what_matters(Reduction& r, size_t input) {
  const ReduceState base = r.best;
  const int64_t count = base.values[input].numel();
  const std::string& name = base.kase.inputs[input].name;
  std::vector<int64_t> all(static_cast<size_t>(count));
  std::iota(all.begin(), all.end(), 0);
  const std::vector<int64_t> exact =
      count > kMostElementsSearched
          ? all
          : delta_debug(
                all,
                [&](const std::vector<int64_t>& positions) {
                  return r.keep_if_same(with_exact(base, input, positions));
                },
                kMaxChunks);
  std::vector<std::string> named;
  for (size_t k = 0; k < exact.size() && k < kValuesNamed; ++k) {
    named.push_back(element_text(r.best, input, exact[k]));
  }
  const std::string more =
      exact.size() > kValuesNamed
          ? " and " + std::to_string(exact.size() - kValuesNamed) + " more"
          : "";
  const int64_t zeroed = count - static_cast<int64_t>(exact.size());
  r.kept.push_back(
      "values of `" + name + "` that matter, exact: " + joined(named) + more +
      (zeroed > 0 ? "; the other " + std::to_string(zeroed) + " set to 0"
                  : ""));
}

// All 0, else all 1, else the elements that matter.
void simplify_values(Reduction& r, size_t input) {
  const at::Tensor values = input_values(r.best, input);
  const std::string name = r.best.kase.inputs[input].name;  // best changes
  if (values.numel() == 0) return;
  std::string zero = "they are all 0";
  for (const double constant : {0.0, 1.0}) {
    if (all_equal_to(values, constant)) return;
    ReduceState candidate = r.best;
    set_input_values(candidate, input, at::full_like(values, constant));
    if (r.keep_if_same(std::move(candidate))) {
      r.removed.push_back("values of `" + name + "`: all " +
                          number_text(constant) + " (they do not matter)");
      return;
    }
    if (constant == 0.0) zero = "all 0, the case " + r.last_outcome();
  }
  if (values.numel() == 1) {
    r.kept.push_back("value " + element_text(r.best, input, 0) +
                     ": it matters (" + zero + ")");
    return;
  }
  keep_what_matters(r, input);
}

}  // namespace

void reduce_values(Reduction& r) {
  for (size_t i = 0; i < r.best.kase.inputs.size(); ++i) {
    if (r.best.kase.inputs[i].same_as.empty()) simplify_values(r, i);
  }
}

void check_dtypes(Reduction& r) {
  for (size_t i = 0; i < r.best.kase.inputs.size(); ++i) {
    const DType dtype = r.best.kase.inputs[i].dtype;
    if ((dtype != DType::kFloat16 && dtype != DType::kBFloat16 &&
         dtype != DType::kFloat64) ||
        !r.best.kase.inputs[i].same_as.empty()) {
      continue;
    }
    ReduceState candidate = r.best;
    const at::Tensor values = input_values(candidate, i);
    set_input_values(candidate, i, values.to(at::kFloat));
    const std::string what = "dtype " + std::string(dtype_name(dtype)) +
                             " of `" + r.best.kase.inputs[i].name + "`";
    if (r.fails_same(candidate.kase)) {
      r.kept.push_back(what +
                       ": as the case has it (in float32 the case "
                       "fails the same way)");
    } else {
      r.kept.push_back(what + ": it must stay (in float32 the case " +
                       r.last_outcome() + ")");
    }
  }
}

}  // namespace casebook::reducing
