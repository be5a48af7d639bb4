#include "compare/compare.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "casebook/internal_error.h"
#include "casebook/shape_text.h"
#include "compare/chunk.h"
#include "compare/value_text.h"
#include "tensors/materialise.h"

namespace casebook {
namespace {

// Significant digits of the numbers in a comparison's report.
constexpr int kFailureDigits = 6;

// The worst element seen so far by one measure (absolute or relative),
// among elements where neither side is NaN (NaN positions are counted apart).
struct Worst {
  double rank = -1.0;  // none yet
  double value = 0.0;
  int64_t flat_index = 0;

  void offer(const at::Tensor& diff, const at::Tensor& mismatch, int64_t base) {
    at::Tensor ranked =
        diff.nan_to_num(INFINITY).masked_fill(mismatch.logical_not(), -1.0);
    const int64_t at = ranked.argmax().item<int64_t>();
    const double candidate = ranked[at].item<double>();
    if (candidate > rank) {
      rank = candidate;
      value = diff[at].item<double>();
      flat_index = base + at;
    }
  }
};

// How many elements of a kind, and the first of them.
struct Count {
  int64_t count = 0;
  int64_t first = -1;

  void add(const at::Tensor& mask, int64_t base) {
    const int64_t n = mask.sum().item<int64_t>();
    if (n == 0) return;
    if (first < 0) first = base + mask.nonzero()[0][0].item<int64_t>();
    count += n;
  }
};

// What the values are compared in: float64, complex128 for complex ones.
at::ScalarType wide_type(const at::Tensor& tensor) {
  return tensor.is_complex() ? at::kComplexDouble : at::kDouble;
}

// What comparing two flat tensors finds, one chunk after another.
struct Tally {
  Worst worst_abs;
  Worst worst_rel;
  Count nan_actual;    // NaN where the expected has a number
  Count nan_expected;  // a number where the expected has NaN
  Count nan_both;      // NaN on both sides, without equal_nan
  bool new_nonfinite = false;
  int64_t mismatched = 0;

  // `exp` and `act`: the elements from flat index `start` on. Integers
  // (`integral`) are compared exactly on their own type, other values in
  // float64 or complex128.
  void add(const at::Tensor& exp, const at::Tensor& act,
           const Tolerance& tolerance, bool integral, int64_t start) {
    at::Tensor e = exp.to(wide_type(exp));
    at::Tensor a = act.to(wide_type(act));
    at::Tensor abs_diff = (a - e).abs();
    at::Tensor rel_diff = abs_diff / e.abs();
    at::Tensor mismatch;
    at::Tensor numeric;  // mismatches where neither side is NaN
    if (integral) {
      mismatch = exp.ne(act);
      numeric = mismatch;
    } else {
      mismatch = outside_tolerance(e, a, tolerance);
      numeric = add_nan_counts(e, a, mismatch, tolerance, start);
    }
    const int64_t chunk_mismatched = mismatch.sum().item<int64_t>();
    if (chunk_mismatched == 0) return;
    mismatched += chunk_mismatched;
    if (numeric.any().item<bool>()) {
      worst_abs.offer(abs_diff, numeric, start);
      worst_rel.offer(rel_diff, numeric, start);
    }
  }

  // Counts the NaN mismatches of floating `e` and `a` and notes a new
  // non-finite value; the mismatches where neither side is NaN.
  at::Tensor add_nan_counts(const at::Tensor& e, const at::Tensor& a,
                            const at::Tensor& mismatch,
                            const Tolerance& tolerance, int64_t start) {
    const at::Tensor e_nan = e.isnan();
    const at::Tensor a_nan = a.isnan();
    nan_actual.add(a_nan.logical_and(e_nan.logical_not()), start);
    nan_expected.add(e_nan.logical_and(a_nan.logical_not()), start);
    if (!tolerance.equal_nan) nan_both.add(e_nan.logical_and(a_nan), start);
    // A NaN or an infinity the reference does not have: family nan_or_inf.
    new_nonfinite =
        new_nonfinite || a.isfinite()
                             .logical_not()
                             .logical_and(e.isfinite().logical_and(mismatch))
                             .any()
                             .item<bool>();
    return mismatch.logical_and(e_nan.logical_or(a_nan).logical_not());
  }
};

// The report's lines on two flat tensors of `sizes` and what a Tally found
// in them.
class Notes {
 public:
  Notes(const at::Tensor& expected, const at::Tensor& actual,
        at::IntArrayRef sizes, std::ostringstream* out)
      : expected_(expected), actual_(actual), sizes_(sizes), out_(out) {}

  void worst(const char* what, double difference,
             const std::vector<int64_t>& index, int64_t flat_index) {
    *out_ << "greatest " << what
          << " difference: " << reported_number(difference, kFailureDigits)
          << " at index " << shape_text(index) << " (expected "
          << reported_element(expected_, flat_index, kFailureDigits) << ", got "
          << reported_element(actual_, flat_index, kFailureDigits) << ")\n";
  }

  void nan_count(const Count& count, const char* what) {
    if (count.count == 0) return;
    *out_ << what << ": " << count.count
          << (count.count == 1 ? " element" : " elements")
          << ", first at index " << shape_text(unravel(count.first, sizes_))
          << " (expected "
          << reported_element(expected_, count.first, kFailureDigits)
          << ", got " << reported_element(actual_, count.first, kFailureDigits)
          << ")\n";
  }

 private:
  const at::Tensor& expected_;
  const at::Tensor& actual_;
  at::IntArrayRef sizes_;
  std::ostringstream* out_;
};

// Compares two tensors of equal shape and dtype element by element.
void compare_values(const at::Tensor& expected, const at::Tensor& actual,
                    const Tolerance& tolerance, Comparison* result,
                    std::ostringstream* notes) {
  // float64 holds every value of every supported dtype but int64 beyond 2^53;
  // integers are compared exactly on their own type first. Complex values
  // are compared in complex128: |a - e| and |e| are complex magnitudes.
  const bool integral =
      !at::isFloatingType(expected.scalar_type()) && !expected.is_complex();
  const at::Tensor all_expected = expected.contiguous().reshape({-1});
  const at::Tensor all_actual = actual.contiguous().reshape({-1});
  const int64_t total = all_expected.numel();
  Tally tally;
  for (int64_t start = 0; start < total; start += kCompareChunk) {
    const int64_t length = std::min(kCompareChunk, total - start);
    tally.add(all_expected.narrow(0, start, length),
              all_actual.narrow(0, start, length), tolerance, integral, start);
  }
  result->total = total;
  result->mismatched = tally.mismatched;
  if (tally.mismatched == 0) return;
  result->difference = Comparison::Difference::kValues;
  result->family = tally.new_nonfinite ? Family::kNanOrInf : Family::kMismatch;
  result->nan_mismatched =
      tally.nan_actual.count + tally.nan_expected.count + tally.nan_both.count;
  Notes lines(all_expected, all_actual, expected.sizes(), notes);
  if (tally.worst_abs.rank >= 0) {
    result->max_abs_diff = tally.worst_abs.value;
    result->max_rel_diff = tally.worst_rel.value;
    result->max_abs_index =
        unravel(tally.worst_abs.flat_index, expected.sizes());
    result->max_rel_index =
        unravel(tally.worst_rel.flat_index, expected.sizes());
    lines.worst("absolute", result->max_abs_diff, result->max_abs_index,
                tally.worst_abs.flat_index);
    lines.worst("relative", result->max_rel_diff, result->max_rel_index,
                tally.worst_rel.flat_index);
  }
  lines.nan_count(tally.nan_actual, "NaN where a number is expected");
  lines.nan_count(tally.nan_expected, "a number where NaN is expected");
  lines.nan_count(tally.nan_both,
                  "NaN on both sides, unequal without `equal_nan: true`");
  if (result->nan_mismatched > 0) {
    *notes << "where NaN is the right answer, say so: `equal_nan: true` (in "
              "`tolerance` or an output's entry) or the output's `nan` "
              "positions\n";
  }
}

}  // namespace

std::vector<int64_t> unravel(int64_t flat, at::IntArrayRef sizes) {
  std::vector<int64_t> index(sizes.size(), 0);
  for (size_t d = sizes.size(); d-- > 0;) {
    index[d] = flat % sizes[d];
    flat /= sizes[d];
  }
  return index;
}

Tolerance tolerance_for(const at::Tensor& output, const ToleranceRule& rule) {
  return tolerance_in_force(rule, nullptr, to_dtype(output.scalar_type()));
}

at::Tensor outside_tolerance(const at::Tensor& expected,
                             const at::Tensor& actual,
                             const Tolerance& tolerance) {
  if (!at::isFloatingType(expected.scalar_type()) && !expected.is_complex()) {
    return expected.ne(actual);
  }
  // Complex: |a - e| <= atol + rtol |e| on the complex values (torch.isclose);
  // NaN in either part makes the element NaN.
  const at::Tensor e = expected.to(wide_type(expected));
  const at::Tensor a = actual.to(wide_type(actual));
  at::Tensor close =
      (a - e).abs().le(tolerance.atol + tolerance.rtol * e.abs());
  // Equal infinities are close (inf - inf is NaN); NaN only with equal_nan.
  close = close.logical_or(e.eq(a));
  if (tolerance.equal_nan) {
    close = close.logical_or(e.isnan().logical_and(a.isnan()));
  }
  return close.logical_not();
}

Comparison compare_outputs(const std::vector<at::Tensor>& expected,
                           const std::vector<at::Tensor>& actual,
                           const ToleranceRule& rule,
                           const std::string& truth) {
  return compare_outputs_each(expected, actual,
                              std::vector<ToleranceRule>(expected.size(), rule),
                              truth);
}

namespace {

// A shape or dtype that differs is a failure of its own, before any value is
// compared: said in `result` (its report prefixed with `which`).
bool differ_in_shape_or_dtype(const at::Tensor& exp, const at::Tensor& act,
                              const std::string& which, Comparison* result) {
  std::ostringstream report;
  if (exp.sizes() != act.sizes()) {
    result->difference = Comparison::Difference::kShape;
    report << which << "shape differs: expected " << shape_text(exp.sizes())
           << ", got " << shape_text(act.sizes());
  } else if (exp.scalar_type() != act.scalar_type()) {
    result->difference = Comparison::Difference::kDtype;
    report << which << "dtype differs: expected " << reported_dtype(exp)
           << ", got " << reported_dtype(act);
  } else {
    return false;
  }
  result->family = Family::kMismatch;
  result->report = report.str();
  return true;
}

}  // namespace

Comparison compare_outputs_each(const std::vector<at::Tensor>& expected,
                                const std::vector<at::Tensor>& actual,
                                const std::vector<ToleranceRule>& rules,
                                const std::string& truth) {
  CASEBOOK_ASSERT(rules.size() == expected.size(),
                  "compare_outputs_each takes one rule per expected output");
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
    if (differ_in_shape_or_dtype(exp, act, which, &result)) return result;
    result.tolerance = tolerance_for(exp, rules[i]);
    std::ostringstream notes;
    compare_values(exp, act, result.tolerance, &result, &notes);
    if (result.difference != Comparison::Difference::kNone) {
      const double percent = 100.0 * static_cast<double>(result.mismatched) /
                             static_cast<double>(result.total);
      report << which << "mismatched elements: " << result.mismatched << " / "
             << result.total << " (" << reported_number(percent, kFailureDigits)
             << " %)" << (truth.empty() ? "" : " against " + truth) << "\n"
             << notes.str() << "tolerance: rtol="
             << reported_number(result.tolerance.rtol, kFailureDigits)
             << ", atol="
             << reported_number(result.tolerance.atol, kFailureDigits)
             << (result.tolerance.equal_nan ? ", equal_nan" : "");
      if (result.family == Family::kNanOrInf) {
        report << "\nthe output has NaN or infinite values where "
               << (truth.empty() ? "the reference" : truth)
               << " has finite ones";
      }
      result.report = report.str();
      return result;
    }
  }
  return result;
}

}  // namespace casebook
