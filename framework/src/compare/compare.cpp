#include "compare/compare.h"

#include <ATen/ATen.h>

#include <cmath>
#include <sstream>

#include "tensors/materialise.h"

namespace casebook {
namespace {

std::string format_shape(at::IntArrayRef sizes) {
  return format_index(std::vector<int64_t>(sizes.begin(), sizes.end()));
}

std::string dtype_text(const at::Tensor& tensor) {
  if (auto dtype = to_dtype(tensor.scalar_type())) {
    return std::string(dtype_name(*dtype));
  }
  return std::string(c10::toString(tensor.scalar_type()));
}

std::vector<int64_t> unravel(int64_t flat, at::IntArrayRef sizes) {
  std::vector<int64_t> index(sizes.size(), 0);
  for (size_t d = sizes.size(); d-- > 0;) {
    index[d] = flat % sizes[d];
    flat /= sizes[d];
  }
  return index;
}

std::string format_number(double value) {
  std::ostringstream out;
  out.precision(6);
  out << value;
  return out.str();
}

// Compares two tensors of equal shape and dtype element by element.
void compare_values(const at::Tensor& expected, const at::Tensor& actual,
                    const Tolerance& tolerance, Comparison* result) {
  // float64 holds every value of every supported dtype but int64 beyond 2^53;
  // integers are compared exactly on their own type first.
  const bool integral = !at::isFloatingType(expected.scalar_type());
  at::Tensor exp = expected.contiguous();
  at::Tensor act = actual.contiguous();
  at::Tensor mismatch;
  at::Tensor abs_diff;
  at::Tensor rel_diff;
  if (integral) {
    mismatch = exp.ne(act).reshape({-1});
    abs_diff = (act.to(at::kDouble) - exp.to(at::kDouble)).abs().reshape({-1});
    rel_diff = abs_diff / exp.to(at::kDouble).abs().reshape({-1});
  } else {
    at::Tensor e = exp.to(at::kDouble).reshape({-1});
    at::Tensor a = act.to(at::kDouble).reshape({-1});
    abs_diff = (a - e).abs();
    rel_diff = abs_diff / e.abs();
    at::Tensor close = abs_diff.le(tolerance.atol + tolerance.rtol * e.abs());
    // Equal infinities are close (inf - inf is NaN); NaN only with equal_nan.
    close = close.logical_or(e.eq(a));
    if (tolerance.equal_nan) {
      close = close.logical_or(e.isnan().logical_and(a.isnan()));
    }
    mismatch = close.logical_not();
    // A NaN or an infinity the reference does not have: family nan_or_inf.
    at::Tensor new_nonfinite = a.isfinite().logical_not().logical_and(
        e.isfinite().logical_and(mismatch));
    if (new_nonfinite.any().item<bool>()) result->family = Family::kNanOrInf;
  }
  result->total = exp.numel();
  result->mismatched = mismatch.sum().item<int64_t>();
  if (result->mismatched == 0) return;
  result->difference = Comparison::Difference::kValues;
  if (result->family == Family::kNone) result->family = Family::kMismatch;
  // NaN differences rank above any finite one, as the worst evidence.
  at::Tensor abs_rank =
      abs_diff.nan_to_num(INFINITY).masked_fill(mismatch.logical_not(), -1.0);
  at::Tensor rel_rank =
      rel_diff.nan_to_num(INFINITY).masked_fill(mismatch.logical_not(), -1.0);
  int64_t worst_abs = abs_rank.argmax().item<int64_t>();
  int64_t worst_rel = rel_rank.argmax().item<int64_t>();
  result->max_abs_diff = abs_diff[worst_abs].item<double>();
  result->max_rel_diff = rel_diff[worst_rel].item<double>();
  result->max_abs_index = unravel(worst_abs, exp.sizes());
  result->max_rel_index = unravel(worst_rel, exp.sizes());
}

}  // namespace

std::string format_index(const std::vector<int64_t>& index) {
  std::ostringstream out;
  out << "[";
  for (size_t i = 0; i < index.size(); ++i) out << (i ? ", " : "") << index[i];
  out << "]";
  return out.str();
}

Tolerance tolerance_for(const at::Tensor& output, const ToleranceRule& rule) {
  Tolerance tolerance;
  if (rule.explicit_tolerance) {
    tolerance = *rule.explicit_tolerance;
  } else if (auto dtype = to_dtype(output.scalar_type())) {
    tolerance = default_tolerance(*dtype);
  }
  tolerance.equal_nan = tolerance.equal_nan || rule.equal_nan;
  return tolerance;
}

Comparison compare_outputs(const std::vector<at::Tensor>& expected,
                           const std::vector<at::Tensor>& actual,
                           const ToleranceRule& rule) {
  Comparison result;
  std::ostringstream report;
  if (expected.size() != actual.size()) {
    result.difference = Comparison::Difference::kOutputCount;
    result.family = Family::kMismatch;
    report << "output count differs: expected " << expected.size() << ", got "
           << actual.size();
    result.report = report.str();
    return result;
  }
  for (size_t i = 0; i < expected.size(); ++i) {
    const at::Tensor& exp = expected[i];
    const at::Tensor& act = actual[i];
    result.output_index = i;
    const std::string which =
        expected.size() > 1 ? "output " + std::to_string(i) + ": " : "";
    if (exp.sizes() != act.sizes()) {
      result.difference = Comparison::Difference::kShape;
      result.family = Family::kMismatch;
      report << which << "shape differs: expected " << format_shape(exp.sizes())
             << ", got " << format_shape(act.sizes());
      result.report = report.str();
      return result;
    }
    if (exp.scalar_type() != act.scalar_type()) {
      result.difference = Comparison::Difference::kDtype;
      result.family = Family::kMismatch;
      report << which << "dtype differs: expected " << dtype_text(exp)
             << ", got " << dtype_text(act);
      result.report = report.str();
      return result;
    }
    result.tolerance = tolerance_for(exp, rule);
    compare_values(exp, act, result.tolerance, &result);
    if (result.difference != Comparison::Difference::kNone) {
      const double percent = 100.0 * static_cast<double>(result.mismatched) /
                             static_cast<double>(result.total);
      report << which << "mismatched elements: " << result.mismatched << " / "
             << result.total << " (" << format_number(percent) << " %)\n"
             << "greatest absolute difference: "
             << format_number(result.max_abs_diff) << " at index "
             << format_index(result.max_abs_index) << "\n"
             << "greatest relative difference: "
             << format_number(result.max_rel_diff) << " at index "
             << format_index(result.max_rel_index) << "\n"
             << "tolerance: rtol=" << format_number(result.tolerance.rtol)
             << ", atol=" << format_number(result.tolerance.atol)
             << (result.tolerance.equal_nan ? ", equal_nan" : "");
      if (result.family == Family::kNanOrInf) {
        report << "\nthe output has NaN or infinite values where the "
                  "reference is finite";
      }
      result.report = report.str();
      return result;
    }
  }
  return result;
}

}  // namespace casebook
