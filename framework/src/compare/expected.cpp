#include "compare/expected.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "casebook/family.h"
#include "casebook/joined.h"
#include "casebook/shape_text.h"
#include "compare/chunk.h"
#include "compare/value_text.h"
#include "tensors/materialise.h"

namespace casebook {
namespace {

// Significant digits of the values and bounds a property check reports.
constexpr int kPropertyDigits = 8;

// The first flat index where `predicate` (on a float64 chunk, complex128
// for a complex tensor) holds, or -1.
template <typename Predicate>
int64_t first_where(const at::Tensor& flat, Predicate predicate) {
  const int64_t total = flat.numel();
  const at::ScalarType wide =
      flat.is_complex() ? at::kComplexDouble : at::kDouble;
  for (int64_t start = 0; start < total; start += kCompareChunk) {
    const int64_t length = std::min(kCompareChunk, total - start);
    const at::Tensor chunk = flat.narrow(0, start, length).to(wide);
    const at::Tensor hits = predicate(chunk);
    if (hits.any().item<bool>()) {
      return start + hits.nonzero()[0][0].item<int64_t>();
    }
  }
  return -1;
}

// "output 0", "output `loss` (1)".
std::string output_label(const OutputExpectation& truth,
                         std::optional<size_t> index) {
  if (truth.index) return "output " + std::to_string(*truth.index);
  return "output `" + truth.key + "`" +
         (index ? " (" + std::to_string(*index) + ")" : "");
}

struct Statistics {
  double mean = 0.0;
  double std = 0.0;  // with Bessel's correction (n - 1), as torch.std
};

// The mean and standard deviation of a real tensor's elements, in float64
// and in chunks (two passes: the deviations from the mean, not the raw
// squares, so that a large mean does not cancel the spread). NaN for an
// empty tensor (the mean), or one of fewer than two elements (the std).
Statistics statistics_of(const at::Tensor& flat) {
  const int64_t total = flat.numel();
  double sum = 0.0;
  for (int64_t start = 0; start < total; start += kCompareChunk) {
    const int64_t length = std::min(kCompareChunk, total - start);
    sum += flat.narrow(0, start, length).to(at::kDouble).sum().item<double>();
  }
  Statistics result;
  result.mean = sum / static_cast<double>(total);
  double squares = 0.0;
  for (int64_t start = 0; start < total; start += kCompareChunk) {
    const int64_t length = std::min(kCompareChunk, total - start);
    const at::Tensor deviation =
        flat.narrow(0, start, length).to(at::kDouble) - result.mean;
    squares += deviation.mul(deviation).sum().item<double>();
  }
  result.std = total < 2 ? std::nan("")
                         : std::sqrt(squares / static_cast<double>(total - 1));
  return result;
}

class Checker {
 public:
  Checker(const std::vector<at::Tensor>& outputs,
          const std::vector<std::string>& names, const ToleranceRule& rule)
      : outputs_(outputs), names_(names), rule_(rule) {}

  // False after recording the first failure in `result_`.
  bool check(const OutputExpectation& truth) {
    std::optional<size_t> index = truth.index;
    if (!index) {
      for (size_t i = 0; i < names_.size(); ++i) {
        if (names_[i] == truth.key) index = i;
      }
    }
    label_ = output_label(truth, index);
    if (!index || *index >= outputs_.size()) {
      std::vector<std::string> indices;
      for (size_t i = 0; i < outputs_.size(); ++i) {
        indices.push_back(std::to_string(i));
        if (i < names_.size() && !names_[i].empty())
          indices.back() += " `" + names_[i] + "`";
      }
      const std::string known = joined(indices);
      return fail(Comparison::Difference::kOutputCount, Family::kMismatch,
                  "the case expects " + label_ +
                      ", which the run did not "
                      "give; its outputs: " +
                      (known.empty() ? std::string("none") : known));
    }
    const at::Tensor& output = outputs_[*index];
    if (truth.shape && output.sizes() != at::IntArrayRef(*truth.shape)) {
      return fail(Comparison::Difference::kShape, Family::kMismatch,
                  label_ + ": shape differs from the case's: expected " +
                      shape_text(*truth.shape) + ", got " +
                      shape_text(output.sizes()));
    }
    if (truth.dtype && output.scalar_type() != to_scalar_type(*truth.dtype)) {
      return fail(
          Comparison::Difference::kDtype, Family::kMismatch,
          label_ + ": dtype differs from the case's: expected " +
              std::string(dtype_name(*truth.dtype)) + ", got " +
              (to_dtype(output.scalar_type())
                   ? std::string(dtype_name(*to_dtype(output.scalar_type())))
                   : std::string(c10::toString(output.scalar_type()))));
    }
    const at::Tensor flat = output.contiguous().reshape({-1});
    flat_count_ = flat.numel();
    if (!check_properties(truth, output, flat)) return false;
    if (truth.values) return check_values(truth, *index, output);
    return true;
  }

  ExpectedCheck result() { return std::move(result_); }

 private:
  bool fail(Comparison::Difference difference, Family family,
            const std::string& report) {
    result_.comparison.difference = difference;
    result_.comparison.family = family;
    result_.comparison.report = report;
    return false;
  }

  // The case's own fault, found only against the output (an ERROR).
  bool invalid_case(const std::string& message) {
    result_.invalid = message;
    return fail(Comparison::Difference::kValues, Family::kInvalidCase, message);
  }

  bool property_failure(const at::Tensor& output, const at::Tensor& flat,
                        int64_t at, Family family, const std::string& what) {
    return fail(Comparison::Difference::kValues, family,
                label_ + ": " + what + " at index " +
                    shape_text(unravel(at, output.sizes())) + " (value " +
                    reported_element(flat, at, kPropertyDigits) + ")");
  }

  // The output's properties the case states, each in turn: false at the
  // first that fails.
  bool check_properties(const OutputExpectation& truth,
                        const at::Tensor& output, const at::Tensor& flat) {
    return check_finite(truth, output, flat) &&
           check_all_nan(truth, output, flat) &&
           check_nan_positions(truth, output, flat) &&
           check_min_max(truth, output, flat) &&
           check_statistics(truth, output, flat);
  }

  static bool is_floating(const at::Tensor& output) {
    return at::isFloatingType(output.scalar_type()) || output.is_complex();
  }

  // `finite: true`
  bool check_finite(const OutputExpectation& truth, const at::Tensor& output,
                    const at::Tensor& flat) {
    if (!truth.finite || !is_floating(output)) return true;
    const int64_t at = first_where(
        flat, [](const at::Tensor& c) { return c.isfinite().logical_not(); });
    if (at < 0) return true;
    return property_failure(output, flat, at, Family::kNanOrInf,
                            "not finite (`finite: true`)");
  }

  // `nan: true`
  bool check_all_nan(const OutputExpectation& truth, const at::Tensor& output,
                     const at::Tensor& flat) {
    if (!truth.all_nan) return true;
    const int64_t at = first_where(
        flat, [](const at::Tensor& c) { return c.isnan().logical_not(); });
    if (at < 0) return true;
    return property_failure(output, flat, at, Family::kMismatch,
                            "expected NaN everywhere (`nan: true`), not "
                            "NaN");
  }

  // The flat index of a `nan` position: a multi-index of the output's rank,
  // or [-1, flat index]; -1 where it lies outside the output.
  static int64_t flat_index_of(const std::vector<int64_t>& position,
                               const at::Tensor& output) {
    if (position.front() == -1) {
      return position.size() == 2 ? position[1] : -1;
    }
    if (position.size() != output.sizes().size()) return -1;
    int64_t index = 0;
    for (size_t d = 0; d < position.size() && index >= 0; ++d) {
      index = position[d] < output.size(static_cast<int64_t>(d))
                  ? index * output.size(static_cast<int64_t>(d)) + position[d]
                  : -1;
    }
    return index;
  }

  // `nan: [positions]`: NaN there and nowhere else.
  bool check_nan_positions(const OutputExpectation& truth,
                           const at::Tensor& output, const at::Tensor& flat) {
    if (!truth.nan_positions) return true;
    at::Tensor wanted = at::zeros({flat.numel()}, at::kBool);
    for (const std::vector<int64_t>& position : *truth.nan_positions) {
      const int64_t index = flat_index_of(position, output);
      if (index < 0 || index >= flat.numel()) {
        std::vector<int64_t> shown(
            position.begin() + (position.front() == -1 ? 1 : 0),
            position.end());
        return fail(Comparison::Difference::kValues, Family::kMismatch,
                    label_ + ": the NaN position " + shape_text(shown) +
                        " lies outside its shape " +
                        shape_text(output.sizes()));
      }
      wanted[index] = true;
    }
    const at::Tensor is_nan = is_floating(output)
                                  ? flat.isnan()
                                  : at::zeros({flat.numel()}, at::kBool);
    const at::Tensor missing = wanted.logical_and(is_nan.logical_not());
    if (missing.any().item<bool>()) {
      return property_failure(
          output, flat, missing.nonzero()[0][0].item<int64_t>(),
          Family::kMismatch, "expected NaN (`nan` positions), not NaN");
    }
    const at::Tensor extra = is_nan.logical_and(wanted.logical_not());
    if (extra.any().item<bool>()) {
      return property_failure(output, flat,
                              extra.nonzero()[0][0].item<int64_t>(),
                              Family::kNanOrInf,
                              "NaN where the case's `nan` positions have "
                              "none");
    }
    return true;
  }

  // `min` and `max`, which bound a real output's values.
  bool check_min_max(const OutputExpectation& truth, const at::Tensor& output,
                     const at::Tensor& flat) {
    if ((truth.min || truth.max) && output.is_complex()) {
      return invalid_case(
          label_ +
          ": `min` and `max` bound a real output's values; this "
          "one is " +
          std::string(dtype_name(*to_dtype(output.scalar_type()))));
    }
    if (truth.min) {
      const double low = *truth.min;
      const int64_t at = first_where(
          flat, [low](const at::Tensor& c) { return c.ge(low).logical_not(); });
      if (at >= 0) {
        return property_failure(
            output, flat, at, Family::kMismatch,
            "below `min: " + reported_number(low, kPropertyDigits) + "`");
      }
    }
    if (truth.max) {
      const double high = *truth.max;
      const int64_t at = first_where(flat, [high](const at::Tensor& c) {
        return c.le(high).logical_not();
      });
      if (at >= 0) {
        return property_failure(
            output, flat, at, Family::kMismatch,
            "above `max: " + reported_number(high, kPropertyDigits) + "`");
      }
    }
    return true;
  }

  // `mean` and `std`, which bound a real output's statistics.
  bool check_statistics(const OutputExpectation& truth,
                        const at::Tensor& output, const at::Tensor& flat) {
    if (!truth.mean_bounds && !truth.std_bounds) return true;
    if (output.is_complex()) {
      return invalid_case(
          label_ +
          ": `mean` and `std` bound a real output's values; "
          "this one is " +
          std::string(dtype_name(*to_dtype(output.scalar_type()))));
    }
    const Statistics found = statistics_of(flat);
    if (truth.mean_bounds && !within("mean", *truth.mean_bounds, found.mean)) {
      return false;
    }
    return !truth.std_bounds || within("std", *truth.std_bounds, found.std);
  }

  // `name: {min, max}` holds of `found` (NaN holds no bound).
  bool within(const std::string& name, const ValueBounds& bounds,
              double found) {
    const bool low = bounds.min && !(found >= *bounds.min);
    const bool high = bounds.max && !(found <= *bounds.max);
    if (!low && !high && !std::isnan(found)) return true;
    std::vector<std::string> ends;
    if (bounds.min)
      ends.push_back("min: " + reported_number(*bounds.min, kPropertyDigits));
    if (bounds.max)
      ends.push_back("max: " + reported_number(*bounds.max, kPropertyDigits));
    const std::string written = joined(ends);
    return fail(Comparison::Difference::kValues, Family::kMismatch,
                label_ + ": " + name + " " +
                    reported_number(found, kPropertyDigits) + " is outside `" +
                    name + ": {" + written + "}` (over " +
                    std::to_string(flat_count_) + " elements)");
  }

  bool check_values(const OutputExpectation& truth, size_t index,
                    const at::Tensor& output) {
    at::Tensor expected;
    try {
      expected = read_only_values(*truth.values);
    } catch (const std::exception& error) {
      result_.invalid = error.what();
      return fail(Comparison::Difference::kValues, Family::kInvalidCase,
                  error.what());
    }
    // This entry's tolerance, resolved where every caller resolves it.
    const Tolerance held =
        tolerance_in_force(rule_, &truth, to_dtype(expected.scalar_type()));
    const ToleranceRule rule{held, held.equal_nan};
    Comparison comparison =
        compare_outputs({expected}, {output}, rule, "the expected values");
    if (comparison.equal()) return true;
    comparison.output_index = index;
    comparison.report = label_ + ": " + comparison.report;
    result_.comparison = std::move(comparison);
    result_.index = index;
    result_.expected = expected;
    return false;
  }

  const std::vector<at::Tensor>& outputs_;
  const std::vector<std::string>& names_;
  const ToleranceRule& rule_;
  std::string label_;
  int64_t flat_count_ = 0;
  ExpectedCheck result_;
};

}  // namespace

ExpectedCheck check_expected_outputs(
    const std::vector<OutputExpectation>& truths,
    const std::vector<at::Tensor>& outputs,
    const std::vector<std::string>& names, const ToleranceRule& rule) {
  Checker checker(outputs, names, rule);
  for (const OutputExpectation& truth : truths) {
    if (!checker.check(truth)) break;
  }
  return checker.result();
}

}  // namespace casebook
