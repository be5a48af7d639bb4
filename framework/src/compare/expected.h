// Checking outputs against what the case file says they must be (`outputs`:
// expected values and properties), independent of any reference run.
#pragma once

#include <ATen/core/Tensor.h>

#include <optional>
#include <string>
#include <vector>

#include "casebook/case.h"
#include "compare/compare.h"

namespace casebook {

struct ExpectedCheck {
  // equal() when every output has what the case says; else the first that
  // does not, with a report naming the output and "the expected values".
  Comparison comparison;
  // A value comparison that failed: the output's index and the expected
  // tensor (for the evidence folder).
  std::optional<size_t> index;
  at::Tensor expected;
  // The case's own fault found only now (a fixture that changed): the
  // message of an ERROR, not a FAIL.
  std::string invalid;
};

// Checks `outputs` (named `names`, "" where unnamed) against `truths`,
// in the order written; the first failure is kept. `rule` is the case's
// tolerance, which an entry's own `tolerance` / `equal_nan` replaces.
ExpectedCheck check_expected_outputs(
    const std::vector<OutputExpectation>& truths,
    const std::vector<at::Tensor>& outputs,
    const std::vector<std::string>& names, const ToleranceRule& rule);

}  // namespace casebook
