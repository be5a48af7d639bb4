// Comparing a run's outputs with the reference's, the way
// torch.testing.assert_close does: |actual - expected| <= atol +
// rtol*|expected|.
#pragma once

#include <ATen/core/Tensor.h>

#include <optional>
#include <string>
#include <vector>

#include "casebook/case.h"
#include "casebook/family.h"

namespace casebook {

struct Comparison {
  enum class Difference { kNone, kOutputCount, kShape, kDtype, kValues };
  Difference difference = Difference::kNone;
  Family family = Family::kNone;  // kMismatch, or kNanOrInf for new NaN/Inf
  size_t output_index = 0;        // the first output that differs
  // kValues: the assert_close-style evidence.
  int64_t mismatched = 0;
  int64_t total = 0;
  double max_abs_diff = 0.0;
  std::vector<int64_t> max_abs_index;
  double max_rel_diff = 0.0;
  std::vector<int64_t> max_rel_index;
  // Mismatches at NaN positions (NaN on one side, or both without
  // equal_nan), counted apart: the greatest differences rank numbers only.
  int64_t nan_mismatched = 0;
  Tolerance tolerance;
  std::string report;  // one paragraph a person reads; empty when equal

  bool equal() const { return difference == Difference::kNone; }
};

// The tolerance for an output under `rule`: tolerance_in_force (casebook/
// case.h) for the output's dtype.
Tolerance tolerance_for(const at::Tensor& output, const ToleranceRule& rule);

// Where `actual` is outside `tolerance` of `expected` (same shape; any
// dtypes): integers exactly; floating values when |a - e| > atol + rtol |e|,
// equal infinities being equal and NaN against NaN only with equal_nan;
// complex values by the same rule on their magnitudes (torch.isclose), an
// element with NaN in either part being NaN. The
// one closeness test: the comparison and the evidence both ask it.
at::Tensor outside_tolerance(const at::Tensor& expected,
                             const at::Tensor& actual,
                             const Tolerance& tolerance);

// Compares every output in order. Both sides are CPU tensors of any layout.
// `truth` names what `expected` is ("the reference (cpu)", "the expected
// values"); the report's first line ends with "against <truth>".
Comparison compare_outputs(const std::vector<at::Tensor>& expected,
                           const std::vector<at::Tensor>& actual,
                           const ToleranceRule& rule,
                           const std::string& truth = "");
// The same, output i under rules[i] (one rule per expected output).
Comparison compare_outputs_each(const std::vector<at::Tensor>& expected,
                                const std::vector<at::Tensor>& actual,
                                const std::vector<ToleranceRule>& rules,
                                const std::string& truth = "");

// The multi-index of row-major flat index `flat` in a tensor of `sizes`.
std::vector<int64_t> unravel(int64_t flat, at::IntArrayRef sizes);

}  // namespace casebook
